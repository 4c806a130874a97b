/**
 * Credentials verified recently, so that a client sending the same Authorization header (or
 * api_key) on every request does not pay for the password check each time: two SHA-256 digests
 * and a constant-time compare were the largest part of a ping's own work (bench/README.md).
 *
 * Only successes are kept, keyed by exactly what the client sent, for a short time and only while
 * the ari.conf user they were checked against is still in the user list unchanged (a reload or an
 * edit of the user is seen on the next request). A failed login is never answered from here, so every wrong attempt is still checked
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
  /** The ari.conf entry the credentials matched, and what it said then. */
  readonly record: AriUser;
  readonly as: Readonly<AriUser>;
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

  /** The user these credentials were verified as, while that is recent and the user's entry unchanged. */
  get(key: string, users: readonly AriUser[]): AuthenticatedUser | undefined {
    const entry = this.#entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.expiresAt <= this.#clock.now() || !users.includes(entry.record) || !unchanged(entry.record, entry.as)) {
      this.#entries.delete(key);
      return undefined;
    }
    return entry.user;
  }

  /** `record` is the ari.conf entry the credentials were verified against. */
  remember(key: string, record: AriUser, user: AuthenticatedUser): void {
    this.#entries.delete(key);
    if (this.#entries.size >= MAX_VERIFIED_CREDENTIALS) {
      const oldest = this.#entries.keys().next().value;
      if (oldest !== undefined) this.#entries.delete(oldest);
    }
    this.#entries.set(key, { record, as: { ...record }, user, expiresAt: this.#clock.now() + VERIFIED_CREDENTIALS_TTL_MS });
  }
}

function unchanged(record: AriUser, as: Readonly<AriUser>): boolean {
  return (
    record.name === as.name &&
    record.password === as.password &&
    record.passwordFormat === as.passwordFormat &&
    record.readOnly === as.readOnly &&
    record.dialect === as.dialect
  );
}
