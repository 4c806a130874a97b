/**
 * The RIFF/WAVE header of a recording: 16-bit linear PCM, mono, 8000 Hz (the canonical 44-byte
 * layout: RIFF, `fmt ` with 16 bytes, `data`). The header is written with a zero length when a
 * recording starts and rewritten with the real lengths when it ends, so a recording cut off by a
 * crash is still a readable WAV file (readers take a zero or short `data` length as "read to the end").
 */

export const WAV_HEADER_BYTES = 44;
export const RECORDING_RATE = 8000;

/** The canonical header for `dataBytes` of 16-bit mono PCM at `sampleRate`. */
export function wavHeader(dataBytes: number, sampleRate = RECORDING_RATE): Uint8Array {
  const header = new Uint8Array(WAV_HEADER_BYTES);
  const view = new DataView(header.buffer);
  const ascii = (offset: number, text: string): void => {
    for (let i = 0; i < 4; i += 1) header[offset + i] = text.charCodeAt(i);
  };
  ascii(0, 'RIFF');
  view.setUint32(4, 36 + dataBytes, true); // RIFF size counts everything after these 8 bytes
  ascii(8, 'WAVE');
  ascii(12, 'fmt ');
  view.setUint32(16, 16, true);
  view.setUint16(20, 1, true); // WAVE_FORMAT_PCM
  view.setUint16(22, 1, true); // mono
  view.setUint32(24, sampleRate, true);
  view.setUint32(28, sampleRate * 2, true); // byte rate
  view.setUint16(32, 2, true); // block align
  view.setUint16(34, 16, true); // bits per sample
  ascii(36, 'data');
  view.setUint32(40, dataBytes, true);
  return header;
}

export interface WavDataLocation {
  /** Offset of the first audio byte. */
  dataOffset: number;
  /** Audio bytes present (the declared size, or what the file holds when the header was never fixed). */
  dataBytes: number;
}

export class WavAppendError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'WavAppendError';
  }
}

/**
 * Where an existing recording's audio is, so that an append extends its `data` chunk. `head` is
 * the beginning of the file and `fileSize` its length. Only a file we could have written is
 * accepted (16-bit mono PCM at our rate, `data` as the last chunk): appending other audio would
 * corrupt it.
 */
export function locateWavData(head: Uint8Array, fileSize: number, sampleRate = RECORDING_RATE): WavDataLocation {
  const view = new DataView(head.buffer, head.byteOffset, head.byteLength);
  const fourcc = (offset: number): string => String.fromCharCode(head[offset], head[offset + 1], head[offset + 2], head[offset + 3]);
  if (head.length < 12 || fourcc(0) !== 'RIFF' || fourcc(8) !== 'WAVE')
    throw new WavAppendError('cannot append: the file is not a WAV file');
  let offset = 12;
  let formatOk = false;
  while (offset + 8 <= head.length) {
    const id = fourcc(offset);
    const size = view.getUint32(offset + 4, true);
    if (id === 'fmt ') {
      if (offset + 24 > head.length) break;
      const tag = view.getUint16(offset + 8, true);
      const channels = view.getUint16(offset + 10, true);
      const rate = view.getUint32(offset + 12, true);
      const bits = view.getUint16(offset + 22, true);
      if (tag !== 1 || channels !== 1 || rate !== sampleRate || bits !== 16) {
        throw new WavAppendError(
          `cannot append: the file is ${channels}-channel ${bits}-bit format ${tag} at ${rate} Hz, recordings are 16-bit mono PCM at ${sampleRate} Hz`,
        );
      }
      formatOk = true;
    } else if (id === 'data') {
      if (!formatOk) throw new WavAppendError('cannot append: the WAV data chunk comes before its fmt chunk');
      const dataOffset = offset + 8;
      const present = Math.max(0, fileSize - dataOffset);
      // Appending past the data chunk would overwrite whatever chunk follows it (a LIST, a cue list).
      if (size !== 0 && size !== 0xffffffff && dataOffset + size + (size & 1) < fileSize) {
        throw new WavAppendError('cannot append: the WAV data chunk is not the last chunk of the file');
      }
      // A header never fixed (crash) says 0: trust the file's length instead.
      const declared = size === 0 || size === 0xffffffff ? present : Math.min(size, present);
      return { dataOffset, dataBytes: declared - (declared % 2) };
    }
    offset += 8 + size + (size & 1);
  }
  throw new WavAppendError('cannot append: no WAV data chunk in the first bytes of the file');
}

/** The two length fields to rewrite when a recording ends: [file offset, value] pairs. */
export function wavLengthFields(location: WavDataLocation): Array<[number, number]> {
  return [
    [4, location.dataOffset + location.dataBytes - 8],
    [location.dataOffset - 4, location.dataBytes],
  ];
}
