/**
 * Detection of one tone (a frequency held for a time) on decoded audio, for the reference's
 * TONE_DETECT: a frame holds the tone when most of its energy sits at that frequency (Goertzel
 * amplitude against the frame's RMS) and it is loud enough; the tone is reported once when it has
 * lasted `durationMs` without a break, and again only after it stopped. Timed by sample counts.
 */
import { rms, toneAmplitude } from './goertzel.js';

export interface ToneDetectorOptions {
  frequencyHz: number;
  /** How long the tone must last before it is reported. */
  durationMs: number;
}

/** A sine's peak amplitude is √2 × its RMS; the tone must carry at least this share of the frame. */
const MIN_TONE_SHARE = 0.7;
/** Below this peak amplitude (16-bit linear, about −44 dBFS) a frame is silence, not a tone. */
const MIN_AMPLITUDE = 200;

export class ToneDetector {
  readonly #options: ToneDetectorOptions;
  readonly #rate: number;
  /** Consecutive samples holding the tone. */
  #run = 0;
  #reported = false;

  constructor(options: ToneDetectorOptions, sampleRate: number) {
    this.#options = options;
    this.#rate = sampleRate;
  }

  get frequencyHz(): number {
    return this.#options.frequencyHz;
  }

  /** Feeds one frame; true when this frame completes a detection. */
  process(frame: Int16Array): boolean {
    if (!this.#holdsTone(frame)) {
      this.#run = 0;
      this.#reported = false;
      return false;
    }
    this.#run += frame.length;
    if (this.#reported || this.#run < (this.#options.durationMs * this.#rate) / 1000) return false;
    this.#reported = true;
    return true;
  }

  #holdsTone(frame: Int16Array): boolean {
    if (frame.length === 0) return false;
    const amplitude = toneAmplitude(frame, this.#options.frequencyHz, this.#rate);
    const level = rms(frame) * Math.SQRT2;
    return amplitude >= MIN_AMPLITUDE && level > 0 && amplitude / level >= MIN_TONE_SHARE;
  }
}
