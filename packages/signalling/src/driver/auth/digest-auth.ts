/**
 * Digest authentication of requests from endpoints with `auth=` (RFC 3261 §22.2, §22.4; RFC 7616;
 * RFC 8760), as an `InboundAuthenticator` in the driver's chain (after identification by address).
 *
 * Which endpoint a request claims to be is read from the From user (REGISTER: the To user names the
 * AOR, the From user the endpoint, and phones put the same name in both): the endpoint of that name,
 * else the endpoint whose auth has that username. The digest must then be computed with that auth's
 * username and password. Every way of failing — unknown user, wrong password, foreign nonce, wrong
 * username for the endpoint — gets the same fresh 401 challenge, so the answer never tells whether a
 * user exists. A correct response with an expired nonce gets `stale=true` (RFC 7616 §3.3).
 *
 * Failures are counted per source address and over all addresses (AuthFailureLimiter); past a
 * limit the address (or, in a lockdown, every address that never logged in) is refused with 403
 * for a cool-off, and each failure is logged as a security event. A digest-uri that does not name
 * the Request-URI is one more failure answered 401. So that the response time does not tell a
 * known user from an unknown one either, the digest is computed for every attempt: for an unknown
 * user against a random password.
 */
import { randomBytes } from 'node:crypto';
import {
  AuthFailureLimiter,
  type AuthFailureLimits,
  type Clock,
  type Logger,
  type SipAuthConfig,
  type SipEndpointConfig,
} from '@switchboard/core';
import { SipParseError } from '../../errors.js';
import type { SipRequest } from '../../message/sip-message.js';
import { parseUri } from '../../message/uri.js';
import type { PeerAddress } from '../../transport/transport.js';
import {
  computeDigestResponse,
  type DigestAlgorithm,
  type DigestCredentials,
  digestsEqual,
  formatChallenge,
  NonceManager,
  parseDigestCredentials,
} from './digest.js';
import type { AuthOutcome, InboundAuthenticator } from './identify.js';

// The limiter is shared with the REST API's Basic logins, so it lives in core.
export { AuthFailureLimiter, type AuthFailureLimits, DEFAULT_AUTH_FAILURE_LIMITS } from '@switchboard/core';

export interface DigestAuthenticatorOptions {
  endpoints: readonly SipEndpointConfig[];
  auths: readonly SipAuthConfig[];
  clock: Clock;
  logger: Logger;
  /** Realm for auths without their own `realm` and for unknown users. Default `switchboard`. */
  realm?: string;
  /** How long a nonce may be used. Default 30 s (Asterisk's nonce_lifetime is 32 s). */
  nonceLifetimeMs?: number;
  /** Methods that are challenged; others pass to the next authenticator. Default INVITE, REGISTER, MESSAGE, SUBSCRIBE, REFER. */
  methods?: readonly string[];
  limits?: Partial<AuthFailureLimits>;
  /**
   * HMAC secret for nonces shared by the nodes of a cluster (clusterNonceSecret): nonces issued by
   * another node are accepted (NonceOptions.shared). Random per process when absent.
   */
  sharedNonceSecret?: Buffer;
  /**
   * Challenges sent, one WWW-Authenticate each, in this order. Default MD5 then SHA-256: RFC 8760
   * §2.4 wants the preferred one first, but many deployed phones (and sipp) read only the first
   * challenge and know only MD5, so SHA-256 first would lock them out. Put SHA-256 first (or alone)
   * when every phone supports it.
   */
  algorithms?: readonly DigestAlgorithm[];
}

interface Candidate {
  endpoint: SipEndpointConfig;
  auth: SipAuthConfig;
  realm: string;
}

/**
 * The digest-uri names the Request-URI: equal as written, or (as several clients write it, sipp
 * among them) the same SIP host and port without the user part. Anything else is refused: the
 * credentials were computed for another target.
 */
export function digestUriMatches(digestUri: string, request: SipRequest): boolean {
  if (digestUri === request.requestUri) return true;
  let written: ReturnType<typeof parseUri>;
  let target: ReturnType<typeof parseUri>;
  try {
    written = parseUri(digestUri);
    target = request.uri;
  } catch (err) {
    if (err instanceof SipParseError) return false;
    throw err;
  }
  if (written.kind !== 'sip' || target.kind !== 'sip') return false;
  if (written.user !== undefined && written.user !== target.user) return false;
  return written.scheme === target.scheme && written.host === target.host && (written.port ?? 5060) === (target.port ?? 5060);
}

const DEFAULT_METHODS = ['INVITE', 'REGISTER', 'MESSAGE', 'SUBSCRIBE', 'REFER'];
const DEFAULT_ALGORITHMS: readonly DigestAlgorithm[] = ['MD5', 'SHA-256'];

export class DigestAuthenticator implements InboundAuthenticator {
  readonly #byEndpoint = new Map<string, Candidate>();
  readonly #byUsername = new Map<string, Candidate>();
  readonly #realm: string;
  readonly #nonces: NonceManager;
  readonly #limiter: AuthFailureLimiter;
  readonly #methods: ReadonlySet<string>;
  readonly #log: Logger;
  readonly #algorithms: readonly DigestAlgorithm[];
  /** The password an unknown user's digest is checked against (it can never match). */
  readonly #decoyPassword = randomBytes(18).toString('base64');

  constructor(options: DigestAuthenticatorOptions) {
    this.#realm = options.realm ?? 'switchboard';
    this.#algorithms = options.algorithms !== undefined && options.algorithms.length > 0 ? options.algorithms : DEFAULT_ALGORITHMS;
    this.#log = options.logger;
    this.#methods = new Set(options.methods ?? DEFAULT_METHODS);
    const clock = options.clock;
    this.#nonces = new NonceManager({
      now: () => clock.now(),
      lifetimeMs: options.nonceLifetimeMs ?? 30_000,
      ...(options.sharedNonceSecret !== undefined ? { secret: options.sharedNonceSecret, shared: true } : {}),
    });
    this.#limiter = new AuthFailureLimiter(() => clock.now(), options.limits);
    this.reindex(options.endpoints, options.auths);
  }

  /**
   * The endpoints and auths in force changed (dynamic configuration, pjsip.conf reload). Nonces
   * and the failure limiter's state are kept: a reload does not unblock an address.
   */
  reindex(endpoints: readonly SipEndpointConfig[], auths: readonly SipAuthConfig[]): void {
    this.#byEndpoint.clear();
    this.#byUsername.clear();
    const byName = new Map(auths.map((auth) => [auth.name, auth]));
    for (const endpoint of endpoints) {
      if (endpoint.auth === undefined) continue;
      const auth = byName.get(endpoint.auth);
      if (auth === undefined) {
        this.#log.warn({ endpoint: endpoint.name, auth: endpoint.auth }, 'endpoint names an auth that is not configured');
        continue;
      }
      const candidate = { endpoint, auth, realm: auth.realm ?? this.#realm };
      this.#byEndpoint.set(endpoint.name, candidate);
      if (!this.#byUsername.has(auth.username)) this.#byUsername.set(auth.username, candidate);
    }
  }

  /** Whether any endpoint authenticates with a password (otherwise nothing is challenged). */
  get hasCredentials(): boolean {
    return this.#byEndpoint.size > 0;
  }

  get limiter(): AuthFailureLimiter {
    return this.#limiter;
  }

  /** Whether this endpoint has an auth to check (an endpoint without one is accepted as identified). */
  hasAuth(endpoint: SipEndpointConfig): boolean {
    return this.#byEndpoint.has(endpoint.name);
  }

  /** The endpoint whose auth has this username (identify_by = auth_username). */
  endpointForUsername(username: string): SipEndpointConfig | undefined {
    return this.#byUsername.get(username)?.endpoint;
  }

  /**
   * Checks the request's credentials. `as` is the endpoint an identifier already chose (its auth
   * is checked); `null` means no endpoint was identified (every answer is a challenge or a
   * failure); absent, the From user names the endpoint.
   */
  authenticate(request: SipRequest, source: PeerAddress, as?: SipEndpointConfig | null): AuthOutcome {
    if (!this.#methods.has(request.method)) return { kind: 'continue' };
    const address = source.address;
    if (this.#limiter.isBlocked(address)) {
      this.#log.debug({ securityEvent: 'auth_blocked', address, method: request.method }, 'request from a blocked address refused');
      return { kind: 'reject', status: 403 };
    }
    const claimed = as === null ? this.#claimedUser(request) : (as?.name ?? this.#claimedUser(request));
    const candidate =
      as === null
        ? undefined
        : as !== undefined
          ? this.#byEndpoint.get(as.name)
          : claimed === undefined
            ? undefined
            : (this.#byEndpoint.get(claimed) ?? this.#byUsername.get(claimed));
    const realm = candidate?.realm ?? this.#realm;

    const credentials = this.#credentialsFor(request, realm);
    if (credentials === undefined) return this.#challenge(realm, false);

    // Computed whatever else is wrong, so that an unknown user costs what a known one does.
    const expected = computeDigestResponse({
      algorithm: credentials.algorithm,
      username: credentials.username,
      realm,
      password: candidate?.auth.password ?? this.#decoyPassword,
      method: request.method,
      uri: credentials.uri,
      nonce: credentials.nonce,
      qop: credentials.qop,
      nc: credentials.nc,
      cnonce: credentials.cnonce,
    });
    // Every check runs whatever the others found (no short-circuit): a known user with a wrong
    // answer and an unknown one take the same path and the same time.
    const checks = [
      digestsEqual(expected, credentials.response),
      credentials.username === (candidate?.auth.username ?? credentials.username),
      // Only an algorithm we offered counts: a client may not fall back to one the operator left out.
      this.#algorithms.includes(credentials.algorithm),
      this.#nonces.isOurs(credentials.nonce),
      // RFC 7616 §3.4.6: the digest-uri must name the resource of the request.
      digestUriMatches(credentials.uri, request),
    ];
    if (candidate === undefined || checks.includes(false)) {
      return this.#fail(request, source, claimed, realm);
    }

    switch (this.#nonces.use(credentials.nonce, credentials.nc)) {
      case 'valid':
        this.#limiter.recordSuccess(address);
        return { kind: 'accept', endpoint: candidate.endpoint };
      case 'stale':
        // The client knew the password: only the nonce is old, so it may retry silently.
        return this.#challenge(realm, true);
      case 'replayed':
        this.#log.warn(
          { securityEvent: 'auth_replay', address, endpoint: candidate.endpoint.name, method: request.method },
          'digest nonce-count replayed',
        );
        return this.#fail(request, source, claimed, realm);
      case 'invalid':
        return this.#fail(request, source, claimed, realm);
    }
  }

  /** The From user (the endpoint the request claims to come from). */
  #claimedUser(request: SipRequest): string | undefined {
    const uri = request.from.uri;
    return uri.kind === 'sip' ? uri.user : undefined;
  }

  /** The Authorization value for our realm (RFC 3261 §22.4: a request may carry one per realm). */
  #credentialsFor(request: SipRequest, realm: string): DigestCredentials | undefined {
    for (const value of request.getHeaderFields('Authorization')) {
      const credentials = parseDigestCredentials(value);
      if (credentials !== undefined && credentials.realm === realm) return credentials;
    }
    return undefined;
  }

  #fail(request: SipRequest, source: PeerAddress, claimed: string | undefined, realm: string): AuthOutcome {
    const address = source.address;
    this.#log.warn(
      { securityEvent: 'auth_failed', address, port: source.port, method: request.method, username: claimed },
      'authentication failed',
    );
    const outcome = this.#limiter.recordFailure(address);
    if (outcome === 'lockdown') {
      this.#log.warn(
        { securityEvent: 'auth_lockdown', failures: this.#limiter.limits.maxGlobalFailures },
        'too many failed authentications from all addresses; only known addresses may log in for a cool-off',
      );
    }
    if (this.#limiter.isBlocked(address)) {
      if (outcome === 'address-blocked') {
        this.#log.warn({ securityEvent: 'auth_blocked', address }, 'too many failed authentications; address refused for a cool-off');
      }
      return { kind: 'reject', status: 403 };
    }
    return this.#challenge(realm, false);
  }

  /** 401 with one WWW-Authenticate per algorithm, sharing one nonce (RFC 8760 §2.4). */
  #challenge(realm: string, stale: boolean): AuthOutcome {
    const nonce = this.#nonces.issue();
    return {
      kind: 'reject',
      status: 401,
      headers: this.#algorithms.map((algorithm) => ['WWW-Authenticate', formatChallenge({ realm, nonce, algorithm, stale })] as const),
    };
  }
}
