/** A real UDP RTP receiver for end-to-end tests: records what the server sends to a phone. */
import { createSocket, type Socket } from 'node:dgram';
import { performance } from 'node:perf_hooks';

export interface ReceivedPacket {
  at: number;
  payloadType: number;
  marker: boolean;
  sequence: number;
  timestamp: number;
  ssrc: number;
  payload: Buffer;
}

/** Reads the RTP header fields a test checks; anything that is not RTP version 2 is ignored. */
export function parseRtp(msg: Buffer): ReceivedPacket | undefined {
  if (msg.length < 12 || msg[0] >> 6 !== 2) return undefined;
  const csrcCount = msg[0] & 0x0f;
  return {
    at: performance.now(),
    payloadType: msg[1] & 0x7f,
    marker: (msg[1] & 0x80) !== 0,
    sequence: msg.readUInt16BE(2),
    timestamp: msg.readUInt32BE(4),
    ssrc: msg.readUInt32BE(8),
    payload: msg.subarray(12 + 4 * csrcCount),
  };
}

export class RtpReceiver {
  readonly packets: ReceivedPacket[] = [];
  readonly #socket: Socket;
  port = 0;

  private constructor(socket: Socket) {
    this.#socket = socket;
    socket.on('message', (msg) => {
      const packet = parseRtp(msg);
      if (packet) this.packets.push(packet);
    });
  }

  static async open(): Promise<RtpReceiver> {
    const socket = createSocket('udp4');
    const receiver = new RtpReceiver(socket);
    await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
    receiver.port = socket.address().port;
    return receiver;
  }

  close(): void {
    this.#socket.close();
  }

  /** Gaps between consecutive packets in milliseconds. */
  gaps(): number[] {
    const gaps: number[] = [];
    for (let i = 1; i < this.packets.length; i++) gaps.push(this.packets[i].at - this.packets[i - 1].at);
    return gaps;
  }
}

/** G.711 µ-law byte → 16-bit linear sample (ITU-T G.711), used to check that audio is not silence. */
export function ulawToLinear(byte: number): number {
  const u = ~byte & 0xff;
  const sign = u & 0x80;
  const exponent = (u >> 4) & 0x07;
  const mantissa = u & 0x0f;
  const magnitude = (((mantissa << 3) + 0x84) << exponent) - 0x84;
  return sign ? -magnitude : magnitude;
}

export function rms(payloads: Buffer[]): number {
  let sum = 0;
  let count = 0;
  for (const payload of payloads) {
    for (const byte of payload) {
      const s = ulawToLinear(byte);
      sum += s * s;
      count += 1;
    }
  }
  return count === 0 ? 0 : Math.sqrt(sum / count);
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length === 0 ? Number.NaN : sorted[Math.floor(sorted.length / 2)];
}
