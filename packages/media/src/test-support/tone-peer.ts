/**
 * A far-end phone for bridge tests: a FarEnd socket that sends a continuous PCMU sine every 20 ms
 * to a leg, and helpers to measure which tones arrived (Goertzel) in what it received.
 */
import { decodeAlaw, decodeUlaw, encodeAlaw, encodeUlaw } from '../codecs/g711.js';
import { toneAmplitude } from '../dsp/goertzel.js';
import { RTP_HEADER_SIZE, writeRtpHeader } from '../rtp/rtp-header.js';
import { FarEnd } from './far-end.js';

export class TonePeer {
  readonly far: FarEnd;
  #timer: NodeJS.Timeout | null = null;
  #sequence = 1;
  #timestamp = 0;
  readonly #ssrc = Math.floor(Math.random() * 0xffffffff);

  /** G.711 flavour this phone speaks: PCMU (payload type 0) or PCMA (8), RFC 3551 §6. */
  readonly codec: 'PCMU' | 'PCMA';
  readonly #payloadType: number;

  private constructor(far: FarEnd, codec: 'PCMU' | 'PCMA') {
    this.codec = codec;
    this.#payloadType = codec === 'PCMU' ? 0 : 8;
    this.far = far;
  }

  static async open(codec: 'PCMU' | 'PCMA' = 'PCMU'): Promise<TonePeer> {
    return new TonePeer(await FarEnd.open(), codec);
  }

  get port(): number {
    return this.far.port;
  }

  /** Sends `frequencyHz` (0: silence; several: their sum) to `legPort` every 20 ms until `stop()`. */
  sendTone(legPort: number, frequencyHz: number | number[], amplitude = 8000): void {
    const frequencies = typeof frequencyHz === 'number' ? [frequencyHz] : frequencyHz;
    this.stop();
    let n = 0;
    const send = (): void => {
      const packet = new Uint8Array(RTP_HEADER_SIZE + 160);
      writeRtpHeader(packet, {
        payloadType: this.#payloadType,
        marker: n === 0,
        sequenceNumber: this.#sequence,
        timestamp: this.#timestamp,
        ssrc: this.#ssrc,
      });
      const pcm = new Int16Array(160);
      for (let i = 0; i < 160; i += 1) {
        let value = 0;
        for (const f of frequencies) value += amplitude * Math.sin((2 * Math.PI * f * (this.#timestamp + i)) / 8000);
        pcm[i] = Math.round(value);
      }
      if (this.codec === 'PCMU') encodeUlaw(pcm, packet, RTP_HEADER_SIZE);
      else encodeAlaw(pcm, packet, RTP_HEADER_SIZE);
      this.#sequence = (this.#sequence + 1) & 0xffff;
      this.#timestamp = (this.#timestamp + 160) >>> 0;
      n += 1;
      void this.far.send(packet, legPort).catch(() => {});
    };
    send();
    this.#timer = setInterval(send, 20);
  }

  stop(): void {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
  }

  /** The decoded audio of audio packets (PT 0) received after `sinceMs` (performance.now). */
  audioSince(sinceMs: number): Int16Array {
    const packets = this.far.packets.filter((p) => p.at >= sinceMs && p.info.payloadType === this.#payloadType);
    const out = new Int16Array(packets.length * 160);
    const decode = this.codec === 'PCMU' ? decodeUlaw : decodeAlaw;
    for (const [index, p] of packets.entries()) decode(p.payload.subarray(0, 160), out, index * 160);
    return out;
  }

  /** Amplitude of each frequency in what arrived since `sinceMs`. */
  levels(sinceMs: number, frequencies: number[]): Record<number, number> {
    const audio = this.audioSince(sinceMs);
    const result: Record<number, number> = {};
    for (const f of frequencies) result[f] = audio.length === 0 ? 0 : toneAmplitude(audio, f, 8000);
    return result;
  }

  close(): void {
    this.stop();
    this.far.close();
  }
}
