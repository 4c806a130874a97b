/**
 * G.722 as an engine codec. RFC 3551 §4.5.2: the RTP clock runs at 8000 Hz although the codec
 * samples at 16 kHz (an erratum kept for compatibility), so a 20 ms frame is 320 samples, 160
 * octets, and advances the RTP timestamp by 160.
 */
import type { AudioCodec } from './codec.js';
import { G722Decoder, G722Encoder } from './g722.js';

class G722Codec implements AudioCodec {
  readonly name = 'G722' as const;
  readonly clockRate = 8000;
  readonly sampleRate = 16000;
  readonly frameSamples = 320;
  readonly #encoder = new G722Encoder();
  readonly #decoder = new G722Decoder();
  #last: Int16Array = new Int16Array(320);

  encode(pcm: Int16Array): Uint8Array {
    return this.#encoder.encode(pcm.length % 2 === 0 ? pcm : pcm.subarray(0, pcm.length - 1));
  }

  decode(payload: Uint8Array): Int16Array {
    const out = this.#decoder.decode(payload);
    this.#last = out;
    return out;
  }

  /** Repeats the last frame at half level; the decoder's predictors keep their state. */
  conceal(): Int16Array {
    const out = new Int16Array(this.frameSamples);
    for (let i = 0; i < out.length; i += 1) out[i] = (this.#last[i] ?? 0) >> 1;
    this.#last = out;
    return out;
  }
}

export function createG722Codec(): AudioCodec {
  return new G722Codec();
}
