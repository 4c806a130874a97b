/**
 * Overload control for new calls (RFC 6357 §5: refuse excess load early and cheaply, so that the
 * calls already admitted still complete; the admitted rate adapts as RFC 7415's rate-based control
 * does, applied inside one server).
 *
 * How far behind the server runs is its *delay*, the larger of two measures:
 * - main-loop lag: how late a timer due every 20 ms fires;
 * - queue delay: how long a probe datagram waited in the SIP socket's receive queue and the loop
 *   (transport/queue-delay-probe.ts), the least over the last second: a standing queue, not a
 *   stall. A queue in the kernel does not show as loop lag.
 * Calls in setup (INVITE server transactions in Proceeding) are capped on their own: at the limit
 * every new INVITE is refused until they are back under 90 % of it.
 *
 * States:
 * - `normal`: every new INVITE is admitted.
 * - `limiting`: a new INVITE without credentials passes a token bucket filled at `rate` per
 *   second; the others are answered 503 with Retry-After before any transaction or call exists
 *   (RFC 3261 §21.5.4). Every 100 ms the rate is cut by 15 % while the delay is at or above its
 *   target (half the limit) and raised by 10 % below it, so it settles where the server keeps up.
 *   The rate starts at 70 % of the new INVITEs admitted over the last second.
 *
 * An INVITE that carries credentials answers our own challenge: that caller was admitted already,
 * so it passes without a token unless the delay is past twice the limit or the calls in setup are
 * past 120 % of theirs. In-dialog requests, ACK, BYE and CANCEL are never shed (the transaction
 * layer only asks about INVITEs outside a dialog), so calls in progress end normally.
 *
 *                     delay ≥ max
 *   normal ───────────────────────────────► limiting ◄─┐ every 100 ms:
 *      ▲                                       │       │  delay ≥ max/2 → rate × 0.85
 *      │                                       │       │  delay < max/2 → rate × 1.1
 *      └── delay < max/4 and no refusal ───────┘───────┘
 *          for 2 s
 *
 * | state    | condition                                    | next     |
 * |----------|----------------------------------------------|----------|
 * | normal   | delay ≥ max                                  | limiting |
 * | limiting | delay < max/4 and no refusal for RECOVERY_MS | normal   |
 *
 * The decisions are pure over their inputs and the injected clock.
 */
import type { Clock } from '@switchboard/core';

export interface OverloadLimits {
  /** Smoothed delay (loop lag or receive queue) at which admission is limited (ms). 0 turns delay off. */
  maxLoopLagMs: number;
  /** INVITE server transactions in Proceeding at which admission is limited. */
  maxInvitesInProgress: number;
  /** Retry-After of the 503 (seconds). */
  retryAfterS: number;
}

/**
 * 250 ms: half of T1 (RFC 3261 §17.1.1.1), so a request is answered before its sender retransmits,
 * and well above the scheduling noise of a shared machine (a probe waits for the CPU as well).
 */
export const DEFAULT_OVERLOAD_LIMITS: Readonly<OverloadLimits> = Object.freeze({
  maxLoopLagMs: 250,
  maxInvitesInProgress: 2000,
  retryAfterS: 5,
});

/** The window whose least queue-delay sample counts (20 probes at the transport's 50 ms). */
const QUEUE_WINDOW_MS = 1000;
/** Weight of a new sample in the smoothed loop lag. */
const SMOOTHING = 0.3;
const ADJUST_INTERVAL_MS = 100;
const RATE_CUT = 0.85;
const RATE_RAISE = 1.1;
const START_SHARE = 0.7;
/** The admission rate never goes below this (new calls per second): recovery must stay possible. */
const MIN_RATE = 5;
/** Tokens the bucket holds at most, in ms of its rate: a short burst, not a second's worth. */
const BURST_MS = 100;
const RECOVERY_MS = 2000;
/** The share of the admission rate one source address may take while others want it too. */
const SOURCE_SHARE = 0.5;
/** Source buckets kept at most (spoofed addresses must not grow the map): others count as past their share. */
const MAX_SOURCES_TRACKED = 10_000;
/** Steps applied at most when a long time passed between two decisions (an idle server). */
const MAX_CATCH_UP_STEPS = 50;

export type OverloadState = 'normal' | 'limiting';

export class OverloadControl {
  readonly limits: OverloadLimits;
  readonly #clock: Pick<Clock, 'now'>;
  #state: OverloadState = 'normal';
  #setupFull = false;
  #lagMs = 0;
  #queueDelayMs = 0;
  readonly #queueSamples: Array<{ at: number; delayMs: number }> = [];
  #shed = 0;
  #rate = 0;
  #tokens = 0;
  #lastRefill = 0;
  #lastAdjust = 0;
  #lastRefusal = Number.NEGATIVE_INFINITY;
  /** New INVITEs admitted in the current one-second window, and the rate of the window before. */
  #windowStart = 0;
  #windowAdmitted = 0;
  #previousWindowRate = 0;
  /** Each source address's own bucket while limiting (one token at most); reset every second. */
  readonly #bySource = new Map<string, { tokens: number; at: number }>();

  constructor(limits: Partial<OverloadLimits> = {}, clock: Pick<Clock, 'now'> = { now: () => performance.now() }) {
    this.limits = { ...DEFAULT_OVERLOAD_LIMITS, ...limits };
    this.#clock = clock;
    this.#windowStart = clock.now();
  }

  get state(): OverloadState {
    return this.#state;
  }

  /** The smoothed main-loop lag. */
  get loopLagMs(): number {
    return this.#lagMs;
  }

  /** The smoothed receive-queue delay. */
  get queueDelayMs(): number {
    return this.#queueDelayMs;
  }

  /** The delay admission is judged by. */
  get delayMs(): number {
    return Math.max(this.#lagMs, this.#queueDelayMs);
  }

  /** New calls per second admitted while limiting (0 while normal). */
  get admissionRate(): number {
    return this.#state === 'limiting' ? this.#rate : 0;
  }

  /** INVITEs refused since the last call (for a log line per interval). */
  takeShedCount(): number {
    const count = this.#shed;
    this.#shed = 0;
    return count;
  }

  recordLag(lagMs: number): void {
    this.#lagMs = this.#lagMs * (1 - SMOOTHING) + Math.max(0, lagMs) * SMOOTHING;
    this.#adjust(this.#clock.now());
  }

  /**
   * The queue delay is the least of the samples of the last QUEUE_WINDOW_MS (CoDel's standing-queue
   * test, RFC 8289 §3.2): one stall of the loop (a garbage collection) delays the probes around it and
   * passes; a queue that stays delays every one of them.
   */
  recordQueueDelay(delayMs: number): void {
    const now = this.#clock.now();
    this.#queueSamples.push({ at: now, delayMs: Math.max(0, delayMs) });
    while ((this.#queueSamples[0]?.at ?? now) < now - QUEUE_WINDOW_MS) this.#queueSamples.shift();
    let least = Number.POSITIVE_INFINITY;
    for (const sample of this.#queueSamples) least = Math.min(least, sample.delayMs);
    this.#queueDelayMs = least;
    this.#adjust(this.#clock.now());
  }

  /**
   * Whether a new INVITE arriving now, with `invitesInProgress` calls in setup, is refused.
   * `answersChallenge`: it carries credentials (see above).
   */
  shouldShed(invitesInProgress: number, answersChallenge = false, source?: string): boolean {
    const now = this.#clock.now();
    const { maxLoopLagMs, maxInvitesInProgress } = this.limits;
    const delay = maxLoopLagMs > 0 ? this.delayMs : 0;
    this.#rollWindow(now);
    if (this.#state === 'normal' && maxLoopLagMs > 0 && delay >= maxLoopLagMs) this.#enterLimiting(now);
    this.#adjust(now);
    if (this.#state === 'limiting' && delay < maxLoopLagMs / 4 && now - this.#lastRefusal >= RECOVERY_MS) this.#state = 'normal';
    // Calls in setup are a cap of their own, with hysteresis: full at the limit, open below 90 %.
    if (invitesInProgress >= maxInvitesInProgress) this.#setupFull = true;
    else if (invitesInProgress < maxInvitesInProgress * 0.9) this.#setupFull = false;
    let shed: boolean;
    if (answersChallenge) {
      shed = invitesInProgress >= maxInvitesInProgress * 1.2 || (this.#state === 'limiting' && delay >= 2 * maxLoopLagMs);
    } else if (this.#setupFull) {
      shed = true;
    } else if (this.#state === 'limiting') {
      shed = !this.#takeToken(source, now);
    } else {
      shed = false;
    }
    if (shed) {
      this.#shed++;
      this.#lastRefusal = now;
    } else if (!answersChallenge) {
      this.#windowAdmitted++;
    }
    return shed;
  }

  /**
   * A source has a bucket of its own, filled at SOURCE_SHARE of the rate; past it a source takes
   * only from a full shared bucket, and a full one holds at least two tokens, so one is always left
   * for other sources: a flood of call attempts from one address does not starve other callers.
   */
  #takeToken(source: string | undefined, now: number): boolean {
    if (this.#tokens < 1) return false;
    let own = source === undefined ? undefined : this.#bySource.get(source);
    if (own === undefined && source !== undefined && this.#bySource.size < MAX_SOURCES_TRACKED) {
      own = { tokens: 1, at: now };
      this.#bySource.set(source, own);
    }
    if (own !== undefined) {
      own.tokens = Math.min(1, own.tokens + (this.#rate * SOURCE_SHARE * (now - own.at)) / 1000);
      own.at = now;
    }
    const withinShare = source === undefined || (own !== undefined && own.tokens >= 1);
    if (!withinShare && this.#tokens < this.#burst()) return false;
    this.#tokens -= 1;
    if (own !== undefined && own.tokens >= 1) own.tokens -= 1;
    return true;
  }

  #burst(): number {
    return Math.max(2, (this.#rate * BURST_MS) / 1000);
  }

  #enterLimiting(now: number): void {
    this.#state = 'limiting';
    // A window just begun would overstate its rate: it counts as a whole second.
    const elapsed = Math.max(1000, now - this.#windowStart);
    const recent = Math.max(this.#previousWindowRate, (this.#windowAdmitted * 1000) / elapsed);
    this.#rate = Math.max(MIN_RATE, recent * START_SHARE);
    // A full (short) burst: the call that tips the measure over is not the one refused.
    this.#tokens = this.#burst();
    this.#bySource.clear();
    this.#lastRefill = now;
    this.#lastAdjust = now;
  }

  /** Refills the bucket and applies the rate steps due since the last adjustment. */
  #adjust(now: number): void {
    if (this.#state !== 'limiting') return;
    const { maxLoopLagMs } = this.limits;
    let steps = Math.floor((now - this.#lastAdjust) / ADJUST_INTERVAL_MS);
    if (steps > 0) {
      this.#lastAdjust += steps * ADJUST_INTERVAL_MS;
      steps = Math.min(steps, MAX_CATCH_UP_STEPS);
      const behind = maxLoopLagMs > 0 && this.delayMs >= maxLoopLagMs / 2;
      for (let i = 0; i < steps; i++) this.#rate = behind ? Math.max(MIN_RATE, this.#rate * RATE_CUT) : this.#rate * RATE_RAISE;
    }
    this.#tokens = Math.min(this.#burst(), this.#tokens + (this.#rate * (now - this.#lastRefill)) / 1000);
    this.#lastRefill = now;
  }

  #rollWindow(now: number): void {
    const elapsed = now - this.#windowStart;
    if (elapsed < 1000) return;
    this.#previousWindowRate = (this.#windowAdmitted * 1000) / elapsed;
    this.#windowAdmitted = 0;
    this.#windowStart = now;
    this.#bySource.clear();
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
