/**
 * How a worker's media tick keeps its 20 ms budget: for every frame produced, how long its work
 * took and how late it started against its schedule (pacer.ts). An overrun is a frame whose work
 * took longer than the frame itself, or that started more than `lateThresholdMs` after it was due:
 * either way the frame left late enough for a far end to notice. Frames the tick had to skip after
 * a stall count separately. Percentiles cover the frames since the last reset (at most the newest
 * `capacity` of them). A pure accumulator: the caller supplies the times.
 */
import type { WorkerTickStats } from '@switchboard/media-control';

export const FRAME_BUDGET_MS = 20;
/**
 * The tick looks for due frames every 5 ms (worker-host.ts TICK_MS), so a frame normally starts
 * 0–5 ms after its due time, more with timer jitter; 10 ms late leaves half the budget and is well
 * beyond that floor.
 */
export const LATE_THRESHOLD_MS = 10;

export class TickStats {
  readonly #capacity: number;
  readonly #durations: Float64Array;
  #count = 0;
  #max = 0;
  #long = 0;
  #late = 0;
  #overruns = 0;
  #skipped = 0;
  #since: number;

  constructor(nowMs: number, capacity = 30_000) {
    this.#capacity = capacity;
    this.#durations = new Float64Array(capacity);
    this.#since = nowMs;
  }

  /** One frame: its work took `durationMs` and started `lateMs` after it was due. */
  record(durationMs: number, lateMs: number): void {
    this.#durations[this.#count % this.#capacity] = durationMs;
    this.#count += 1;
    if (durationMs > this.#max) this.#max = durationMs;
    const long = durationMs > FRAME_BUDGET_MS;
    const late = lateMs > LATE_THRESHOLD_MS;
    if (long) this.#long += 1;
    if (late) this.#late += 1;
    if (long || late) this.#overruns += 1;
  }

  /** Frames dropped from the schedule after a stall (never produced). */
  skip(frames: number): void {
    this.#skipped += frames;
  }

  /** The tick's figures of WorkerTickStats (the worker host adds its heap's). */
  snapshot(workerIndex: number, nowMs: number): Omit<WorkerTickStats, 'heapUsedBytes' | 'heapTotalBytes'> {
    const kept = Math.min(this.#count, this.#capacity);
    const sorted = this.#durations.slice(0, kept).sort();
    const at = (q: number): number => (kept === 0 ? 0 : sorted[Math.min(kept - 1, Math.floor(q * kept))]);
    const round = (ms: number): number => Math.round(ms * 1000) / 1000;
    return {
      workerIndex,
      windowMs: Math.round(nowMs - this.#since),
      ticks: this.#count,
      tickMsP50: round(at(0.5)),
      tickMsP99: round(at(0.99)),
      tickMsMax: round(this.#max),
      overruns: this.#overruns,
      longTicks: this.#long,
      lateTicks: this.#late,
      skippedFrames: this.#skipped,
      budgetMs: FRAME_BUDGET_MS,
      lateThresholdMs: LATE_THRESHOLD_MS,
    };
  }

  reset(nowMs: number): void {
    this.#count = 0;
    this.#max = 0;
    this.#long = 0;
    this.#late = 0;
    this.#overruns = 0;
    this.#skipped = 0;
    this.#since = nowMs;
  }
}
