/** The far end of a leg in integration tests: a real UDP socket on loopback that records what arrives. */
import dgram from 'node:dgram';
import { type RtpPacketInfo, parseRtpPacket } from '../rtp/rtp-header.js';

export interface ReceivedPacket {
  info: RtpPacketInfo;
  payload: Uint8Array;
  /** performance.now() on arrival. */
  at: number;
}

export class FarEnd {
  readonly packets: ReceivedPacket[] = [];
  readonly #socket: dgram.Socket;

  private constructor(socket: dgram.Socket) {
    this.#socket = socket;
    socket.on('message', (datagram) => {
      const parsed = parseRtpPacket(datagram);
      if (!parsed.ok) return;
      const { payloadOffset, payloadLength } = parsed.packet;
      this.packets.push({
        info: parsed.packet,
        payload: datagram.subarray(payloadOffset, payloadOffset + payloadLength),
        at: performance.now(),
      });
    });
  }

  static async open(): Promise<FarEnd> {
    const socket = dgram.createSocket('udp4');
    await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
    return new FarEnd(socket);
  }

  get port(): number {
    return this.#socket.address().port;
  }

  send(datagram: Uint8Array, port: number): Promise<void> {
    return new Promise((resolve, reject) => this.#socket.send(datagram, port, '127.0.0.1', (error) => (error ? reject(error) : resolve())));
  }

  close(): void {
    this.#socket.close();
  }
}
