/**
 * Frame-by-frame rate conversion for one audio path whose input or output rate may change (a leg
 * whose bridge changes rate, a recording that captures at another rate than its source). A 20 ms
 * frame carries its rate in its length (160, 320 or 960 samples), so frames need no rate tag.
 * One streaming Resampler per rate pair keeps its filter history across frames; a frame already at
 * the wanted rate passes through untouched (the narrowband path costs nothing).
 */
import { type ResampleRate, Resampler } from './resampler.js';

/** Milliseconds per frame: the media tick. */
const FRAME_MS = 20;
const RATES: readonly ResampleRate[] = [8000, 16000, 48000];

/** Samples in one 20 ms frame at `rate`. */
export function frameSamplesAt(rate: number): number {
  return (rate * FRAME_MS) / 1000;
}

/** The rate of a 20 ms frame, from its length; 8000 for anything that is not a whole engine frame. */
export function rateOfFrame(frame: Int16Array): ResampleRate {
  const rate = (frame.length * 1000) / FRAME_MS;
  return RATES.includes(rate as ResampleRate) ? (rate as ResampleRate) : 8000;
}

/** The engine rate for a codec's sampling rate (8000 when it is none of them), at most `cap`. */
export function engineRate(sampleRate: number, cap: ResampleRate = 48000): ResampleRate {
  const rate = RATES.includes(sampleRate as ResampleRate) ? (sampleRate as ResampleRate) : 8000;
  return rate > cap ? cap : rate;
}

export class RateConverter {
  readonly #resamplers = new Map<number, Resampler>();

  /** `frame` at `to` Hz: itself when it already is, else through this path's resampler for the pair. */
  convert(frame: Int16Array, to: ResampleRate): Int16Array {
    const from = rateOfFrame(frame);
    if (from === to) return frame;
    const key = from * 100_000 + to;
    let resampler = this.#resamplers.get(key);
    if (resampler === undefined) {
      resampler = new Resampler(from, to);
      this.#resamplers.set(key, resampler);
    }
    return resampler.process(frame);
  }

  /** Forgets every filter history (the path's rates changed: old history would replay stale audio). */
  reset(): void {
    this.#resamplers.clear();
  }
}
