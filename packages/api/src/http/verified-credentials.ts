/**
 * Credentials verified recently, so that a client sending the same Authorization header (or
 * api_key) on every request does not pay for the password check each time: two SHA-256 digests
 * and a constant-time compare were the largest part of a ping's own work (bench/README.md).
 *
 * Only successes are kept, keyed by exactly what the client sent, for a short time and only for
 * the ari.conf users they were checked against (a reload, which replaces the user list, forgets
 * them all). A failed login is never answered from here, so every wrong attempt is still checked
 * and counted; the lockout and ACL checks run on every request before and after this cache
 * (login-guard.ts).
 */
import type { AriUser, Clock } from '@switchboard/core';
import type { AuthenticatedUser } from './auth.js';

/** How long a verification is reused. */
export const VERIFIED_CREDENTIALS_TTL_MS = 5_000;
/** Distinct credentials kept; the oldest go first beyond it. */
export const MAX_VERIFIED_CREDENTIALS = 256;

interface Verified {
  readonly users: readonly AriUser[];
  readonly user: AuthenticatedUser;
  readonly expiresAt: number;
}

export class VerifiedCredentials {
  readonly #clock: Pick<Clock, 'now'>;
  readonly #entries = new Map<string, Verified>();

  constructor(clock: Pick<Clock, 'now'>) {
    this.#clock = clock;
  }

  /** What the client presented: credentials are a function of these two alone (auth.ts credentialsFrom). */
  static key(authorization: string | undefined, apiKey: string | undefined): string {
    return `${authorization ?? ''}\n${apiKey ?? ''}`;
  }

  /** The user these credentials were verified as, while that is recent and the users are the same. */
  get(key: string, users: readonly AriUser[]): AuthenticatedUser | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.users !== users || entry.expiresAt <= this.#clock.now()) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry.user;
  }

  remember(key: string, users: readonly AriUser[], user: AuthenticatedUser): void {
    this.#entries.delete(key);
    if (this.#entries.size >= MAX_VERIFIED_CREDENTIALS) {
      const oldest = this.#entries.keys().next().value;
      if (oldest !== undefined) this.#entries.delete(oldest);
    }
    this.#entries.set(key, { users, user, expiresAt: this.#clock.now() + VERIFIED_CREDENTIALS_TTL_MS });
  }
}
