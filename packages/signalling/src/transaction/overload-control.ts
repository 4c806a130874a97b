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
 * - `normal`: every new INVITE is admitted. Every 100 ms while the queue is empty, the rate admitted
 *   over the last second is noted: the server kept up with it (the best of these fades by half in
 *   ten minutes).
 * - `limiting`: a new INVITE without credentials passes a token bucket filled at `rate` per
 *   second; the others are answered 503 with Retry-After before any transaction or call exists
 *   (RFC 3261 §21.5.4). The rate starts at 85 % of the new INVITEs admitted over the last second,
 *   but no higher than the best rate the server recently kept up with (nor below half the former).
 *   Each 100 ms step, while the delay is at or above 75 % of the limit, the rate is cut by 15 %, the
 *   cuts spaced by twice the delay (300–400 ms) and only while the queue does not drain. Below it,
 *   and only when the bucket refused a call since the last step (the rate never runs ahead of the
 *   demand), it is raised: toward 90 % loop utilization up to near the rate the last queue built at
 *   (the ceiling), and from there by 2 % a step while the queue is empty, 0.5 % otherwise.
 *
 * An INVITE that carries credentials answers our own challenge: that caller was admitted already,
 * so it passes without a token unless the delay is past four times the limit (the queue nears T1)
 * or the calls in setup are past 120 % of theirs. In-dialog requests, ACK, BYE and CANCEL are never
 * shed (the transaction layer only asks about INVITEs outside a dialog), so calls in progress end
 * normally.
 *
 *                     delay ≥ max
 *   normal ───────────────────────────────► limiting ◄─┐ every 100 ms:
 *      ▲                                       │       │  delay ≥ 0.75 max, not draining → rate × 0.85
 *      │                                       │       │  delay < 0.75 max, refused → rate raised
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
import { RateWindow } from './rate-window.js';

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
/** Past near the ceiling: 5 % a second, ... */
const PROBE_RAISE = 1.005;
/**
 * ... or 20 % a second while the queue is empty. The loop's utilization is no measure of room there:
 * a server taking datagrams all the time seldom sleeps, and read 95–100 % busy admitting 450 calls/s
 * with an empty queue where it completed 600 without control.
 */
const EMPTY_QUEUE_PROBE_RAISE = 1.02;
/**
 * A cut is followed by another no sooner than twice the queue's delay, within these bounds (ms): a
 * call admitted before the cut passes through the queue three or four times (challenge, credentials,
 * answer, hang-up), so the queue keeps growing that long after it. Spaced by the delay alone, five
 * cuts in 800 ms took a rate of 320 calls/s to 170 on a server completing 450.
 */
const MIN_CUT_SPACING_MS = 300;
const MAX_CUT_SPACING_MS = 400;
/** A queue down to this share of its depth at the last cut is draining: no further cut. */
const DRAINING = 0.9;
/**
 * While limiting, the rate is cut once the delay is this share of the limit. At half of it the
 * control refused calls a server completed without it: queues of 40–60 ms come and go at 600 calls/s
 * (garbage collections), and are worked off without harm.
 */
const BEHIND = 0.75;
const MAX_RAISE = 1.25;
/** Weight of a new sample in the smoothed utilization (one sample per 100 ms). */
const UTILIZATION_SMOOTHING = 0.4;
const START_SHARE = 0.85;
/** ... but never below this share of it, whatever the server kept up with before (it may have been idle). */
const START_FLOOR = 0.5;
const KEPT_UP_SAMPLE_MS = 100;
/** Ten minutes: a capacity seen that long ago still counts for half. */
const KEPT_UP_HALF_LIFE_MS = 600_000;
/**
 * The rate the last queue built at (the admissions of the second before it, which lag a fast raise)
 * is remembered, as CUBIC remembers its window at the last loss (RFC 9438 §4.1): below NEAR_CEILING of
 * it the rate climbs at the full step, from there it probes by the least step. Climbing at the full
 * step from a drained queue took the rate from 240 to 620 calls/s in a second on a server that
 * completes 450, and the queue that built meanwhile cost six cuts down to 180. The ceiling holds only
 * while the loop is busy: one with room to spare climbs at the full step past it.
 */
const NEAR_CEILING = 0.9;
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
  /** The best admitted rate the server recently kept up with (see #noteKeptUp), and when it was sampled. */
  #keptUp = 0;
  #keptUpAt = 0;
  /** The admitted rate when a queue last began to build (0: none yet). */
  #ceiling = 0;
  /** The delay when the rate was last cut (0: not behind since). */
  #delayAtCut = 0;
  #lastRefusal = Number.NEGATIVE_INFINITY;
  /** Whether the bucket refused a call since the last rate step. */
  #refusedSinceStep = false;
  /** New INVITEs admitted per RATE_SLOT_MS slot (a ring indexed by slot number), and the first slot counted. */
  readonly #admissions = new RateWindow();
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
    this.#noteKeptUp(now, delayMs);
    this.#adjust(this.#clock.now());
  }

  /**
   * Every KEPT_UP_SAMPLE_MS, the rate admitted while the queue was empty: the server kept up with it.
   * The best of those, fading by half over KEPT_UP_HALF_LIFE_MS, is where limiting starts.
   */
  #noteKeptUp(now: number, latestDelayMs: number): void {
    if (now - this.#keptUpAt < KEPT_UP_SAMPLE_MS) return;
    const fade = 0.5 ** ((now - this.#keptUpAt) / KEPT_UP_HALF_LIFE_MS);
    this.#keptUpAt = now;
    this.#keptUp *= fade;
    // The latest probe too: the least of the window still reads empty for a while after a jump.
    // Noted with the shedding off as well (judged by the default limit): turned on later (a reload),
    // the control starts from what the server did meanwhile, not from nothing.
    const empty = (this.limits.maxLoopLagMs || DEFAULT_OVERLOAD_LIMITS.maxLoopLagMs) / 10;
    if (this.#state === 'normal' && this.#queueDelayMs < empty && latestDelayMs < empty) {
      this.#keptUp = Math.max(this.#keptUp, this.#admissions.rate(now));
    }
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
      this.#admissions.count(now);
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

  #enterLimiting(now: number): void {
    this.#state = 'limiting';
    const admitted = this.#admissions.rate(now);
    // A jump of load is admitted in full until the queue shows it: the rate of that second overstates
    // what the server completes (85 % of it admitted 560 calls/s on a server completing 450, and the
    // queue reached half a second); the best rate it kept up with recently does not.
    this.#rate = Math.max(MIN_RATE, Math.min(admitted * START_SHARE, Math.max(this.#keptUp, admitted * START_FLOOR)));
    this.#ceiling = Math.max(this.#rate, this.#keptUp);
    // Starting below the load is the first cut.
    this.#delayAtCut = this.delayMs;
    this.#nextCut = now + this.#cutSpacing();
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
      const behind = maxLoopLagMs > 0 && this.delayMs >= maxLoopLagMs * BEHIND;
      if (behind) {
        // A cut shows only once the calls admitted before it are through: the next waits (see
        // MIN_CUT_SPACING_MS), and comes only if the queue has not shrunk meanwhile.
        if (this.#delayAtCut === 0) this.#ceiling = Math.min(this.#rate, this.#admissions.rate(now));
        if (now >= this.#nextCut && this.delayMs >= this.#delayAtCut * DRAINING) {
          this.#rate = Math.max(MIN_RATE, this.#rate * RATE_CUT);
          this.#nextCut = now + this.#cutSpacing();
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
        const probe = this.delayMs < maxLoopLagMs / 10 ? EMPTY_QUEUE_PROBE_RAISE : PROBE_RAISE;
        if (u === undefined || u < HAS_SPARE) this.#rate *= raise;
        else if (this.#rate >= nearCeiling) this.#rate *= Math.min(raise, probe);
        else this.#rate = Math.min(this.#rate * raise, Math.max(nearCeiling, this.#rate * MIN_RAISE));
      }
      this.#refusedSinceStep = false;
    }
    this.#tokens = Math.min(this.#burst(), this.#tokens + (this.#rate * (now - this.#lastRefill)) / 1000);
    this.#lastRefill = now;
  }

  #cutSpacing(): number {
    return Math.min(MAX_CUT_SPACING_MS, Math.max(MIN_CUT_SPACING_MS, 2 * this.delayMs));
  }

  /** Once a second, sources that have not asked for SOURCE_IDLE_MS are forgotten. */
  #rollWindow(now: number): void {
    if (now - this.#windowStart < 1000) return;
    this.#windowStart = now;
    for (const [source, bucket] of this.#bySource) if (bucket.at < now - SOURCE_IDLE_MS) this.#bySource.delete(source);
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
