/**
 * Sending DTMF digits on a leg, one media tick at a time. A pure processor: each `step()` says what
 * the leg does with this 20 ms frame.
 *
 * RFC 4733 mode: each digit is one event; its packets all carry the timestamp of the event's start
 * (§2.5.1.3) and a growing duration, the first has the marker bit (§2.5.1.3), and the final packet
 * is sent three times with the E bit (§2.5.1.4) so the end survives a loss. No audio is sent while
 * an event lasts. In-band mode (no telephone-event negotiated): the digit's two ITU-T Q.23
 * frequencies replace the leg's audio for the digit's duration.
 */
import type { FrameSource } from './playback.js';
import { ToneSource } from './tone-frames.js';

/** Q.23 frequencies: row (low group) and column (high group) of each key. */
const KEYS: Record<string, [number, number]> = {
  '1': [697, 1209], '2': [697, 1336], '3': [697, 1477], A: [697, 1633],
  '4': [770, 1209], '5': [770, 1336], '6': [770, 1477], B: [770, 1633],
  '7': [852, 1209], '8': [852, 1336], '9': [852, 1477], C: [852, 1633],
  '*': [941, 1209], '0': [941, 1336], '#': [941, 1477], D: [941, 1633],
};

const EVENT_CODES = '0123456789*#ABCD';
const FRAME_SAMPLES = 160;
const FRAME_MS = 20;
/** End packets per event (RFC 4733 §2.5.1.4 recommends three). */
export const END_REPETITIONS = 3;

export type DtmfStep =
  /** Send an event packet (and no audio) this tick. */
  | { kind: 'event'; code: number; start: boolean; end: boolean; durationSamples: number }
  /** Send this tone frame in place of the leg's audio. */
  | { kind: 'tone'; frame: Int16Array }
  /** Between digits: the leg's normal audio. */
  | { kind: 'pause' }
  | { kind: 'done' };

export function isDtmfDigit(digit: string): boolean {
  return digit.length === 1 && EVENT_CODES.includes(digit.toUpperCase());
}

export class DtmfSender {
  readonly #digits: string[];
  readonly #digitTicks: number;
  readonly #gapTicks: number;
  readonly #events: boolean;
  #index = 0;
  /** Ticks spent on the current digit (tone or event), then on the gap after it. */
  #tick = 0;
  #tone: FrameSource | null = null;
  readonly #frame = new Int16Array(FRAME_SAMPLES);

  constructor(digits: string, durationMs: number, betweenMs: number, useEvents: boolean) {
    this.#digits = [...digits.toUpperCase()].filter(isDtmfDigit);
    this.#digitTicks = Math.max(2, Math.round(durationMs / FRAME_MS));
    this.#gapTicks = Math.max(1, Math.round(betweenMs / FRAME_MS));
    this.#events = useEvents;
  }

  step(): DtmfStep {
    if (this.#index >= this.#digits.length) return { kind: 'done' };
    const digit = this.#digits[this.#index];
    const tick = this.#tick;
    this.#tick += 1;
    if (tick < this.#digitTicks) {
      if (this.#events) {
        return { kind: 'event', code: EVENT_CODES.indexOf(digit), start: tick === 0, end: tick === this.#digitTicks - 1, durationSamples: (tick + 1) * FRAME_SAMPLES };
      }
      if (tick === 0) this.#tone = new ToneSource([{ frequencies: KEYS[digit], durationMs: this.#digitTicks * FRAME_MS }], false);
      this.#tone?.next(this.#frame);
      return { kind: 'tone', frame: this.#frame };
    }
    // The last digit needs no gap after it.
    const last = this.#index === this.#digits.length - 1;
    if (last || tick >= this.#digitTicks + this.#gapTicks - 1) {
      this.#index += 1;
      this.#tick = 0;
    }
    return this.#index >= this.#digits.length ? { kind: 'done' } : { kind: 'pause' };
  }
}
