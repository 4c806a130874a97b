/** A volume change of 16-bit audio: snoop gains (call recording) and a bridge member's listening volume. */

/** The frame scaled by `gain`, saturating at the 16-bit limits; the frame itself when the gain is 1. */
export function applyGain(frame: Int16Array | null, gain: number): Int16Array | null {
  if (frame === null || gain === 1) return frame;
  const scaled = new Int16Array(frame.length);
  for (let i = 0; i < frame.length; i++) scaled[i] = Math.max(-32768, Math.min(32767, Math.round(frame[i] * gain)));
  return scaled;
}
