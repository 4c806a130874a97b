/**
 * Overload control for new calls (in the spirit of RFC 6357 §5: refuse excess load early and
 * cheaply, so that the calls already admitted still complete). Two measures of how far behind the
 * server is:
 * - main-loop lag, the delay of a timer that should fire every `sampleIntervalMs` (smoothed);
 * - INVITE server transactions still in Proceeding (calls being set up, each costing work to come).
 * Past either limit a new INVITE outside a dialog is answered 503 with Retry-After before any
 * transaction or call exists (RFC 3261 §21.5.4); in-dialog requests, ACK, BYE and CANCEL are never
 * shed, so calls in progress end normally. Shedding stops only once the lag is back under half its
 * limit and the calls in setup under 90 % of theirs (hysteresis: no flapping at the edge).
 * An INVITE that carries credentials answers our own challenge: work has been spent on that call
 * already, so while shedding it is still admitted unless the load is past twice the lag limit or
 * 120 % of the calls in setup. New callers are turned away first, admitted ones complete.
 *
 *            lag ≥ max or inProgress ≥ max
 *   normal ────────────────────────────────► shedding
 *      ▲                                        │
 *      └────────── lag < max/2 and ─────────────┘
 *                  inProgress < 0.9·max
 *
 * The decision is pure over its inputs and an injected clock; LoopLagSampler feeds it the lag.
 */
import type { Clock } from '@switchboard/core';

export interface OverloadLimits {
  /** Smoothed main-loop lag at which new INVITEs are refused (ms). 0 turns the lag test off. */
  maxLoopLagMs: number;
  /** INVITE server transactions in Proceeding at which new INVITEs are refused. */
  maxInvitesInProgress: number;
  /** Retry-After of the 503 (seconds). */
  retryAfterS: number;
}

export const DEFAULT_OVERLOAD_LIMITS: Readonly<OverloadLimits> = Object.freeze({
  maxLoopLagMs: 150,
  maxInvitesInProgress: 2000,
  retryAfterS: 5,
});

/** Weight of a new lag sample in the smoothed lag. */
const LAG_SMOOTHING = 0.3;

export type OverloadState = 'normal' | 'shedding';

export class OverloadControl {
  readonly limits: OverloadLimits;
  #state: OverloadState = 'normal';
  #lagMs = 0;
  #shed = 0;

  constructor(limits: Partial<OverloadLimits> = {}) {
    this.limits = { ...DEFAULT_OVERLOAD_LIMITS, ...limits };
  }

  get state(): OverloadState {
    return this.#state;
  }

  /** The smoothed lag. */
  get loopLagMs(): number {
    return this.#lagMs;
  }

  /** INVITEs refused since the last call (for a log line per interval). */
  takeShedCount(): number {
    const count = this.#shed;
    this.#shed = 0;
    return count;
  }

  recordLag(lagMs: number): void {
    this.#lagMs = this.#lagMs * (1 - LAG_SMOOTHING) + Math.max(0, lagMs) * LAG_SMOOTHING;
  }

  /**
   * Whether a new INVITE arriving now, with `invitesInProgress` calls in setup, is refused.
   * `answersChallenge`: it carries credentials (see above).
   */
  shouldShed(invitesInProgress: number, answersChallenge = false): boolean {
    const { maxLoopLagMs, maxInvitesInProgress } = this.limits;
    const lagHigh = maxLoopLagMs > 0 && this.#lagMs >= maxLoopLagMs;
    const busy = invitesInProgress >= maxInvitesInProgress;
    if (this.#state === 'normal' && (lagHigh || busy)) this.#state = 'shedding';
    else if (
      this.#state === 'shedding' &&
      (maxLoopLagMs === 0 || this.#lagMs < maxLoopLagMs / 2) &&
      invitesInProgress < maxInvitesInProgress * 0.9
    ) {
      this.#state = 'normal';
    }
    let shed = this.#state === 'shedding';
    if (shed && answersChallenge) {
      shed = (maxLoopLagMs > 0 && this.#lagMs >= 2 * maxLoopLagMs) || invitesInProgress >= maxInvitesInProgress * 1.2;
    }
    if (shed) this.#shed++;
    return shed;
  }
}

/**
 * Measures main-loop lag: a timer asked to fire every `intervalMs` fires late by as long as the
 * loop was busy. Each lateness is reported to `sample`.
 */
export class LoopLagSampler {
  readonly #clock: Clock;
  readonly #intervalMs: number;
  readonly #sample: (lagMs: number) => void;
  #timer: unknown;
  #expected = 0;

  constructor(clock: Clock, intervalMs: number, sample: (lagMs: number) => void) {
    this.#clock = clock;
    this.#intervalMs = intervalMs;
    this.#sample = sample;
  }

  start(): void {
    this.#schedule();
  }

  stop(): void {
    if (this.#timer !== undefined) this.#clock.clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #schedule(): void {
    this.#expected = this.#clock.now() + this.#intervalMs;
    this.#timer = this.#clock.setTimeout(() => {
      this.#sample(this.#clock.now() - this.#expected);
      this.#schedule();
    }, this.#intervalMs);
    (this.#timer as { unref?: () => void }).unref?.();
  }
}
