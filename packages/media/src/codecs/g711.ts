/**
 * G.711 (ITU-T G.711, 1988) µ-law and A-law companding between 16-bit linear PCM and 8-bit codes.
 *
 * Written here rather than taken from npm because every package we looked at allocates per call
 * (arrays or Buffers per frame) and this runs 50 times a second per leg inside the media workers.
 * All four directions are precomputed lookup tables built once at module load: encoding indexes a
 * 64 Ki-entry table with the sample's 16-bit pattern, decoding a 256-entry table with the code.
 * The frame functions write into caller-owned arrays and allocate nothing.
 */

/** µ-law adds this bias so that every segment's lower edge is a power of two (G.711 §2, Table 2a). */
const ULAW_BIAS = 0x84;
/** Largest magnitude µ-law can represent before the bias would overflow 15 bits. */
const ULAW_CLIP = 32635;

/** Encodes one 16-bit sample to a µ-law code by computing it (used to fill the table). */
function computeUlaw(sample: number): number {
  const negative = sample < 0;
  const magnitude = Math.min(negative ? -sample : sample, ULAW_CLIP) + ULAW_BIAS;
  // The biased magnitude lies in [2^7, 2^15); the segment is how far its top bit sits above bit 7.
  let segment = 0;
  while (segment < 7 && magnitude >= 0x100 << segment) segment += 1;
  const mantissa = (magnitude >> (segment + 3)) & 0x0f;
  const code = (negative ? 0x80 : 0x00) | (segment << 4) | mantissa;
  // Codes are transmitted inverted (G.711 §2: "all bits inverted"), which keeps quiet signals
  // from producing long runs of zero bits.
  return ~code & 0xff;
}

/** Decodes one µ-law code to the midpoint of its quantisation interval. */
function computeUlawDecode(code: number): number {
  const bits = ~code & 0xff;
  const segment = (bits >> 4) & 0x07;
  const mantissa = bits & 0x0f;
  const magnitude = (((mantissa << 3) + ULAW_BIAS) << segment) - ULAW_BIAS;
  return bits & 0x80 ? -magnitude : magnitude;
}

/** Encodes one 16-bit sample to an A-law code by computing it (used to fill the table). */
function computeAlaw(sample: number): number {
  // A-law quantises 13-bit magnitudes; negative values use the one's complement (−x−1) so that the
  // positive and negative halves are symmetrical around the decision value between −1 and 0.
  const value = sample >> 3;
  const negative = value < 0;
  const magnitude = negative ? -value - 1 : value;
  // The 13-bit magnitude is at most 4095, so it always falls in one of the eight segments.
  let segment = 0;
  while (segment < 7 && magnitude >= 0x20 << segment) segment += 1;
  // Segments 0 and 1 share one step size (2 in 13-bit units); each later segment doubles it.
  const mantissa = (magnitude >> (segment === 0 ? 1 : segment)) & 0x0f;
  const code = (segment << 4) | mantissa;
  // Positive values carry the sign bit set; even bits are inverted on the line (G.711 §3, 0x55).
  return (code | (negative ? 0x00 : 0x80)) ^ 0x55;
}

/** Decodes one A-law code to the midpoint of its quantisation interval. */
function computeAlawDecode(code: number): number {
  const bits = code ^ 0x55;
  const segment = (bits >> 4) & 0x07;
  const mantissa = bits & 0x0f;
  let magnitude = (mantissa << 4) + 8;
  if (segment > 0) magnitude = (magnitude + 0x100) << (segment - 1);
  return bits & 0x80 ? magnitude : -magnitude;
}

function buildEncodeTable(encode: (sample: number) => number): Uint8Array {
  const table = new Uint8Array(65536);
  for (let pattern = 0; pattern < 65536; pattern += 1) {
    table[pattern] = encode((pattern << 16) >> 16); // reinterpret the 16-bit pattern as signed
  }
  return table;
}

function buildDecodeTable(decode: (code: number) => number): Int16Array {
  const table = new Int16Array(256);
  for (let code = 0; code < 256; code += 1) table[code] = decode(code);
  return table;
}

const ULAW_ENCODE = buildEncodeTable(computeUlaw);
const ULAW_DECODE = buildDecodeTable(computeUlawDecode);
const ALAW_ENCODE = buildEncodeTable(computeAlaw);
const ALAW_DECODE = buildDecodeTable(computeAlawDecode);

/** 16-bit linear sample → µ-law code. Values outside the int16 range wrap (pass int16 samples). */
export function linearToUlaw(sample: number): number {
  return ULAW_ENCODE[sample & 0xffff];
}

/** µ-law code (0–255) → 16-bit linear sample. */
export function ulawToLinear(code: number): number {
  return ULAW_DECODE[code & 0xff];
}

/** 16-bit linear sample → A-law code. Values outside the int16 range wrap (pass int16 samples). */
export function linearToAlaw(sample: number): number {
  return ALAW_ENCODE[sample & 0xffff];
}

/** A-law code (0–255) → 16-bit linear sample. */
export function alawToLinear(code: number): number {
  return ALAW_DECODE[code & 0xff];
}

function encodeWith(table: Uint8Array, samples: Int16Array, out: Uint8Array, outOffset: number): void {
  if (outOffset < 0 || outOffset + samples.length > out.length) {
    throw new RangeError(`G.711 output needs ${samples.length} bytes at offset ${outOffset}, has ${out.length}`);
  }
  for (let i = 0; i < samples.length; i += 1) out[outOffset + i] = table[samples[i] & 0xffff];
}

function decodeWith(table: Int16Array, codes: Uint8Array, out: Int16Array, outOffset: number): void {
  if (outOffset < 0 || outOffset + codes.length > out.length) {
    throw new RangeError(`G.711 output needs ${codes.length} samples at offset ${outOffset}, has ${out.length}`);
  }
  for (let i = 0; i < codes.length; i += 1) out[outOffset + i] = table[codes[i]];
}

/** Encodes `samples` into `out` starting at `outOffset` (one byte per sample). */
export function encodeUlaw(samples: Int16Array, out: Uint8Array, outOffset = 0): void {
  encodeWith(ULAW_ENCODE, samples, out, outOffset);
}

/** Decodes `codes` into `out` starting at `outOffset` (one sample per byte). */
export function decodeUlaw(codes: Uint8Array, out: Int16Array, outOffset = 0): void {
  decodeWith(ULAW_DECODE, codes, out, outOffset);
}

/** Encodes `samples` into `out` starting at `outOffset` (one byte per sample). */
export function encodeAlaw(samples: Int16Array, out: Uint8Array, outOffset = 0): void {
  encodeWith(ALAW_ENCODE, samples, out, outOffset);
}

/** Decodes `codes` into `out` starting at `outOffset` (one sample per byte). */
export function decodeAlaw(codes: Uint8Array, out: Int16Array, outOffset = 0): void {
  decodeWith(ALAW_DECODE, codes, out, outOffset);
}

/** The code for digital silence: what a zero sample encodes to in each law. */
export const ULAW_SILENCE = 0xff;
export const ALAW_SILENCE = 0xd5;
