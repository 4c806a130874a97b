/**
 * Failed logins, counted for every protocol that authenticates remote users (SIP digest, the
 * REST API's Basic logins):
 * - per source address, in a sliding window: past `maxFailures` the address is refused for
 *   `blockMs` (a guesser from one place);
 * - over all addresses, in the same window: past `maxGlobalFailures` the server is in lockdown
 *   for `blockMs`, and only addresses that have logged in successfully before are still let in
 *   (a guesser spread over many addresses, each below the per-address limit). Known clients keep
 *   working; a guess from anywhere else is refused without being checked.
 * Memory is bounded by `maxTrackedAddresses` in every map (least recent forgotten first).
 */

export interface AuthFailureLimits {
  /** Failures from one address within `windowMs` that start a cool-off. Default 10. */
  maxFailures: number;
  /** Default 60 s. */
  windowMs: number;
  /** How long the address (or, in lockdown, every unknown address) is refused. Default 5 min. */
  blockMs: number;
  /** Addresses tracked at most (oldest forgotten first), so a spray of sources cannot grow memory. Default 10,000. */
  maxTrackedAddresses: number;
  /** Failures from all addresses within `windowMs` that start a lockdown. Default 100. */
  maxGlobalFailures: number;
}

export const DEFAULT_AUTH_FAILURE_LIMITS: Readonly<AuthFailureLimits> = Object.freeze({
  maxFailures: 10,
  windowMs: 60_000,
  blockMs: 300_000,
  maxTrackedAddresses: 10_000,
  maxGlobalFailures: 100,
});

/** What recordFailure changed. */
export type FailureOutcome = 'counted' | 'address-blocked' | 'lockdown';

export class AuthFailureLimiter {
  readonly #limits: AuthFailureLimits;
  readonly #now: () => number;
  /** Failure times per address (oldest first), and until when an address is blocked. */
  readonly #failures = new Map<string, number[]>();
  readonly #blockedUntil = new Map<string, number>();
  /** Failure times over all addresses (oldest first), at most maxGlobalFailures kept. */
  #globalFailures: number[] = [];
  #lockdownUntil = Number.NEGATIVE_INFINITY;
  /** Addresses that authenticated successfully, least recent first. */
  readonly #known = new Set<string>();
  #mostRecentKnown: string | undefined;

  constructor(now: () => number, limits: Partial<AuthFailureLimits> = {}) {
    this.#now = now;
    this.#limits = { ...DEFAULT_AUTH_FAILURE_LIMITS, ...limits };
  }

  get limits(): Readonly<AuthFailureLimits> {
    return this.#limits;
  }

  /** Whether the server is refusing logins from addresses it has not seen succeed. */
  get inLockdown(): boolean {
    return this.#now() < this.#lockdownUntil;
  }

  isBlocked(address: string): boolean {
    if (this.inLockdown && !this.#known.has(address)) return true;
    const until = this.#blockedUntil.get(address);
    if (until === undefined) return false;
    if (this.#now() < until) return true;
    this.#blockedUntil.delete(address);
    return false;
  }

  recordSuccess(address: string): void {
    // The same client logging in again and again (every REST request) is already the most recent: moving it
    // to the end again would only leave a deleted entry for the set to compact.
    if (address === this.#mostRecentKnown && this.#known.has(address)) return;
    this.#known.delete(address);
    this.#known.add(address);
    this.#mostRecentKnown = address;
    trim(this.#known, this.#limits.maxTrackedAddresses);
  }

  /** Records a failure and says whether it started a cool-off for the address or a lockdown. */
  recordFailure(address: string): FailureOutcome {
    const now = this.#now();
    const horizon = now - this.#limits.windowMs;
    const times = (this.#failures.get(address) ?? []).filter((t) => t > horizon);
    times.push(now);
    // Re-inserting keeps the map in least-recently-failed order for the bound below.
    this.#failures.delete(address);
    this.#failures.set(address, times);
    trim(this.#failures, this.#limits.maxTrackedAddresses);

    this.#globalFailures = this.#globalFailures.filter((t) => t > horizon);
    this.#globalFailures.push(now);
    let outcome: FailureOutcome = 'counted';
    if (this.#globalFailures.length >= this.#limits.maxGlobalFailures && !this.inLockdown) {
      this.#globalFailures = [];
      this.#lockdownUntil = now + this.#limits.blockMs;
      outcome = 'lockdown';
    }
    if (times.length < this.#limits.maxFailures) return outcome;
    this.#failures.delete(address);
    this.#blockedUntil.set(address, now + this.#limits.blockMs);
    trim(this.#blockedUntil, this.#limits.maxTrackedAddresses);
    return outcome === 'lockdown' ? outcome : 'address-blocked';
  }
}

function trim(collection: Map<string, unknown> | Set<string>, max: number): void {
  while (collection.size > max) {
    const oldest = collection.keys().next().value;
    if (oldest === undefined) break;
    collection.delete(oldest);
  }
}
