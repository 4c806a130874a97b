/**
 * A phone's video side for end-to-end tests: an RTP socket on an even port and its RTCP socket on
 * the next one, on loopback. It records the RTP that arrives and counts RTCP keyframe requests
 * (PLI, RFC 4585 §6.3.1; FIR, RFC 5104 §4.3.1: payload-specific feedback, packet type 206), and
 * sends fake VP8 packets (a payload descriptor and filler bytes; nobody decodes them) with its
 * own SSRC. It also keeps the reports (RFC 3550 §6.4: SR, PT 200, or RR, PT 201, first in a compound)
 * the server sends it: who sent each and which SSRCs its report blocks are about.
 */
import { createSocket, type Socket } from 'node:dgram';
import { parseRtp, type ReceivedPacket } from './rtp-receiver.js';

const RTCP_PSFB = 206;
const RTCP_SR = 200;
const RTCP_RR = 201;

/** A compound RTCP report: its head (SR or RR), the head's sender and the SSRCs its report blocks are about. */
export interface ReceivedReport {
  type: 'sr' | 'rr';
  ssrc: number;
  about: number[];
  /** Every SR of the compound (one per stream the server sends this phone). */
  senders: number[];
}

function bind(socket: Socket, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    socket.once('error', () => resolve(false));
    socket.bind(port, '127.0.0.1', () => resolve(true));
  });
}

export class VideoPeer {
  readonly received: ReceivedPacket[] = [];
  keyframeRequests = 0;
  readonly reports: ReceivedReport[] = [];
  readonly ssrc = (Math.floor(Math.random() * 0xfffffff0) + 1) >>> 0;
  readonly #rtp: Socket;
  readonly #rtcp: Socket;
  readonly #payloadType: number;
  #sequence = Math.floor(Math.random() * 0xffff);
  #timestamp = Math.floor(Math.random() * 0xffffffff) >>> 0;

  private constructor(rtp: Socket, rtcp: Socket, payloadType: number) {
    this.#rtp = rtp;
    this.#rtcp = rtcp;
    this.#payloadType = payloadType;
    rtp.on('message', (msg: Buffer) => {
      const packet = parseRtp(msg);
      if (packet) this.received.push(packet);
    });
    rtcp.on('message', (msg: Buffer) => {
      const first = msg.length >= 8 ? msg[1] : 0;
      if (first === RTCP_SR || first === RTCP_RR) {
        const blocksAt = first === RTCP_SR ? 28 : 8;
        const about: number[] = [];
        for (let i = 0; i < (msg[0] & 0x1f) && blocksAt + i * 24 + 4 <= msg.length; i += 1) about.push(msg.readUInt32BE(blocksAt + i * 24));
        const senders: number[] = [];
        for (let at = 0; at + 8 <= msg.length; at += (msg.readUInt16BE(at + 2) + 1) * 4)
          if (msg[at + 1] === RTCP_SR) senders.push(msg.readUInt32BE(at + 4));
        this.reports.push({ type: first === RTCP_SR ? 'sr' : 'rr', ssrc: msg.readUInt32BE(4), about, senders });
      }
      // Walk the compound packet: each part is (length + 1) 32-bit words.
      for (let at = 0; at + 4 <= msg.length; at += (msg.readUInt16BE(at + 2) + 1) * 4) {
        const fmt = msg[at] & 0x1f;
        if (msg[at + 1] === RTCP_PSFB && (fmt === 1 || fmt === 4)) this.keyframeRequests += 1;
      }
    });
  }

  /** Binds a free even/odd port pair (bounded number of attempts). */
  static async open(payloadType = 96): Promise<VideoPeer> {
    for (let attempt = 0; attempt < 50; attempt += 1) {
      const port = 20000 + 2 * Math.floor(Math.random() * 4000);
      const rtp = createSocket('udp4');
      const rtcp = createSocket('udp4');
      if ((await bind(rtp, port)) && (await bind(rtcp, port + 1))) return new VideoPeer(rtp, rtcp, payloadType);
      rtp.close();
      rtcp.close();
    }
    throw new Error('no free port pair for a video peer');
  }

  get port(): number {
    return this.#rtp.address().port;
  }

  /** Sends `count` packets (one picture each, marker set) to the server's video port, 5 ms apart. */
  async send(toPort: number, count: number): Promise<void> {
    for (let i = 0; i < count; i += 1) {
      const packet = Buffer.alloc(12 + 40, 0x5a);
      packet[0] = 0x80;
      packet[1] = 0x80 | this.#payloadType;
      packet.writeUInt16BE(this.#sequence, 2);
      packet.writeUInt32BE(this.#timestamp, 4);
      packet.writeUInt32BE(this.ssrc, 8);
      packet[12] = 0x10; // VP8 payload descriptor (RFC 7741 §4.2): start of a partition
      this.#sequence = (this.#sequence + 1) & 0xffff;
      this.#timestamp = (this.#timestamp + 3000) >>> 0;
      this.#rtp.send(packet, toPort, '127.0.0.1');
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }

  /** Sends a PLI (RFC 4585 §6.3.1) about `mediaSsrc` to the server's video RTCP port (its RTP port + 1). */
  sendPli(serverVideoPort: number, mediaSsrc: number): void {
    const pli = Buffer.alloc(12);
    pli[0] = 0x81; // V=2, FMT=1
    pli[1] = RTCP_PSFB;
    pli.writeUInt16BE(2, 2);
    pli.writeUInt32BE(this.ssrc, 4);
    pli.writeUInt32BE(mediaSsrc >>> 0, 8);
    this.#rtcp.send(pli, serverVideoPort + 1, '127.0.0.1');
  }

  /** Takes (and forgets) what arrived so far. */
  take(): ReceivedPacket[] {
    return this.received.splice(0);
  }

  close(): void {
    this.#rtp.close();
    this.#rtcp.close();
  }
}
