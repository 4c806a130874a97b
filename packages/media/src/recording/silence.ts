/**
 * Talking/silence accounting of a recording, frame by frame: a frame whose mean absolute
 * amplitude is at or below the threshold is silence. The default threshold is the customary
 * telephony value (256 on a 16-bit scale, about −42 dBFS), which G.711 idle noise stays under.
 * A pure processor: frames in, totals out.
 */

export const DEFAULT_SILENCE_THRESHOLD = 256;

export function meanAbsolute(frame: Int16Array): number {
  if (frame.length === 0) return 0;
  let sum = 0;
  for (let i = 0; i < frame.length; i += 1) sum += frame[i] < 0 ? -frame[i] : frame[i];
  return sum / frame.length;
}

export class SilenceTracker {
  readonly #threshold: number;
  readonly #frameMs: number;
  talkingMs = 0;
  silenceMs = 0;
  /** Silence since the last talking frame (what `maxSilenceMs` is compared with). */
  currentSilenceMs = 0;

  constructor(frameMs = 20, threshold = DEFAULT_SILENCE_THRESHOLD) {
    this.#frameMs = frameMs;
    this.#threshold = threshold;
  }

  /** Accounts one frame; returns true when it was silence. */
  feed(frame: Int16Array): boolean {
    const silent = meanAbsolute(frame) <= this.#threshold;
    if (silent) {
      this.silenceMs += this.#frameMs;
      this.currentSilenceMs += this.#frameMs;
    } else {
      this.talkingMs += this.#frameMs;
      this.currentSilenceMs = 0;
    }
    return silent;
  }
}
