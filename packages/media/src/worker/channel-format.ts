/**
 * The format of a helper channel between the bridge and its media: the announcer that plays into
 * a bridge (`announcer_format`) and the recorder that listens to it (`recorder_format`). The format
 * fixes the rate the audio crosses at and, for a codec, its quantisation: audio through a `ulaw`
 * announcer is G.711 μ-law audio at 8 kHz (ITU-T G.711), through `g722` it is G.722 at 16 kHz
 * (ITU-T G.722, 64 kbit/s), through `slin16` plain 16 kHz linear PCM. `slin` is 8 kHz, as in
 * the reference's format names.
 */
import { type AudioCodec, createCodec } from '../codecs/index.js';
import { decodeAlaw, decodeUlaw, encodeAlaw, encodeUlaw } from '../codecs/g711.js';
import { RateConverter } from '../dsp/rate-converter.js';
import type { ResampleRate } from '../dsp/resampler.js';
import type { ChannelFormat } from '@switchboard/media-control';

export const CHANNEL_FORMATS: readonly ChannelFormat[] = ['slin', 'slin8', 'slin16', 'slin48', 'ulaw', 'alaw', 'g722'];

export function isChannelFormat(value: string): value is ChannelFormat {
  return (CHANNEL_FORMATS as readonly string[]).includes(value);
}

/** The rate audio crosses a channel of `format` at. */
export function channelFormatRate(format: ChannelFormat): ResampleRate {
  switch (format) {
    case 'slin16':
    case 'g722':
      return 16000;
    case 'slin48':
      return 48000;
    default:
      return 8000;
  }
}

/** Takes frames at any engine rate to the format's rate, and through its codec when it has one. */
export class FormatQuantiser {
  readonly format: ChannelFormat;
  readonly rate: ResampleRate;
  readonly #path = new RateConverter();
  readonly #codec: { encoder: AudioCodec; decoder: AudioCodec } | null;

  constructor(format: ChannelFormat) {
    this.format = format;
    this.rate = channelFormatRate(format);
    // One encoder/decoder pair for the stream: G.722 is adaptive (ADPCM state carries across frames).
    this.#codec = format === 'g722' ? { encoder: createCodec('G722'), decoder: createCodec('G722') } : null;
  }

  /** A new frame of `frame` as it sounds after crossing the channel, at the format's rate. */
  apply(frame: Int16Array): Int16Array {
    const atRate = this.#path.convert(frame, this.rate);
    switch (this.format) {
      case 'ulaw': {
        const codes = new Uint8Array(atRate.length);
        encodeUlaw(atRate, codes);
        const out = new Int16Array(atRate.length);
        decodeUlaw(codes, out);
        return out;
      }
      case 'alaw': {
        const codes = new Uint8Array(atRate.length);
        encodeAlaw(atRate, codes);
        const out = new Int16Array(atRate.length);
        decodeAlaw(codes, out);
        return out;
      }
      case 'g722': {
        const codec = this.#codec;
        if (codec === null || atRate.length !== codec.encoder.frameSamples) return atRate.slice();
        return codec.decoder.decode(codec.encoder.encode(atRate));
      }
      default:
        return atRate === frame ? frame.slice() : atRate;
    }
  }
}
