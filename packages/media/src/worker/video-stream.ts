/**
 * The video side of an RTP leg: its own RTP socket and RTCP socket (RFC 3550 §11: RTCP on the next
 * port), from the same range as the audio. Video is never decoded: valid packets with the
 * negotiated payload type are handed to a bridge as they arrive, and the bridge's forwarded
 * packets leave with a rewritten header. Symmetric RTP and RTCP (RFC 4961) as for audio.
 *
 * RTCP here carries only keyframe requests both ways (PLI, RFC 4585 §6.3.1; FIR, RFC 5104
 * §4.3.1): no sender or receiver reports are generated for video, and other RTCP is dropped.
 * Received datagrams are hostile input: anything unexpected is counted and dropped.
 */
import { randomBytes } from 'node:crypto';
import dgram from 'node:dgram';
import { isIP } from 'node:net';
import type { VideoFormat, VideoHeader } from '../bridge/video-router.js';
import { MediaError } from '../errors.js';
import { buildFir, buildPli, keyframeRequestOf } from '../rtp/rtcp-feedback.js';
import { type RtpPacketInfo, parseRtpPacket } from '../rtp/rtp-header.js';
import type { LegCounters, VideoRemote } from '../types.js';
import type { LegHost } from './rtp-leg.js';

interface Address {
  address: string;
  port: number;
}

/**
 * A copy of an RTP packet with its payload type, marker, sequence number, timestamp and SSRC
 * replaced; CSRCs, header extensions, payload and padding are kept as they are.
 */
export function rewriteVideoPacket(datagram: Uint8Array, header: Readonly<VideoHeader>): Buffer {
  const packet = Buffer.allocUnsafe(datagram.length);
  packet.set(datagram);
  writeVideoHeader(packet, header);
  return packet;
}

/** Writes the router's header fields into a packet in place. */
export function writeVideoHeader(packet: Buffer, header: Readonly<VideoHeader>): void {
  packet[1] = (header.marker ? 0x80 : 0) | (header.payloadType & 0x7f);
  packet.writeUInt16BE(header.sequenceNumber & 0xffff, 2);
  packet.writeUInt32BE(header.timestamp >>> 0, 4);
  packet.writeUInt32BE(header.ssrc >>> 0, 8);
}

function bind(address: string, port: number): Promise<dgram.Socket> {
  const socket = dgram.createSocket({ type: isIP(address) === 6 ? 'udp6' : 'udp4' });
  return new Promise((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException): void => {
      socket.close();
      if (error.code === 'EADDRINUSE') reject(new MediaError('port_in_use', `video RTP port ${port} is in use`));
      else reject(new MediaError('bind_failed', `cannot bind video socket to ${address}:${port}: ${error.message}`));
    };
    socket.once('error', onError);
    socket.bind({ address, port, exclusive: true }, () => {
      socket.off('error', onError);
      resolve(socket);
    });
  });
}

export class VideoStream {
  readonly legId: string;
  readonly localPort: number;
  readonly #rtp: dgram.Socket;
  readonly #rtcp: dgram.Socket | null;
  readonly #host: LegHost;
  #remote: VideoRemote | null = null;
  #latched: Address | null = null;
  #rtcpLatched: Address | null = null;
  /** Our SSRC as the sender of keyframe requests (RFC 4585 §6.1 "SSRC of packet sender"). */
  readonly #ssrc = randomBytes(4).readUInt32BE(0);
  #remoteSsrc = 0;
  #firSequence = 0;
  #closed = false;
  #sendErrorLogged = false;
  readonly #counters: LegCounters = { packetsSent: 0, packetsReceived: 0, bytesSent: 0, bytesReceived: 0, packetsDropped: 0 };
  /** Sees every valid video packet (the datagram is valid during the call only). */
  packetTap: ((datagram: Buffer, info: RtpPacketInfo) => void) | null = null;
  /** The peer asked for a keyframe (PLI or FIR) of the video we send it, naming that stream's SSRC (0: unnamed). */
  keyframeTap: ((mediaSsrc: number) => void) | null = null;

  private constructor(legId: string, rtp: dgram.Socket, rtcp: dgram.Socket | null, host: LegHost) {
    this.legId = legId;
    this.#rtp = rtp;
    this.#rtcp = rtcp;
    this.#host = host;
    this.localPort = rtp.address().port;
    rtp.on('message', (datagram, rinfo) => this.#receive(datagram, rinfo));
    rtp.on('error', (error) => this.#host.log('warn', { legId, err: error.message }, 'video RTP socket error'));
    rtcp?.on('message', (datagram, rinfo) => this.#receiveRtcp(datagram, rinfo));
    rtcp?.on('error', (error) => this.#host.log('debug', { legId, err: error.message }, 'video RTCP socket error'));
  }

  /** Binds RTP on `port` (rejects with `port_in_use` when taken) and RTCP on `port + 1` (best effort). */
  static async open(legId: string, bindAddress: string, port: number, host: LegHost): Promise<VideoStream> {
    const rtp = await bind(bindAddress, port);
    let rtcp: dgram.Socket | null = null;
    try {
      rtcp = await bind(bindAddress, port + 1);
    } catch (error) {
      host.log('debug', { legId, err: error instanceof Error ? error.message : String(error) }, 'video RTCP unavailable');
    }
    return new VideoStream(legId, rtp, rtcp, host);
  }

  setRemote(remote: VideoRemote | null): void {
    const moved = remote === null || this.#remote === null || this.#remote.address !== remote.address || this.#remote.port !== remote.port;
    if (moved) {
      this.#latched = null;
      this.#rtcpLatched = null;
    }
    this.#remote = remote;
  }

  get remote(): VideoRemote | null {
    return this.#remote;
  }

  /** What the bridge's router needs to know of this leg's video (null: none negotiated). */
  get format(): VideoFormat | null {
    const remote = this.#remote;
    return remote === null ? null : { codec: remote.codec.name, payloadType: remote.codec.payloadType };
  }

  get counters(): LegCounters {
    return { ...this.#counters };
  }

  /** Sends a packet another leg received, with the router's header. */
  forward(datagram: Uint8Array, header: Readonly<VideoHeader>): void {
    if (this.#remote === null || this.#closed || !this.#mayTransmit()) return;
    this.#transmit(rewriteVideoPacket(datagram, header));
  }

  /** Sends a packet already rewritten on another worker. */
  sendRewritten(packet: Buffer): void {
    if (this.#remote === null || this.#closed || !this.#mayTransmit()) return;
    this.#transmit(packet);
  }

  /** Asks the peer for a keyframe: a PLI and a FIR in one compound datagram (either may be supported). */
  requestKeyframe(): void {
    const remote = this.#remote;
    if (remote === null || this.#closed || this.#rtcp === null) return;
    const target = this.#rtcpLatched ?? { address: remote.address, port: remote.port + 1 };
    this.#firSequence = (this.#firSequence + 1) & 0xff;
    const datagram = Buffer.concat([buildPli(this.#ssrc, this.#remoteSsrc), buildFir(this.#ssrc, this.#remoteSsrc, this.#firSequence)]);
    this.#rtcp.send(datagram, target.port, target.address, (error) => {
      if (error) this.#host.log('debug', { legId: this.legId, err: error.message }, 'video RTCP send failed');
    });
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.packetTap = null;
    this.keyframeTap = null;
    this.#rtp.close();
    this.#rtcp?.close();
  }

  #mayTransmit(): boolean {
    // Video hold follows the audio rules: a peer that only sends, or is inactive, wants nothing.
    const direction = this.#remote?.direction ?? 'sendrecv';
    return direction === 'sendrecv' || direction === 'recvonly';
  }

  #transmit(packet: Buffer): void {
    const remote = this.#remote;
    if (remote === null) return;
    const target = this.#latched ?? remote;
    this.#rtp.send(packet, target.port, target.address, (error) => {
      if (error && !this.#sendErrorLogged) {
        this.#sendErrorLogged = true;
        this.#host.log('warn', { legId: this.legId, target, err: error.message }, 'video RTP send failed');
      }
    });
    this.#counters.packetsSent += 1;
    this.#counters.bytesSent += packet.length;
  }

  #receive(datagram: Buffer, from: dgram.RemoteInfo): void {
    try {
      const remote = this.#remote;
      const parsed = parseRtpPacket(datagram);
      if (this.#closed || remote === null || !parsed.ok || parsed.packet.payloadType !== remote.codec.payloadType) {
        this.#counters.packetsDropped += 1;
        return;
      }
      this.#counters.packetsReceived += 1;
      this.#counters.bytesReceived += datagram.length;
      if (this.#latched === null || this.#latched.address !== from.address || this.#latched.port !== from.port) {
        this.#latched = { address: from.address, port: from.port };
      }
      this.#remoteSsrc = parsed.packet.ssrc;
      this.packetTap?.(datagram, parsed.packet);
    } catch (error) {
      this.#counters.packetsDropped += 1;
      this.#host.log('error', { legId: this.legId, err: error instanceof Error ? error.stack : String(error) }, 'video receive failed');
    }
  }

  #receiveRtcp(datagram: Buffer, from: dgram.RemoteInfo): void {
    if (this.#closed) return;
    this.#rtcpLatched = { address: from.address, port: from.port };
    const mediaSsrc = keyframeRequestOf(datagram);
    if (mediaSsrc !== null) this.keyframeTap?.(mediaSsrc);
  }
}
