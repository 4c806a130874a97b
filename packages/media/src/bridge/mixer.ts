/**
 * Mixing arithmetic for bridges, as pure functions over 20 ms frames of 16-bit linear PCM.
 *
 * "Minus one": each participant hears the sum of everyone else. The total is summed once in 32-bit
 * integers and each participant's own signal is subtracted from it before clipping, so a loud
 * speaker never distorts what the others hear of the quieter ones beyond the final int16 clip,
 * and the cost is O(participants × samples) rather than O(participants²).
 */

export function clip16(value: number): number {
  return Math.min(32767, Math.max(value, -32768));
}

/** Adds `frame` into the 32-bit accumulator. */
export function accumulate(sum: Int32Array, frame: Int16Array): void {
  const n = Math.min(sum.length, frame.length);
  for (let i = 0; i < n; i += 1) sum[i] += frame[i];
}

/** The accumulator clipped to int16, into `out` (allocated when absent). */
export function clipFrame(sum: Int32Array, out: Int16Array = new Int16Array(sum.length)): Int16Array {
  for (let i = 0; i < sum.length; i += 1) out[i] = clip16(sum[i]);
  return out;
}

/**
 * What each input hears: the sum of all other inputs plus `common` (bridge media everyone hears),
 * clipped. A null input is silent (nothing arrived, or muted). Returns one new frame per input.
 */
export function mixMinusOne(
  inputs: ReadonlyArray<Int16Array | null>,
  frameSamples: number,
  common: Int16Array | null = null,
): Int16Array[] {
  const total = new Int32Array(frameSamples);
  for (const input of inputs) if (input !== null) accumulate(total, input);
  if (common !== null) accumulate(total, common);
  return inputs.map((own) => {
    const out = new Int16Array(frameSamples);
    if (own === null) {
      for (let i = 0; i < frameSamples; i += 1) out[i] = clip16(total[i]);
    } else {
      for (let i = 0; i < frameSamples; i += 1) out[i] = clip16(total[i] - (own[i] ?? 0));
    }
    return out;
  });
}

/** The clipped sum of the given frames (null entries are silent); null when every entry is null. */
export function mixAll(frames: ReadonlyArray<Int16Array | null>, frameSamples: number): Int16Array | null {
  let any = false;
  const total = new Int32Array(frameSamples);
  for (const frame of frames) {
    if (frame === null) continue;
    any = true;
    accumulate(total, frame);
  }
  return any ? clipFrame(total) : null;
}
