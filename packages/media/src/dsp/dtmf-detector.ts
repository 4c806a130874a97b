/**
 * In-band DTMF detection (ITU-T Q.23 frequencies, Q.24 acceptance) on 8 kHz audio, for peers that
 * send digits as tones instead of RFC 4733 events. A pure processor: feed it frames of any
 * length, it answers with the digits that ended, timed by sample counts.
 *
 * Each 20 ms block (160 samples, 50 Hz bins: the closest DTMF frequencies are 73 Hz apart) is
 * tested with Goertzel at the eight frequencies. A block holds a digit when
 *   - the strongest row and column tones are both above a minimum level;
 *   - twist is within Q.24 limits: the high group at most 8 dB below (normal twist) or 4 dB above
 *     (reverse twist) the low group;
 *   - each is at least 6 dB above the other tones of its group;
 *   - the two tones carry most of the block's energy (speech and noise spread theirs, which is
 *     what keeps talk-off down).
 * Hysteresis: a digit starts after two consecutive blocks agree (40 ms) and ends after two blocks
 * without it, so one noisy block neither creates nor splits a digit.
 */
import { goertzelCoefficient, goertzelPower } from './goertzel.js';

const RATE = 8000;
const BLOCK = 160;
const ROWS = [697, 770, 852, 941];
const COLUMNS = [1209, 1336, 1477, 1633];
const KEYPAD = ['123A', '456B', '789C', '*0#D'];

const ROW_COEFFICIENTS = ROWS.map((f) => goertzelCoefficient(f, RATE));
const COLUMN_COEFFICIENTS = COLUMNS.map((f) => goertzelCoefficient(f, RATE));

/** Goertzel power of a tone of peak amplitude A on its bin is (A·N/2)². */
function powerOfAmplitude(amplitude: number): number {
  return ((amplitude * BLOCK) / 2) ** 2;
}

/** About −36 dBm0 per tone after G.711 (Q.24 asks for operation down to about −30 dBm0). */
const MIN_TONE_POWER = powerOfAmplitude(250);
const NORMAL_TWIST = 10 ** (-8 / 10);
const REVERSE_TWIST = 10 ** (4 / 10);
/** Power ratio between the winning tone and the next in its group (6 dB). */
const GROUP_MARGIN = 10 ** (6 / 10);
/** Share of the block's energy the two tones must carry. */
const MIN_TONE_SHARE = 0.7;
/** Consecutive blocks to start and to end a digit. */
const HYSTERESIS_BLOCKS = 2;

export interface InbandDigit {
  digit: string;
  durationMs: number;
}

function strongest(samples: Int16Array, coefficients: number[]): { index: number; power: number; second: number } {
  let index = 0;
  let power = -1;
  let second = 0;
  for (let i = 0; i < coefficients.length; i += 1) {
    const p = goertzelPower(samples, coefficients[i]);
    if (p > power) {
      second = Math.max(second, power);
      power = p;
      index = i;
    } else if (p > second) second = p;
  }
  return { index, power, second };
}

/** The digit a 160-sample block holds, or null. */
export function classifyBlock(block: Int16Array): string | null {
  const row = strongest(block, ROW_COEFFICIENTS);
  const column = strongest(block, COLUMN_COEFFICIENTS);
  if (row.power < MIN_TONE_POWER || column.power < MIN_TONE_POWER) return null;
  const twist = column.power / row.power;
  if (twist < NORMAL_TWIST || twist > REVERSE_TWIST) return null;
  if (row.power < GROUP_MARGIN * row.second || column.power < GROUP_MARGIN * column.second) return null;
  let energy = 0;
  for (let i = 0; i < block.length; i += 1) energy += block[i] * block[i];
  // A tone of power P holds 2P/N of the block's energy Σx² (Parseval, on-bin).
  const toneEnergy = (2 * (row.power + column.power)) / BLOCK;
  if (toneEnergy < MIN_TONE_SHARE * energy) return null;
  return KEYPAD[row.index][column.index];
}

export class DtmfDetector {
  readonly #block = new Int16Array(BLOCK);
  #filled = 0;
  /** The digit being heard (after hysteresis) and its length in blocks. */
  #current: string | null = null;
  #currentBlocks = 0;
  /** Candidate from the latest blocks, and how many in a row. */
  #candidate: string | null = null;
  #candidateBlocks = 0;
  #missBlocks = 0;

  /**
   * Nothing heard and no partial block: silence fed now would change nothing, so a caller may skip
   * it (a leg that receives no audio would otherwise run eight Goertzel filters per 20 ms).
   */
  get idle(): boolean {
    return this.#current === null && this.#candidate === null && this.#filled === 0;
  }

  /** Feeds 8 kHz samples; returns the digits that ended within them. */
  process(samples: Int16Array): InbandDigit[] {
    const ended: InbandDigit[] = [];
    let at = 0;
    while (at < samples.length) {
      const take = Math.min(BLOCK - this.#filled, samples.length - at);
      this.#block.set(samples.subarray(at, at + take), this.#filled);
      this.#filled += take;
      at += take;
      if (this.#filled === BLOCK) {
        this.#filled = 0;
        const digit = this.#step(classifyBlock(this.#block));
        if (digit !== null) ended.push(digit);
      }
    }
    return ended;
  }

  #step(seen: string | null): InbandDigit | null {
    if (this.#current !== null) {
      if (seen === this.#current) {
        this.#currentBlocks += 1 + this.#missBlocks;
        this.#missBlocks = 0;
        return null;
      }
      this.#missBlocks += 1;
      if (this.#missBlocks < HYSTERESIS_BLOCKS) return null;
      const done = { digit: this.#current, durationMs: (this.#currentBlocks * BLOCK * 1000) / RATE };
      this.#current = null;
      this.#missBlocks = 0;
      this.#candidate = seen;
      this.#candidateBlocks = seen === null ? 0 : 1;
      return done;
    }
    if (seen !== null && seen === this.#candidate) this.#candidateBlocks += 1;
    else {
      this.#candidate = seen;
      this.#candidateBlocks = seen === null ? 0 : 1;
    }
    if (this.#candidate !== null && this.#candidateBlocks >= HYSTERESIS_BLOCKS) {
      this.#current = this.#candidate;
      this.#currentBlocks = this.#candidateBlocks;
      this.#candidate = null;
      this.#candidateBlocks = 0;
    }
    return null;
  }
}
