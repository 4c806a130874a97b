/**
 * L16 (RFC 3551 §4.5.11): uncompressed 16-bit signed linear PCM, network byte order (big-endian).
 * The RTP clock rate equals the sample rate. The engine registers `L16` at 8000 Hz (the rate the
 * SDP `L16/8000` names); `createL16Codec(16000)` gives the `L16/16000` variant for callers that
 * negotiate it, since `AudioCodecName` carries no rate.
 */
import type { AudioCodec } from './codec.js';
import { CODEC_FRAME_MS } from './codec.js';

export type L16Rate = 8000 | 16000 | 48000;

class L16Codec implements AudioCodec {
  readonly name = 'L16' as const;
  readonly clockRate: number;
  readonly sampleRate: number;
  readonly frameSamples: number;
  #last: Int16Array;

  constructor(rate: L16Rate) {
    this.clockRate = rate;
    this.sampleRate = rate;
    this.frameSamples = (rate * CODEC_FRAME_MS) / 1000;
    this.#last = new Int16Array(this.frameSamples);
  }

  encode(pcm: Int16Array): Uint8Array {
    const out = new Uint8Array(pcm.length * 2);
    const view = new DataView(out.buffer);
    for (let i = 0; i < pcm.length; i += 1) view.setInt16(i * 2, pcm[i], false);
    return out;
  }

  /** A trailing odd byte cannot form a sample and is ignored. */
  decode(payload: Uint8Array): Int16Array {
    const count = payload.length >> 1;
    const out = new Int16Array(count);
    const view = new DataView(payload.buffer, payload.byteOffset, payload.byteLength);
    for (let i = 0; i < count; i += 1) out[i] = view.getInt16(i * 2, false);
    this.#last = out;
    return out;
  }

  /** Repeats the last frame at half level (no codec-level concealment exists for raw PCM). */
  conceal(): Int16Array {
    const out = new Int16Array(this.frameSamples);
    for (let i = 0; i < out.length; i += 1) out[i] = (this.#last[i] ?? 0) >> 1;
    this.#last = out;
    return out;
  }
}

export function createL16Codec(rate: L16Rate = 8000): AudioCodec {
  return new L16Codec(rate);
}
