/**
 * A phone's media side for end-to-end tests: one UDP socket that receives what the server sends
 * and, once it knows where the server's leg is (the source of the first packet it received, as
 * symmetric RTP does), sends PCMU audio back to it.
 */
import { createSocket, type RemoteInfo, type Socket } from 'node:dgram';
import { parseRtp, type ReceivedPacket, rms } from './rtp-receiver.js';

const SAMPLE_RATE = 8000;
const FRAME_SAMPLES = 160;

export class RtpPeer {
  readonly packets: ReceivedPacket[] = [];
  port = 0;
  /** Where the server's leg sends from: where we send to. */
  remote: { address: string; port: number } | undefined;
  readonly #socket: Socket;
  readonly #ssrc = Math.floor(Math.random() * 0xffffffff) >>> 0;
  #sequence = Math.floor(Math.random() * 0xffff);
  #timestamp = Math.floor(Math.random() * 0xffffffff) >>> 0;

  protected constructor(socket: Socket) {
    this.#socket = socket;
    socket.on('message', (msg: Buffer, rinfo: RemoteInfo) => {
      const packet = parseRtp(msg);
      if (!packet) return;
      this.remote ??= { address: rinfo.address, port: rinfo.port };
      this.packets.push(packet);
    });
  }

  static async open(): Promise<RtpPeer> {
    return await RtpPeer.bind((socket) => new RtpPeer(socket));
  }

  /** Binds a peer of any kind to a fresh loopback port. */
  protected static async bind<P extends RtpPeer>(make: (socket: Socket) => P): Promise<P> {
    const socket = createSocket('udp4');
    const peer = make(socket);
    await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
    peer.port = socket.address().port;
    return peer;
  }

  /** Loudness of what arrived after `since` (performance.now() time). */
  loudnessSince(since: number): number {
    return rms(this.packets.filter((p) => p.at >= since).map((p) => p.payload));
  }

  /** Sends a sine tone as PCMU, one 20 ms packet every 20 ms, for `ms` milliseconds. */
  async sendTone(frequency: number, ms: number): Promise<void> {
    let phase = 0;
    await this.sendFrames(ms, 0, FRAME_SAMPLES, () => {
      const payload = Buffer.alloc(FRAME_SAMPLES);
      for (let s = 0; s < FRAME_SAMPLES; s++) {
        payload[s] = linearToUlaw(Math.round(8000 * Math.sin(phase)));
        phase += (2 * Math.PI * frequency) / SAMPLE_RATE;
      }
      return payload;
    });
  }

  /**
   * Sends one DTMF digit as RFC 4733 telephone events (payload type `payloadType`): one packet
   * every 20 ms with the same timestamp and a growing duration, the last three with the E bit
   * (RFC 4733 §2.5.1.4), then moves the timestamp on so the next digit is a new event.
   */
  async sendDtmf(digit: string, payloadType = 101, ms = 120): Promise<void> {
    const event = '0123456789*#ABCD'.indexOf(digit.toUpperCase());
    if (event < 0) throw new Error(`not a DTMF digit: ${digit}`);
    const frames = Math.round(ms / 20);
    let sent = 0;
    await this.sendFrames(ms + 40, payloadType, 0, () => {
      sent += 1;
      const payload = Buffer.alloc(4);
      payload[0] = event;
      payload[1] = (sent >= frames ? 0x80 : 0) | 10;
      payload.writeUInt16BE(Math.min(sent, frames) * FRAME_SAMPLES, 2);
      return payload;
    });
    this.#timestamp = (this.#timestamp + (frames + 10) * FRAME_SAMPLES) >>> 0;
  }

  /**
   * Sends one RTP packet every 20 ms for `ms` milliseconds to where the server's leg sends from,
   * the payload of each from `payload()`, the timestamp advancing by `timestampStep`.
   */
  protected async sendFrames(ms: number, payloadType: number, timestampStep: number, payload: () => Uint8Array): Promise<void> {
    const remote = this.remote;
    if (!remote) throw new Error('the server has not sent anything yet: its RTP address is unknown');
    const frames = Math.round(ms / 20);
    const start = performance.now();
    for (let i = 0; i < frames; i++) {
      const header = Buffer.alloc(12);
      header[0] = 0x80;
      header[1] = (i === 0 ? 0x80 : 0) | payloadType; // marker on the first packet
      header.writeUInt16BE(this.#sequence & 0xffff, 2);
      header.writeUInt32BE(this.#timestamp >>> 0, 4);
      header.writeUInt32BE(this.#ssrc, 8);
      this.#sequence += 1;
      this.#timestamp = (this.#timestamp + timestampStep) >>> 0;
      this.#socket.send(Buffer.concat([header, payload()]), remote.port, remote.address);
      // Paced by the wall clock against the start, so timer drift does not accumulate.
      const wait = start + (i + 1) * 20 - performance.now();
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }

  close(): void {
    this.#socket.close();
  }
}

/** 16-bit linear sample → G.711 µ-law byte (ITU-T G.711, with the usual bias of 0x84). */
export function linearToUlaw(sample: number): number {
  const BIAS = 0x84;
  const CLIP = 32635;
  const sign = sample < 0 ? 0x80 : 0;
  const magnitude = Math.min(Math.abs(sample), CLIP) + BIAS;
  let exponent = 7;
  for (let mask = 0x4000; (magnitude & mask) === 0 && exponent > 0; mask >>= 1) exponent -= 1;
  const mantissa = (magnitude >> (exponent + 3)) & 0x0f;
  return ~(sign | (exponent << 4) | mantissa) & 0xff;
}
