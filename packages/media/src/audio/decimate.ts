/**
 * Integer-factor sample-rate reduction (16 kHz → 8 kHz, 48 kHz → 8 kHz) for prompts recorded at a
 * higher rate. Before dropping samples, a low-pass filter removes what the lower rate cannot carry
 * (everything above its Nyquist frequency would otherwise fold back as audible aliasing).
 *
 * The filter is a linear-phase windowed-sinc FIR (Hamming window), centred on each kept sample so
 * the output is not delayed. It runs once per file when a playback loads, never per packet.
 */

/** Where the pass band ends at the 8 kHz output: telephone audio stops near 3.4 kHz. */
const CUTOFF_HZ = 3600;
/** Filter length per unit of decimation factor; 32·M + 1 taps give a ~0.8 kHz transition band. */
const TAPS_PER_FACTOR = 32;

const filters = new Map<string, Float64Array>();

/** A low-pass FIR with `taps` coefficients (odd), cut-off `cutoff` in cycles per sample, unity DC gain. */
export function designLowPass(taps: number, cutoff: number): Float64Array {
  if (taps < 1 || taps % 2 === 0) throw new RangeError(`filter length must be odd and positive, got ${taps}`);
  if (!(cutoff > 0 && cutoff < 0.5)) throw new RangeError(`cut-off must lie in (0, 0.5) cycles/sample, got ${cutoff}`);
  const coefficients = new Float64Array(taps);
  const middle = (taps - 1) / 2;
  let sum = 0;
  for (let i = 0; i < taps; i += 1) {
    const n = i - middle;
    const sinc = n === 0 ? 2 * cutoff : Math.sin(2 * Math.PI * cutoff * n) / (Math.PI * n);
    const window = taps === 1 ? 1 : 0.54 - 0.46 * Math.cos((2 * Math.PI * i) / (taps - 1));
    coefficients[i] = sinc * window;
    sum += coefficients[i];
  }
  for (let i = 0; i < taps; i += 1) coefficients[i] /= sum;
  return coefficients;
}

function filterFor(factor: number, inputRate: number): Float64Array {
  const key = `${factor}:${inputRate}`;
  let filter = filters.get(key);
  if (filter === undefined) {
    filter = designLowPass(TAPS_PER_FACTOR * factor + 1, CUTOFF_HZ / inputRate);
    filters.set(key, filter);
  }
  return filter;
}

/**
 * Low-pass filters `input` (sampled at `inputRate`) and keeps every `factor`-th sample.
 * Samples beyond either end count as silence. The output has ceil(input.length / factor) samples.
 */
export function decimate(input: Int16Array, inputRate: number, factor: number): Int16Array {
  if (!Number.isInteger(factor) || factor < 1) throw new RangeError(`decimation factor must be a positive integer, got ${factor}`);
  if (factor === 1) return input.slice();
  const filter = filterFor(factor, inputRate);
  const half = (filter.length - 1) / 2;
  const output = new Int16Array(Math.ceil(input.length / factor));
  for (let k = 0; k < output.length; k += 1) {
    const centre = k * factor;
    const from = Math.max(0, centre - half);
    const to = Math.min(input.length - 1, centre + half);
    let acc = 0;
    for (let j = from; j <= to; j += 1) acc += input[j] * filter[j - centre + half];
    output[k] = Math.min(32767, Math.max(-32768, Math.round(acc)));
  }
  return output;
}
