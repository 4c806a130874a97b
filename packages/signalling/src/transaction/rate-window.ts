/**
 * Events per second over the last second, counted in ten 100 ms slots (a count per slot, not a
 * time per event: the overload control counts every new call, and an array of times shifted on each
 * one cost more than the decision it fed).
 */
const WINDOW_MS = 1000;
const SLOT_MS = 100;
const SLOTS = WINDOW_MS / SLOT_MS;
/** A rate over less than this (ms) reads a load that just began as a trickle. */
const MIN_SPAN_MS = 250;

export class RateWindow {
  readonly #slots = new Uint32Array(SLOTS);
  /** The slot number (time / SLOT_MS) counted last. */
  #slot = 0;
  /** When the events now counted began (their first after a second without any), and the last one. */
  #since = Number.NEGATIVE_INFINITY;
  #last = Number.NEGATIVE_INFINITY;

  count(now: number): void {
    this.#advance(now);
    if (this.#last < now - WINDOW_MS) this.#since = now;
    this.#last = now;
    this.#slots[this.#slot % SLOTS] += 1;
  }

  /** Events per second over the last second, or since they began (at least MIN_SPAN_MS of it). */
  rate(now: number): number {
    this.#advance(now);
    let count = 0;
    for (const n of this.#slots) count += n;
    // The slots cover the current one so far and the SLOTS - 1 before it.
    const covered = (SLOTS - 1) * SLOT_MS + (now % SLOT_MS);
    const span = Math.min(covered, Math.max(MIN_SPAN_MS, now - this.#since));
    return (count * 1000) / span;
  }

  /** Empties the slots that have passed since the last count. */
  #advance(now: number): void {
    const slot = Math.floor(now / SLOT_MS);
    const passed = Math.min(slot - this.#slot, SLOTS);
    for (let i = 1; i <= passed; i++) this.#slots[(this.#slot + i) % SLOTS] = 0;
    this.#slot = Math.max(slot, this.#slot);
  }
}
