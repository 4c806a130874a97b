/**
 * Tone patterns as 8 kHz frames: the steps core parsed from an indications.conf pattern
 * (`350+440`, `480+620/500,0/500`, `!950/330,…`, `425*25/…`), generated sample by sample with
 * continuous phase inside a step so there are no clicks at frame boundaries.
 *
 * A pattern that repeats loops over its steps, skipping those marked `once` (`!`) after the first
 * pass; a pattern that does not repeat ends after its last step. A step of duration 0 lasts forever.
 */
import type { ToneSegment } from '../types.js';
import type { FrameSource } from './playback.js';

const RATE = 8000;
/**
 * Level of each frequency of a sum: two tones at this level peak at about −6 dBFS, close to the
 * −13 dBm0 per tone that ITU-T E.180 suggests for call-progress tones after G.711 companding.
 */
const TONE_AMPLITUDE = 8000;
/** Modulation depth of `f1*f2` (amplitude modulation of f1 by f2). */
const MODULATION_DEPTH = 0.9;

export class ToneSource implements FrameSource {
  readonly #segments: readonly ToneSegment[];
  readonly #repeat: boolean;
  #index = 0;
  /** Samples already produced of the current step. */
  #offset = 0;
  #firstPass = true;
  #ended = false;

  constructor(segments: readonly ToneSegment[], repeat: boolean) {
    this.#segments = segments;
    this.#repeat = repeat;
    // A repeating pattern whose steps are all `once` would loop over nothing.
    if (segments.length === 0) this.#ended = true;
  }

  get done(): boolean {
    return this.#ended;
  }

  next(out: Int16Array): boolean {
    if (this.#ended) return false;
    for (let i = 0; i < out.length; i += 1) {
      if (this.#ended) {
        out.fill(0, i);
        break;
      }
      out[i] = this.#sample();
    }
    return true;
  }

  #sample(): number {
    const segment = this.#segments[this.#index];
    const t = this.#offset / RATE;
    let value = 0;
    const freqs = segment.frequencies;
    if (freqs.length > 0) {
      if (segment.modulated === true && freqs.length >= 2) {
        const carrier = Math.sin(2 * Math.PI * freqs[0] * t);
        const envelope = (1 + MODULATION_DEPTH * Math.sin(2 * Math.PI * freqs[1] * t)) / (1 + MODULATION_DEPTH);
        value = 2 * TONE_AMPLITUDE * carrier * envelope;
      } else {
        for (const f of freqs) value += TONE_AMPLITUDE * Math.sin(2 * Math.PI * f * t);
      }
    }
    this.#offset += 1;
    const length = Math.round((segment.durationMs * RATE) / 1000);
    if (length > 0 && this.#offset >= length) this.#advance();
    return Math.max(-32768, Math.min(32767, Math.round(value)));
  }

  #advance(): void {
    this.#offset = 0;
    for (let step = 0; step < this.#segments.length * 2; step += 1) {
      this.#index += 1;
      if (this.#index >= this.#segments.length) {
        if (!this.#repeat) {
          this.#ended = true;
          return;
        }
        this.#index = 0;
        this.#firstPass = false;
      }
      if (this.#firstPass || this.#segments[this.#index].once !== true) return;
    }
    this.#ended = true; // every step is play-once and the first pass is over
  }
}

/** A 1 kHz beep of 250 ms, played to a recording's target before it starts (as voicemail does). */
export function beepSource(): ToneSource {
  return new ToneSource([{ frequencies: [1000], durationMs: 250 }], false);
}
