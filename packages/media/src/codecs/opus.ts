/**
 * Opus (RFC 6716) through `@discordjs/opus`, framed per RFC 7587: the RTP clock is always 48000,
 * we send mono 20 ms frames (960 samples). The native binding is loaded on first need with
 * `require` inside a try, so a machine where it did not build still runs every other codec:
 * `opusAvailable()` is then false and the reason is kept for the caller to log once.
 *
 * Concealment repeats the last frame at half level. The binding's decoder offers no way to ask
 * for a 20 ms PLC frame (an empty packet makes it conceal a full 120 ms and advance its state by
 * that much), so it is not used.
 */
import { createRequire } from 'node:module';
import type { AudioCodec } from './codec.js';

interface NativeOpus {
  encode(pcm: Buffer): Buffer;
  decode(packet: Buffer): Buffer;
  setBitrate(bitrate: number): void;
}

type NativeOpusConstructor = new (rate: number, channels: number) => NativeOpus;

const OPUS_RATE = 48000;
const FRAME_SAMPLES = 960;
/** RFC 7587 §7.1 leaves the rate to the sender; 32 kbit/s is transparent for wideband speech. */
const DEFAULT_BITRATE = 32000;

let loaded: { ctor: NativeOpusConstructor } | { error: string } | null = null;

function load(): { ctor: NativeOpusConstructor } | { error: string } {
  if (loaded === null) {
    try {
      const module = createRequire(import.meta.url)('@discordjs/opus') as { OpusEncoder?: NativeOpusConstructor };
      loaded =
        typeof module.OpusEncoder === 'function' ? { ctor: module.OpusEncoder } : { error: '@discordjs/opus has no OpusEncoder export' };
    } catch (error) {
      loaded = { error: `@discordjs/opus did not load: ${error instanceof Error ? error.message : String(error)}` };
    }
  }
  return loaded;
}

export function opusAvailable(): boolean {
  return 'ctor' in load();
}

/** Why Opus is unavailable, or null when it loaded. */
export function opusLoadError(): string | null {
  const state = load();
  return 'error' in state ? state.error : null;
}

class OpusCodec implements AudioCodec {
  readonly name = 'opus' as const;
  readonly clockRate = OPUS_RATE;
  readonly sampleRate = OPUS_RATE;
  readonly frameSamples = FRAME_SAMPLES;
  readonly #encoder: NativeOpus;
  readonly #decoder: NativeOpus;
  #last: Int16Array = new Int16Array(FRAME_SAMPLES);

  constructor(ctor: NativeOpusConstructor) {
    this.#encoder = new ctor(OPUS_RATE, 1);
    this.#encoder.setBitrate(DEFAULT_BITRATE);
    this.#decoder = new ctor(OPUS_RATE, 1);
  }

  encode(pcm: Int16Array): Uint8Array {
    const packet = this.#encoder.encode(Buffer.from(pcm.buffer, pcm.byteOffset, pcm.byteLength));
    return new Uint8Array(packet.buffer, packet.byteOffset, packet.byteLength);
  }

  /** A payload the decoder rejects (corrupt, empty) is concealed rather than thrown. */
  decode(payload: Uint8Array): Int16Array {
    if (payload.length === 0) return this.conceal();
    let pcm: Buffer;
    try {
      pcm = this.#decoder.decode(Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength));
    } catch {
      return this.conceal();
    }
    // Copy out: the binding's Buffer may not be aligned for an Int16Array view.
    const out = new Int16Array(pcm.length >> 1);
    for (let i = 0; i < out.length; i += 1) out[i] = pcm.readInt16LE(i * 2);
    this.#last = out;
    return out;
  }

  conceal(): Int16Array {
    const out = new Int16Array(FRAME_SAMPLES);
    for (let i = 0; i < out.length; i += 1) out[i] = (this.#last[i] ?? 0) >> 1;
    this.#last = out;
    return out;
  }
}

/** Creates an Opus codec; throws when the native binding is unavailable (check `opusAvailable()`). */
export function createOpusCodec(): AudioCodec {
  const state = load();
  if ('error' in state) throw new Error(state.error);
  return new OpusCodec(state.ctor);
}
