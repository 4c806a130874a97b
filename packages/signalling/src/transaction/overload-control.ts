/**
 * Overload control for new calls (RFC 6357 §5: refuse excess load early and cheaply, so that the
 * calls already admitted still complete; the admitted rate adapts as RFC 7415's rate-based control
 * does, applied inside one server).
 *
 * How far behind the server runs is its *delay*, the larger of two measures:
 * - main-loop lag: how late a timer due every 20 ms fires;
 * - queue delay: how long a probe datagram waited in the SIP socket's receive queue and the loop
 *   (transport/queue-delay-probe.ts), the least over the last 250 ms: a standing queue, not a
 *   stall. A queue in the kernel does not show as loop lag.
 * Calls in setup (INVITE server transactions in Proceeding) are capped on their own: at the limit
 * every new INVITE is refused until they are back under 90 % of it.
 *
 * States:
 * - `normal`: every new INVITE is admitted.
 * - `limiting`: a new INVITE without credentials passes a token bucket filled at `rate` per
 *   second; the others are answered 503 with Retry-After before any transaction or call exists
 *   (RFC 3261 §21.5.4). Every 100 ms the rate is cut by 15 % while the delay is at or above its
 *   target (half the limit) and raised by 10 % below it — only when the bucket refused a call since
 *   the last step, so the rate never runs ahead of the demand — and settles where the server keeps
 *   up. It starts at 85 % of the new INVITEs admitted over the last second (at least 250 ms).
 *
 * An INVITE that carries credentials answers our own challenge: that caller was admitted already,
 * so it passes without a token unless the delay is past four times the limit (the queue nears T1)
 * or the calls in setup are past 120 % of theirs. In-dialog requests, ACK, BYE and CANCEL are never shed (the transaction
 * layer only asks about INVITEs outside a dialog), so calls in progress end normally.
 *
 *                     delay ≥ max
 *   normal ───────────────────────────────► limiting ◄─┐ every 100 ms:
 *      ▲                                       │       │  delay ≥ max/2 → rate × 0.85
 *      │                                       │       │  delay < max/2, refused → rate × 1.1
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
import { type EventLoopUtilization, performance } from 'node:perf_hooks';
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
 * 100 ms: a fifth of T1 (RFC 3261 §17.1.1.1). The queue must be caught while it is short: measured
 * at 1.5× capacity it grows by 200 ms a second, and once it passes T1 every sender retransmits and
 * the excess doubles. The least of ten probes is well above a shared machine's scheduling noise
 * (garbage collections here take 5–15 ms).
 */
export const DEFAULT_OVERLOAD_LIMITS: Readonly<OverloadLimits> = Object.freeze({
  maxLoopLagMs: 100,
  maxInvitesInProgress: 2000,
  retryAfterS: 5,
});

/**
 * The window whose least queue-delay sample counts (25 probes at the transport's 10 ms). A window
 * of a second reacted 2 s late in the overload bench, when the queue already held 700 ms of
 * requests; one of 100 ms (CoDel's interval, RFC 8289 §4.3) took every full garbage collection of
 * a large heap (100–200 ms, no probe sent meanwhile) for a standing queue and refused calls at half
 * the capacity.
 */
const QUEUE_WINDOW_MS = 250;
/** Weight of a new sample in the smoothed loop lag. */
const SMOOTHING = 0.3;
const ADJUST_INTERVAL_MS = 100;
const RATE_CUT = 0.85;
/** The raise when the main thread's utilization is not measured. */
const RATE_RAISE = 1.05;
/**
 * With it measured, the rate is raised toward where the main thread would be this busy: a rate
 * that keeps it 60 % busy can grow by half, one at 95 % only by the least step. Raising blindly
 * by a fixed step made the rate swing between 100 and 300 calls/s around a capacity of 250.
 */
const UTILIZATION_TARGET = 0.9;
const MIN_RAISE = 1.01;
/** Past near the ceiling: 5 % a second. */
const PROBE_RAISE = 1.005;
/** However deep the queue, a cut that does not drain it is followed by another this soon (ms). */
const MAX_CUT_SPACING_MS = 300;
/** A queue down to this share of its depth at the last cut is draining: no further cut. */
const DRAINING = 0.9;
/** A main loop this busy has no time to spare. */
const SATURATED = 0.95;
const MAX_RAISE = 1.25;
/** Weight of a new sample in the smoothed utilization (one sample per 100 ms). */
const UTILIZATION_SMOOTHING = 0.4;
const START_SHARE = 0.85;
/**
 * The rate the last queue built at (the admissions of the second before it, which lag a fast raise)
 * is remembered, as CUBIC remembers its window at the last loss (RFC 9438 §4.1): below NEAR_CEILING of
 * it the rate climbs at the full step, from there it probes by the least step. Climbing at the full
 * step from a drained queue took the rate from 240 to 620 calls/s in a second on a server that
 * completes 450, and the queue that built meanwhile cost six cuts down to 180. The ceiling holds only
 * while the loop is busy: one with room to spare climbs at the full step past it.
 */
const NEAR_CEILING = 0.9;
/**
 * Within one episode of queueing, cuts stop at this share of the ceiling while the delay is under the
 * limit: the work of calls admitted before a cut keeps the queue growing for a while after it, and
 * cutting on through that took the rate to 45 % of the capacity, where the queue drained in a third of a
 * second and the climb back took one and a half. Past the limit the cuts go on: a queue of 300 ms held
 * at 80 % brings retransmissions (T1 is 500 ms) that keep it there.
 */
const CUT_FLOOR = 0.8;
/** A loop less busy than this has room to spare whatever the ceiling says (it may date from a cold start). */
const HAS_SPARE = 0.75;
/** The admission rate never goes below this (new calls per second): recovery must stay possible. */
const MIN_RATE = 5;
/** Tokens the bucket holds at most, in ms of its rate: a short burst, not a second's worth. */
const BURST_MS = 100;
const RECOVERY_MS = 2000;
/** The share of the admission rate one source address may take while others want it too. */
const SOURCE_SHARE = 0.5;
/** A source that has not asked for this long (ms) no longer counts as wanting calls. */
const SOURCE_IDLE_MS = 2000;
/** Source buckets kept at most (spoofed addresses must not grow the map): others count as past their share. */
const MAX_SOURCES_TRACKED = 10_000;
/** The admitted rate is measured over this much time (ms) ... */
const RATE_WINDOW_MS = 1000;
/** ... and at least this much: a load that just began must not read as a trickle. */
const MIN_RATE_SPAN_MS = 250;
/** The window is counted in slots of this many ms (a count per slot, not a time per admission). */
const RATE_SLOT_MS = 100;
const RATE_SLOTS = RATE_WINDOW_MS / RATE_SLOT_MS;

export type OverloadState = 'normal' | 'limiting';

export class OverloadControl {
  #limits: OverloadLimits;
  readonly #clock: Pick<Clock, 'now'>;
  #state: OverloadState = 'normal';
  #setupFull = false;
  #lagMs = 0;
  /** The main thread's smoothed event-loop utilization (0–1), once measured. */
  #utilization: number | undefined;
  #queueDelayMs = 0;
  readonly #queueSamples: Array<{ at: number; delayMs: number }> = [];
  #shed = 0;
  #rate = 0;
  #tokens = 0;
  #lastRefill = 0;
  #lastAdjust = 0;
  #nextCut = 0;
  /** The admitted rate when a queue last began to build (0: none yet). */
  #ceiling = 0;
  /** The delay when the rate was last cut (0: not behind since). */
  #delayAtCut = 0;
  #lastRefusal = Number.NEGATIVE_INFINITY;
  /** Whether the bucket refused a call since the last rate step. */
  #refusedSinceStep = false;
  /** New INVITEs admitted per RATE_SLOT_MS slot (a ring indexed by slot number), and the first slot counted. */
  readonly #admitted = new Uint32Array(RATE_SLOTS);
  #admittedSlot = 0;
  #firstAdmission = Number.NEGATIVE_INFINITY;
  #windowStart = 0;
  /** Each source address's own bucket while limiting (one token at most); reset every second. */
  readonly #bySource = new Map<string, { tokens: number; at: number }>();

  constructor(limits: Partial<OverloadLimits> = {}, clock: Pick<Clock, 'now'> = { now: () => performance.now() }) {
    this.#limits = { ...DEFAULT_OVERLOAD_LIMITS, ...limits };
    this.#clock = clock;
    this.#windowStart = clock.now();
  }

  get limits(): Readonly<OverloadLimits> {
    return this.#limits;
  }

  /** New limits (pjsip.conf reload); with the delay limit turned off, limiting ends at once. */
  setLimits(limits: Partial<OverloadLimits>): void {
    this.#limits = { ...DEFAULT_OVERLOAD_LIMITS, ...limits };
    if (this.#limits.maxLoopLagMs === 0) this.#state = 'normal';
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

  /** The share of the last interval the main loop spent running callbacks (0–1). */
  recordUtilization(utilization: number): void {
    const u = Math.min(1, Math.max(0, utilization));
    this.#utilization = this.#utilization === undefined ? u : this.#utilization * (1 - UTILIZATION_SMOOTHING) + u * UTILIZATION_SMOOTHING;
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
    if (this.#state === 'normal' && maxLoopLagMs > 0 && this.#pastLimit(delay)) this.#enterLimiting(now);
    this.#adjust(now);
    if (this.#state === 'limiting' && delay < maxLoopLagMs / 4 && now - this.#lastRefusal >= RECOVERY_MS) this.#state = 'normal';
    // Calls in setup are a cap of their own, with hysteresis: full at the limit, open below 90 %.
    if (invitesInProgress >= maxInvitesInProgress) this.#setupFull = true;
    else if (invitesInProgress < maxInvitesInProgress * 0.9) this.#setupFull = false;
    let shed: boolean;
    if (answersChallenge) {
      shed = invitesInProgress >= maxInvitesInProgress * 1.2 || (this.#state === 'limiting' && delay >= 4 * maxLoopLagMs);
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
      this.#refusedSinceStep = true;
    } else if (!answersChallenge) {
      this.#countAdmission(now);
    }
    return shed;
  }

  /**
   * A source has a bucket of its own, filled at SOURCE_SHARE of the rate; past it a source takes
   * only from a full shared bucket, and a full one holds at least two tokens, so one is always left
   * for other sources: a flood of call attempts from one address does not starve other callers.
   * A source alone takes every token but the last, which is there for whoever asks next.
   */
  #takeToken(source: string | undefined, now: number): boolean {
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
    // Alone: no other source asked within SOURCE_IDLE_MS; the share only divides the rate among several.
    const alone = own !== undefined && this.#bySource.size === 1;
    const floor = alone ? 2 : withinShare ? 1 : this.#burst();
    if (this.#tokens < floor) return false;
    this.#tokens -= 1;
    if (own !== undefined && own.tokens >= 1) own.tokens -= 1;
    return true;
  }

  #burst(): number {
    return Math.max(2, (this.#rate * BURST_MS) / 1000);
  }

  /**
   * Past the limit: the delay is, or half of it is while the main loop has no time to spare (a
   * queue is building then, and every 100 ms of waiting more is 100 ms of backlog to work off).
   */
  #pastLimit(delay: number): boolean {
    const { maxLoopLagMs } = this.limits;
    return delay >= maxLoopLagMs || (delay >= maxLoopLagMs / 2 && (this.#utilization ?? 0) >= SATURATED);
  }

  #enterLimiting(now: number): void {
    this.#state = 'limiting';
    this.#rate = Math.max(MIN_RATE, this.#recentAdmissionRate(now) * START_SHARE);
    this.#ceiling = this.#rate / START_SHARE;
    this.#delayAtCut = 0;
    this.#refusedSinceStep = false;
    // A full (short) burst: the call that tips the measure over is not the one refused.
    this.#tokens = this.#burst();
    this.#bySource.clear();
    this.#lastRefill = now;
    this.#lastAdjust = now;
  }

  /** Refills the bucket and takes a rate step when one is due (one at most, however long it was). */
  #adjust(now: number): void {
    if (this.#state !== 'limiting') return;
    const { maxLoopLagMs } = this.limits;
    if (now - this.#lastAdjust >= ADJUST_INTERVAL_MS) {
      this.#lastAdjust = now;
      const behind = maxLoopLagMs > 0 && this.delayMs >= maxLoopLagMs / 2;
      if (behind) {
        // A cut shows only once the requests queued before it are read: the next waits that long (up to 300 ms),
        // and comes only if the queue has not shrunk meanwhile. The backlog of calls admitted before a
        // cut keeps the queue up for a while after it; cutting on every step then took the rate to a
        // third of the capacity.
        if (this.#delayAtCut === 0) this.#ceiling = Math.min(this.#rate, this.#recentAdmissionRate(now));
        if (now >= this.#nextCut && this.delayMs >= this.#delayAtCut * DRAINING) {
          const floor = this.delayMs < maxLoopLagMs ? this.#ceiling * CUT_FLOOR : 0;
          this.#rate = Math.max(MIN_RATE, Math.min(this.#rate, Math.max(floor, this.#rate * RATE_CUT)));
          this.#nextCut = now + Math.min(MAX_CUT_SPACING_MS, Math.max(ADJUST_INTERVAL_MS, this.delayMs));
          this.#delayAtCut = this.delayMs;
        }
      } else {
        this.#delayAtCut = 0;
      }
      if (!behind && this.#refusedSinceStep) {
        const u = this.#utilization;
        // An empty queue raises by RATE_RAISE at least: a loop kept busy by the backlog of an
        // overload (retransmissions, timers, garbage) reads as saturated long after it is over.
        const least = this.delayMs < maxLoopLagMs / 10 ? RATE_RAISE : MIN_RAISE;
        const raise = u === undefined ? RATE_RAISE : Math.min(MAX_RAISE, Math.max(least, UTILIZATION_TARGET / Math.max(u, 0.01)));
        const nearCeiling = this.#ceiling * NEAR_CEILING;
        if (u === undefined || u < HAS_SPARE) this.#rate *= raise;
        else if (this.#rate >= nearCeiling) this.#rate *= PROBE_RAISE;
        else this.#rate = Math.min(this.#rate * raise, Math.max(nearCeiling, this.#rate * MIN_RAISE));
      }
      this.#refusedSinceStep = false;
    }
    this.#tokens = Math.min(this.#burst(), this.#tokens + (this.#rate * (now - this.#lastRefill)) / 1000);
    this.#lastRefill = now;
  }

  /** Once a second, sources that have not asked for SOURCE_IDLE_MS are forgotten. */
  #rollWindow(now: number): void {
    if (now - this.#windowStart < 1000) return;
    this.#windowStart = now;
    for (const [source, bucket] of this.#bySource) if (bucket.at < now - SOURCE_IDLE_MS) this.#bySource.delete(source);
  }

  #countAdmission(now: number): void {
    this.#advanceSlots(now);
    if (this.#firstAdmission < now - RATE_WINDOW_MS) this.#firstAdmission = now;
    this.#admitted[this.#admittedSlot % RATE_SLOTS] += 1;
  }

  /** Empties the slots that have passed since the last count. */
  #advanceSlots(now: number): void {
    const slot = Math.floor(now / RATE_SLOT_MS);
    const passed = Math.min(slot - this.#admittedSlot, RATE_SLOTS);
    for (let i = 1; i <= passed; i++) this.#admitted[(this.#admittedSlot + i) % RATE_SLOTS] = 0;
    this.#admittedSlot = Math.max(slot, this.#admittedSlot);
  }

  /** New INVITEs admitted per second over the last RATE_WINDOW_MS (at least MIN_RATE_SPAN_MS of it). */
  #recentAdmissionRate(now: number): number {
    this.#advanceSlots(now);
    let count = 0;
    for (const n of this.#admitted) count += n;
    // The slots cover the current one so far and the RATE_SLOTS - 1 before it; admissions that
    // began later are a rate over the time since they began.
    const covered = (RATE_SLOTS - 1) * RATE_SLOT_MS + (now % RATE_SLOT_MS);
    const span = Math.min(covered, Math.max(MIN_RATE_SPAN_MS, now - this.#firstAdmission));
    return (count * 1000) / span;
  }
}

/**
 * Measures main-loop lag: a timer asked to fire every `intervalMs` fires late by as long as the
 * loop was busy. Each lateness is reported to `sample`; every UTILIZATION_EVERY_MS the loop's
 * utilization (the share of time spent in callbacks, not waiting for I/O) goes to `utilization`.
 */
/** How often the loop's utilization is reported (ms). */
const UTILIZATION_EVERY_MS = 100;

export class LoopLagSampler {
  readonly #clock: Clock;
  readonly #intervalMs: number;
  readonly #sample: (lagMs: number) => void;
  readonly #utilization: ((utilization: number) => void) | undefined;
  #timer: unknown;
  #expected = 0;
  #lastUtilizationAt = 0;
  #lastElu: EventLoopUtilization | undefined;

  constructor(clock: Clock, intervalMs: number, sample: (lagMs: number) => void, utilization?: (utilization: number) => void) {
    this.#clock = clock;
    this.#intervalMs = intervalMs;
    this.#sample = sample;
    this.#utilization = utilization;
  }

  start(): void {
    this.#lastElu = performance.eventLoopUtilization();
    this.#lastUtilizationAt = this.#clock.now();
    this.#schedule();
  }

  stop(): void {
    if (this.#timer !== undefined) this.#clock.clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #schedule(): void {
    this.#expected = this.#clock.now() + this.#intervalMs;
    this.#timer = this.#clock.setTimeout(() => {
      const now = this.#clock.now();
      this.#sample(now - this.#expected);
      if (this.#utilization !== undefined && now - this.#lastUtilizationAt >= UTILIZATION_EVERY_MS) {
        const current = performance.eventLoopUtilization();
        this.#utilization(performance.eventLoopUtilization(current, this.#lastElu).utilization);
        this.#lastElu = current;
        this.#lastUtilizationAt = now;
      }
      this.#schedule();
    }, this.#intervalMs);
    (this.#timer as { unref?: () => void }).unref?.();
  }
}
