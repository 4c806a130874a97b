/**
 * The checks around a REST or events login that are about where it comes from, not what it says:
 * - failed logins are counted per source address and over all addresses with core's
 *   AuthFailureLimiter, as SIP digest failures are; a blocked address gets 403 for its cool-off
 *   without its credentials being checked;
 * - a user's ari.conf ACL (`acl`, `permit`, `deny`) must admit the address, or the login fails
 *   exactly like a wrong password (401) and is counted;
 * - each failure is a security event in the log, written sampled so a flood stays a few lines.
 * Requests without credentials are not failures: a client's first request often has none.
 * A successful password check is reused for a few seconds (verified-credentials.ts); the blocked
 * address and ACL checks above still run on every login.
 */
import {
  AuthFailureLimiter,
  type AuthFailureLimits,
  type AriUser,
  aclPermits,
  type Clock,
  type Logger,
  SampledLog,
} from '@switchboard/core';
import { ApiError } from './api-error.js';
import { type AuthenticatedUser, authenticate, authenticationRequired, CLUSTER_PEER_USER, credentialsFrom, sameSecret } from './auth.js';
import { VerifiedCredentials } from './verified-credentials.js';

export const tooManyFailedLogins = () => new ApiError(403, 'Too many failed logins from this address; try again later');

export class LoginGuard {
  readonly #limiter: AuthFailureLimiter;
  readonly #sampled: SampledLog;
  readonly #verified: VerifiedCredentials;

  constructor(clock: Pick<Clock, 'now'>, log: Logger, limits: Partial<AuthFailureLimits> = {}) {
    this.#limiter = new AuthFailureLimiter(() => clock.now(), limits);
    this.#sampled = new SampledLog(log, clock);
    this.#verified = new VerifiedCredentials(clock);
  }

  /**
   * Returns the user or throws 401/403. `authorization` and `apiKey` are what the request carried
   * (the Authorization header, the api_key query parameter); `address` is the peer's socket address.
   */
  login(users: readonly AriUser[], authorization: string | undefined, apiKey: string | undefined, address: string): AuthenticatedUser {
    this.#refuseBlocked(address);
    const key = VerifiedCredentials.key(authorization, apiKey);
    const remembered = this.#verified.get(key, users);
    let user = remembered;
    if (user === undefined) {
      const credentials = credentialsFrom(authorization, apiKey);
      if (credentials === undefined) throw authenticationRequired();
      try {
        user = authenticate(users, credentials);
      } catch (err) {
        this.#fail(address, credentials.user, 'auth_failed');
        throw err;
      }
    }
    const name = user.name;
    const record = users.find((u) => u.name === name);
    const acl = record?.acl ?? [];
    if (!aclPermits(acl, address)) {
      this.#fail(address, user.name, 'acl_denied');
      throw authenticationRequired();
    }
    this.#limiter.recordSuccess(address);
    // Kept from the check itself, not from its last use: the TTL bounds how stale a verification gets.
    if (remembered === undefined && record !== undefined) this.#verified.remember(key, record, user);
    return user;
  }

  /**
   * Another node of the cluster, which shows the shared secret instead of a login. A wrong secret
   * is a failed login like any other: counted, logged and locked out, or the secret could be guessed.
   */
  peerLogin(given: unknown, secret: string, address: string): void {
    this.#refuseBlocked(address);
    if (typeof given !== 'string' || !sameSecret(given, secret)) {
      this.#fail(address, CLUSTER_PEER_USER, 'auth_failed');
      throw authenticationRequired();
    }
    this.#limiter.recordSuccess(address);
  }

  #refuseBlocked(address: string): void {
    if (!this.#limiter.isBlocked(address)) return;
    this.#sampled.write('info', 'api_auth_blocked', { securityEvent: 'auth_blocked', address }, 'API login from a blocked address refused');
    throw tooManyFailedLogins();
  }

  #fail(address: string, username: string, securityEvent: 'auth_failed' | 'acl_denied'): void {
    this.#sampled.write(
      'warn',
      `api_${securityEvent}`,
      { securityEvent, address, username },
      securityEvent === 'acl_denied' ? 'API login from an address the user may not use' : 'API login failed',
    );
    const outcome = this.#limiter.recordFailure(address);
    if (outcome === 'address-blocked') {
      this.#sampled.write(
        'warn',
        'api_auth_blocking',
        { securityEvent: 'auth_blocked', address },
        'too many failed API logins; address refused for a cool-off',
      );
    } else if (outcome === 'lockdown') {
      this.#sampled.write(
        'warn',
        'api_auth_lockdown',
        { securityEvent: 'auth_lockdown' },
        'too many failed API logins from all addresses; only known addresses may log in for a cool-off',
      );
    }
  }
}
