/**
 * The Goertzel algorithm: the energy of one DFT bin, computed with a second-order recursion in
 * O(N) per frequency, which is cheaper than an FFT when only a handful of frequencies matter
 * (the eight DTMF frequencies, a tone under test).
 */

/** Recursion coefficient 2·cos(2πf/fs) for frequency `frequencyHz` at `sampleRate`. */
export function goertzelCoefficient(frequencyHz: number, sampleRate: number): number {
  return 2 * Math.cos((2 * Math.PI * frequencyHz) / sampleRate);
}

/**
 * Squared magnitude of `samples[start … start+length)` at the frequency of `coefficient`. For a
 * sine of amplitude A centred on the bin it is about (A·N/2)².
 */
export function goertzelPower(samples: ArrayLike<number>, coefficient: number, start = 0, length = samples.length - start): number {
  let s1 = 0;
  let s2 = 0;
  for (let i = start; i < start + length; i += 1) {
    const s0 = samples[i] + coefficient * s1 - s2;
    s2 = s1;
    s1 = s0;
  }
  return s1 * s1 + s2 * s2 - coefficient * s1 * s2;
}

/** Amplitude of the component at `frequencyHz` (for a pure tone on the bin, its peak amplitude). */
export function toneAmplitude(
  samples: ArrayLike<number>,
  frequencyHz: number,
  sampleRate: number,
  start = 0,
  length = samples.length - start,
): number {
  const power = goertzelPower(samples, goertzelCoefficient(frequencyHz, sampleRate), start, length);
  return (2 * Math.sqrt(Math.max(power, 0))) / length;
}

/** Root-mean-square level of a span of samples. */
export function rms(samples: ArrayLike<number>, start = 0, length = samples.length - start): number {
  if (length <= 0) return 0;
  let sum = 0;
  for (let i = start; i < start + length; i += 1) sum += samples[i] * samples[i];
  return Math.sqrt(sum / length);
}
