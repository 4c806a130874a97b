/**
 * The one shape every audio codec has inside the engine, so that legs, mixers and recorders never
 * care which codec a peer negotiated. Codec instances are stateful (G.722 and Opus keep predictor
 * state between frames): create one encoder/decoder pair per leg and direction.
 */
import type { AudioCodecName } from '@switchboard/media-control';
import { decodeAlaw, decodeUlaw, encodeAlaw, encodeUlaw } from './g711.js';

/** Frame length of every codec in the engine (RFC 3551 §4.2 default packetisation). */
export const CODEC_FRAME_MS = 20;

export interface AudioCodec {
  readonly name: AudioCodecName;
  /** RTP timestamp rate (G.722 keeps 8000 by RFC 3551 §4.5.2 although it samples at 16 kHz). */
  readonly clockRate: number;
  /** Rate of the linear PCM this codec encodes from and decodes to. */
  readonly sampleRate: number;
  /** Samples per 20 ms frame at `sampleRate`. */
  readonly frameSamples: number;
  /** Encodes exactly one frame of `frameSamples` samples. */
  encode(pcm: Int16Array): Uint8Array;
  /** Decodes one RTP payload to linear PCM at `sampleRate`. */
  decode(payload: Uint8Array): Int16Array;
  /** A frame to play in place of a lost packet (silence when the codec has no concealment). */
  conceal(): Int16Array;
}

class G711Codec implements AudioCodec {
  readonly clockRate = 8000;
  readonly sampleRate = 8000;
  readonly frameSamples = 160;
  readonly name: 'PCMU' | 'PCMA';
  readonly #encode: typeof encodeUlaw;
  readonly #decode: typeof decodeUlaw;
  #last = new Int16Array(160);

  constructor(name: 'PCMU' | 'PCMA') {
    this.name = name;
    this.#encode = name === 'PCMU' ? encodeUlaw : encodeAlaw;
    this.#decode = name === 'PCMU' ? decodeUlaw : decodeAlaw;
  }

  encode(pcm: Int16Array): Uint8Array {
    const out = new Uint8Array(pcm.length);
    this.#encode(pcm, out);
    return out;
  }

  decode(payload: Uint8Array): Int16Array {
    const out = new Int16Array(payload.length);
    this.#decode(payload, out);
    this.#last = out;
    return out;
  }

  /** Repeats the last frame at half level: cheap concealment that beats a hole for one lost packet. */
  conceal(): Int16Array {
    const out = new Int16Array(this.frameSamples);
    for (let i = 0; i < out.length; i++) out[i] = (this.#last[i] ?? 0) >> 1;
    this.#last = out;
    return out;
  }
}

type CodecFactory = () => AudioCodec;

const FACTORIES = new Map<AudioCodecName, CodecFactory>([
  ['PCMU', () => new G711Codec('PCMU')],
  ['PCMA', () => new G711Codec('PCMA')],
]);

/** Makes other codecs available (G.722, L16, Opus register themselves from their own files). */
export function registerCodec(name: AudioCodecName, factory: CodecFactory): void {
  FACTORIES.set(name, factory);
}

export function isCodecSupported(name: AudioCodecName): boolean {
  return FACTORIES.has(name);
}

export function createCodec(name: AudioCodecName): AudioCodec {
  const factory = FACTORIES.get(name);
  if (!factory) throw new Error(`codec ${name} is not available`);
  return factory();
}
