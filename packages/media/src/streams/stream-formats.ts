/**
 * The audio formats a stream carries, and how each crosses the RTP leg of the engine: µ-law is
 * PCMU (RFC 3551 §4.5.14) byte for byte; signed linear is L16 (RFC 3551 §4.5.11), which RTP
 * carries big-endian while WebSocket media and AudioSocket carry it little-endian.
 */
import type { OpenedStream, StreamFormat } from './stream-types.js';

export const STREAM_FRAME_MS = 20;

export interface StreamFormatInfo {
  readonly sampleRate: number;
  /** Bytes of one 20 ms frame on the application's connection. */
  readonly frameBytes: number;
  /** The byte that makes silence (µ-law 0xff, linear 0). */
  readonly silence: number;
  /** Linear formats swap byte order between RTP and the application. */
  readonly swapBytes: boolean;
  readonly codec: OpenedStream['codec'];
  /** AudioSocket's message kind for this format, when it has one. */
  readonly audioSocketKind?: number;
}

export const STREAM_FORMATS: Readonly<Record<StreamFormat, StreamFormatInfo>> = {
  ulaw: { sampleRate: 8000, frameBytes: 160, silence: 0xff, swapBytes: false, codec: { name: 'PCMU', payloadType: 0, clockRate: 8000 } },
  slin: {
    sampleRate: 8000,
    frameBytes: 320,
    silence: 0,
    swapBytes: true,
    codec: { name: 'L16', payloadType: 117, clockRate: 8000 },
    audioSocketKind: 0x10,
  },
  slin16: {
    sampleRate: 16000,
    frameBytes: 640,
    silence: 0,
    swapBytes: true,
    codec: { name: 'L16', payloadType: 118, clockRate: 16000 },
    audioSocketKind: 0x12,
  },
};

/** A copy of `data` with each 16-bit sample's bytes swapped (an odd trailing byte is dropped). */
export function swap16(data: Uint8Array): Buffer {
  const length = data.length & ~1;
  const out = Buffer.allocUnsafe(length);
  for (let i = 0; i < length; i += 2) {
    out[i] = data[i + 1] as number;
    out[i + 1] = data[i] as number;
  }
  return out;
}
