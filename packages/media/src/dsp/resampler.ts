/**
 * Streaming sample-rate conversion between the engine's rates (8000, 16000, 48000 Hz), frame by
 * frame, with the filter history carried across calls so that frame boundaries leave no clicks.
 *
 * A rational L/M polyphase FIR: conceptually the input is upsampled by L (zeros between samples),
 * low-pass filtered at the upsampled rate, and every M-th sample kept; only the taps that meet a
 * non-zero input are evaluated. The low-pass is a Kaiser-windowed sinc (β ≈ 7.9, about 80 dB
 * stop-band) with its pass band to 0.4 and its stop band from 0.5 of the lower rate: the 8 kHz
 * side keeps 0–3.2 kHz flat and removes everything from 4 kHz, so decimation does not alias.
 */

export type ResampleRate = 8000 | 16000 | 48000;

/** Stop-band attenuation in dB the filter is designed for (Kaiser's formulas). */
const STOPBAND_DB = 80;
const KAISER_BETA = 0.1102 * (STOPBAND_DB - 8.7);

function gcd(a: number, b: number): number {
  return b === 0 ? a : gcd(b, a % b);
}

/** Zeroth-order modified Bessel function of the first kind (series), for the Kaiser window. */
function besselI0(x: number): number {
  let sum = 1;
  let term = 1;
  for (let k = 1; k < 50; k += 1) {
    term *= (x / (2 * k)) * (x / (2 * k));
    sum += term;
    if (term < 1e-12 * sum) break;
  }
  return sum;
}

interface Design {
  up: number;
  down: number;
  taps: Float64Array;
  /** The taps split by polyphase branch: branch p holds taps p, p + up, p + 2·up, … contiguously. */
  branches: Float64Array[];
}

const designs = new Map<string, Design>();

function design(inputRate: number, outputRate: number): Design {
  const key = `${inputRate}>${outputRate}`;
  const cached = designs.get(key);
  if (cached !== undefined) return cached;
  const divisor = gcd(inputRate, outputRate);
  const up = outputRate / divisor;
  const down = inputRate / divisor;
  const upRate = inputRate * up;
  const lower = Math.min(inputRate, outputRate);
  const transition = (0.1 * lower) / upRate; // cycles per upsampled sample
  const cutoff = (0.45 * lower) / upRate;
  // Kaiser's length estimate N = (A − 8) / (2.285 · Δω), rounded up to whole polyphase branches.
  const estimate = Math.ceil((STOPBAND_DB - 8) / (2.285 * 2 * Math.PI * transition)) + 1;
  const length = Math.ceil(estimate / up) * up;
  const taps = new Float64Array(length);
  const middle = (length - 1) / 2;
  const norm = besselI0(KAISER_BETA);
  let sum = 0;
  for (let i = 0; i < length; i += 1) {
    const n = i - middle;
    const sinc = n === 0 ? 2 * cutoff : Math.sin(2 * Math.PI * cutoff * n) / (Math.PI * n);
    const ratio = (2 * i) / (length - 1) - 1;
    taps[i] = (sinc * besselI0(KAISER_BETA * Math.sqrt(Math.max(0, 1 - ratio * ratio)))) / norm;
    sum += taps[i];
  }
  // Gain L: each output of the upsampler sees only one in L non-zero inputs.
  for (let i = 0; i < length; i += 1) taps[i] *= up / sum;
  const branches: Float64Array[] = [];
  for (let phase = 0; phase < up; phase += 1) {
    const branch = new Float64Array(Math.ceil((length - phase) / up));
    for (let k = 0; k < branch.length; k += 1) branch[k] = taps[phase + k * up];
    branches.push(branch);
  }
  const result = { up, down, taps, branches };
  designs.set(key, result);
  return result;
}

export class Resampler {
  readonly inputRate: ResampleRate;
  readonly outputRate: ResampleRate;
  readonly #up: number;
  readonly #down: number;
  readonly #taps: Float64Array;
  readonly #branches: Float64Array[];
  /** The last inputs the filter still reaches, oldest first (zeros before the stream starts). */
  #tail: Float64Array;
  /** Inputs consumed so far. */
  #consumed = 0;
  /** Upsampled-time index of the next output sample. */
  #next = 0;

  constructor(inputRate: ResampleRate, outputRate: ResampleRate) {
    this.inputRate = inputRate;
    this.outputRate = outputRate;
    const { up, down, taps, branches } = design(inputRate, outputRate);
    this.#up = up;
    this.#down = down;
    this.#taps = taps;
    this.#branches = branches;
    this.#tail = new Float64Array(Math.ceil(taps.length / up));
  }

  /** Samples of delay the filter adds, at the output rate. */
  get delaySamples(): number {
    return (this.#taps.length - 1) / 2 / this.#down;
  }

  /**
   * Converts the next span of input. Over whole 20 ms frames the output is exactly one 20 ms frame
   * at the output rate per input frame.
   */
  process(input: Int16Array): Int16Array {
    if (this.inputRate === this.outputRate) return input.slice();
    const up = this.#up;
    const down = this.#down;
    const branches = this.#branches;
    const tail = this.#tail;
    const work = new Float64Array(tail.length + input.length);
    work.set(tail);
    for (let i = 0; i < input.length; i += 1) work[tail.length + i] = input[i];
    const base = this.#consumed - tail.length; // absolute index of work[0]
    const total = this.#consumed + input.length;
    const count = Math.max(0, Math.ceil((total * up - this.#next) / down));
    const out = new Int16Array(count);
    let t = this.#next;
    for (let k = 0; k < count; k += 1) {
      const newest = Math.floor(t / up);
      // Only the branch of taps that meets non-zero (original) inputs: phase t mod up.
      const branch = branches[t - newest * up];
      const from = newest - base;
      const reach = Math.min(branch.length, from + 1);
      let acc = 0;
      for (let m = 0; m < reach; m += 1) acc += branch[m] * work[from - m];
      out[k] = acc > 32767 ? 32767 : acc < -32768 ? -32768 : Math.round(acc);
      t += down;
    }
    this.#next = t;
    this.#consumed = total;
    this.#tail = work.slice(work.length - tail.length);
    return out;
  }
}
