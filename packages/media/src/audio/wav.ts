/**
 * A RIFF/WAVE reader for the prompts we play. It walks the chunk list, reads `fmt ` and `data`, and
 * checks every length against the bytes actually present. A file cut short inside its `data` chunk
 * still plays what it has (recorders that were killed leave such files); a file cut short before
 * the audio starts is an error.
 */

export class WavFormatError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WavFormatError';
  }
}

export const WAVE_FORMAT_PCM = 0x0001;
export const WAVE_FORMAT_EXTENSIBLE = 0xfffe;

export interface WavInfo {
  /** The format tag; for WAVE_FORMAT_EXTENSIBLE files, the sub-format's tag. */
  formatTag: number;
  channels: number;
  sampleRate: number;
  bitsPerSample: number;
  blockAlign: number;
  /** The audio bytes (a view into the input, whole blocks only). */
  data: Uint8Array;
  /** The `data` chunk claimed more bytes than the file holds. */
  truncated: boolean;
}

/** The `data` size that streaming writers leave when they never come back to fill it in. */
const UNKNOWN_SIZE = 0xffffffff;

function fourcc(bytes: Uint8Array, offset: number): string {
  return String.fromCharCode(bytes[offset], bytes[offset + 1], bytes[offset + 2], bytes[offset + 3]);
}

export function parseWav(file: Uint8Array): WavInfo {
  const view = new DataView(file.buffer, file.byteOffset, file.byteLength);
  if (file.length < 12) throw new WavFormatError(`not a WAV file: ${file.length} bytes is shorter than a RIFF header`);
  const riff = fourcc(file, 0);
  if (riff === 'RIFX') throw new WavFormatError('big-endian (RIFX) WAV files are not supported');
  if (riff !== 'RIFF' || fourcc(file, 8) !== 'WAVE') throw new WavFormatError('not a WAV file: no RIFF/WAVE header');

  let fmt: Omit<WavInfo, 'data' | 'truncated'> | undefined;
  let offset = 12;
  while (offset + 8 <= file.length) {
    const id = fourcc(file, offset);
    const size = view.getUint32(offset + 4, true);
    const body = offset + 8;

    if (id === 'fmt ') {
      if (size < 16) throw new WavFormatError(`WAV fmt chunk is ${size} bytes, needs at least 16`);
      if (body + size > file.length) throw new WavFormatError('WAV file is truncated inside its fmt chunk');
      let formatTag = view.getUint16(body, true);
      // WAVE_FORMAT_EXTENSIBLE keeps the real format in the first two bytes of its sub-format GUID.
      if (formatTag === WAVE_FORMAT_EXTENSIBLE && size >= 40) formatTag = view.getUint16(body + 24, true);
      fmt = {
        formatTag,
        channels: view.getUint16(body + 2, true),
        sampleRate: view.getUint32(body + 4, true),
        blockAlign: view.getUint16(body + 12, true),
        bitsPerSample: view.getUint16(body + 14, true),
      };
    } else if (id === 'data') {
      if (fmt === undefined) throw new WavFormatError('WAV data chunk comes before its fmt chunk');
      const available = file.length - body;
      const claimed = size === UNKNOWN_SIZE ? available : size;
      const length = Math.min(claimed, available);
      const block = Math.max(1, fmt.blockAlign);
      const whole = length - (length % block);
      return { ...fmt, data: file.subarray(body, body + whole), truncated: claimed > available };
    }
    // Chunks are padded to an even length (RIFF: "pad byte if chunk size is odd").
    offset = body + size + (size & 1);
  }
  if (fmt === undefined) throw new WavFormatError('WAV file has no fmt chunk (truncated header?)');
  throw new WavFormatError('WAV file has no data chunk (truncated?)');
}

/** The 16-bit little-endian samples of `data` as an Int16Array (a copy, aligned and host-endian). */
export function pcm16Samples(data: Uint8Array): Int16Array {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const samples = new Int16Array(data.length >> 1);
  for (let i = 0; i < samples.length; i += 1) samples[i] = view.getInt16(i * 2, true);
  return samples;
}
