/**
 * Packet pacing for a 20 ms stream, as pure arithmetic on a monotonic clock.
 *
 * Frame n of a stream that starts at `startMs` is due at `startMs + n × 20 ms`. A worker tick asks
 * how many frames are due now and sends all of them, so a late timer delays packets but never
 * shifts the schedule: drift cannot accumulate, whatever the timer's jitter.
 */

/** One G.711 packet carries 20 ms (RFC 3551 §4.5.14 recommends 20 ms as the default packet time). */
export const FRAME_MS = 20;

/** How many frames of a stream started at `startMs` are due by `nowMs` (frame 0 is due at once). */
export function framesDueBy(startMs: number, nowMs: number, frameMs: number = FRAME_MS): number {
  if (nowMs < startMs) return 0;
  return Math.floor((nowMs - startMs) / frameMs) + 1;
}

/** When frame `index` is due. */
export function frameDueAt(startMs: number, index: number, frameMs: number = FRAME_MS): number {
  return startMs + index * frameMs;
}

/** Tracks how many of a stream's `totalFrames` have been handed out against its schedule. */
export class Pacer {
  readonly startMs: number;
  readonly totalFrames: number;
  readonly frameMs: number;
  #taken = 0;

  constructor(startMs: number, totalFrames: number, frameMs: number = FRAME_MS) {
    this.startMs = startMs;
    this.totalFrames = totalFrames;
    this.frameMs = frameMs;
  }

  /** Frames handed out so far; the next frame to send has this index. */
  get taken(): number {
    return this.#taken;
  }

  get done(): boolean {
    return this.#taken >= this.totalFrames;
  }

  /** When the next frame is due. */
  nextDueAt(): number {
    return frameDueAt(this.startMs, this.#taken, this.frameMs);
  }

  /** How many frames are due by `nowMs` and not yet taken; marks them taken. */
  take(nowMs: number): number {
    const due = Math.min(this.totalFrames, framesDueBy(this.startMs, nowMs, this.frameMs));
    const count = Math.max(0, due - this.#taken);
    this.#taken += count;
    return count;
  }
}
