/**
 * In-band DTMF detection on a leg's inbound frames (ITU-T Q.24 reception), frame by frame with the
 * Goertzel filter at the eight Q.23 frequencies. A frame holds a digit when the strongest row and
 * column tones are both present, each clearly above the other tones of its group, with a twist
 * under 8 dB. A digit is reported once, when it ends, after at least two frames (40 ms, the Q.24
 * minimum duration), with its duration. A pure processor: frames in, digits out.
 */
import { toneAmplitude } from '../dsp/goertzel.js';

const ROWS = [697, 770, 852, 941];
const COLUMNS = [1209, 1336, 1477, 1633];
const KEYS = ['123A', '456B', '789C', '*0#D'];
const RATE = 8000;
const FRAME_MS = 20;
/** Weakest tone accepted (about −30 dBm0 after G.711). */
const MIN_AMPLITUDE = 400;
/** Each tone must exceed the others of its group by this factor (about 8 dB). */
const GROUP_MARGIN = 2.5;
/** Largest ratio between row and column levels (8 dB twist). */
const MAX_TWIST = 2.5;

function strongest(frame: Int16Array, frequencies: readonly number[]): { index: number; level: number; next: number } {
  const levels = frequencies.map((f) => toneAmplitude(frame, f, RATE));
  let index = 0;
  for (let i = 1; i < levels.length; i += 1) if (levels[i] > levels[index]) index = i;
  const next = Math.max(...levels.filter((_, i) => i !== index));
  return { index, level: levels[index], next };
}

/** The digit a single frame holds, or null. */
export function frameDigit(frame: Int16Array): string | null {
  const row = strongest(frame, ROWS);
  const column = strongest(frame, COLUMNS);
  if (row.level < MIN_AMPLITUDE || column.level < MIN_AMPLITUDE) return null;
  if (row.level < GROUP_MARGIN * row.next || column.level < GROUP_MARGIN * column.next) return null;
  const twist = row.level > column.level ? row.level / column.level : column.level / row.level;
  if (twist > MAX_TWIST) return null;
  return KEYS[row.index][column.index];
}

export class InbandDtmfDetector {
  #digit: string | null = null;
  #frames = 0;

  /** Feeds one frame; returns a digit when one has just ended. */
  feed(frame: Int16Array | null): { digit: string; durationMs: number } | null {
    const digit = frame === null ? null : frameDigit(frame);
    if (digit !== null && digit === this.#digit) {
      this.#frames += 1;
      return null;
    }
    const ended = this.#digit !== null && this.#frames >= 2 ? { digit: this.#digit, durationMs: this.#frames * FRAME_MS } : null;
    this.#digit = digit;
    this.#frames = digit === null ? 0 : 1;
    return ended;
  }
}
