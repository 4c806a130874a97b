/**
 * The video side of an RTP leg: its own RTP socket and RTCP socket (RFC 3550 §11: RTCP on the next
 * port), from the same range as the audio. Video is never decoded: valid packets with the
 * negotiated payload type are handed to a bridge as they arrive, and the bridge's forwarded
 * packets leave with a rewritten header. Symmetric RTP and RTCP (RFC 4961) as for audio.
 *
 * RTCP: the leg is the RTP endpoint its phone talks to, so it sends its own compound reports
 * (RFC 3550 §6.1, §6.4: SR for each stream it sends, a reception report block about the phone's
 * stream, SDES CNAME; see rtp/video-reports.ts) every 5 s, randomised (§6.3.1), the first after half
 * of it (§6.2), and a BYE on close. What the phone reports is read, never passed on. Feedback goes
 * both ways: keyframe requests (PLI, RFC 4585 §6.3.1; FIR, RFC 5104 §4.3.1) and generic NACKs (RFC
 * 4585 §6.2.1) the phone sends are handed to the bridge, which asks the sender of what it watches.
 * Received datagrams are hostile input: anything unexpected is counted and dropped.
 *
 * BUNDLEd (RFC 8843, a WebRTC peer): the stream's own sockets stay idle; its RTP and RTCP go out
 * through the audio leg's transport (`BundleTransport`: the ICE-nominated pair, SRTP and SRTCP
 * with the DTLS-derived keys, RFC 5761 multiplexing), and the leg hands it the packets it
 * demultiplexes as video (`receiveBundled`, `receiveBundledRtcp`).
 */
import { randomBytes } from 'node:crypto';
import dgram from 'node:dgram';
import { isIP } from 'node:net';
import type { VideoFormat, VideoHeader } from '../bridge/video-router.js';
import { MediaError } from '../errors.js';
import { buildBye, parseRtcp } from '../rtp/rtcp.js';
import { buildFir, buildNack, buildPli, keyframeRequestOf, nacksOf } from '../rtp/rtcp-feedback.js';
import { nextReportDelay } from '../rtp/rtcp-socket.js';
import { type RtpPacketInfo, parseRtpPacket } from '../rtp/rtp-header.js';
import { VideoReports } from '../rtp/video-reports.js';
import type { LegCounters, VideoRemote } from '@switchboard/media-control';
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

/**
 * Payload octets of a well-formed RTP packet (RFC 3550 §6.4.1 counts neither header, CSRCs,
 * extension nor padding), read in place; 0 when the lengths do not add up.
 */
export function rtpPayloadOctets(packet: Uint8Array): number {
  if (packet.length < 12) return 0;
  let header = 12 + (packet[0] & 0x0f) * 4;
  if (packet[0] & 0x10) {
    if (header + 4 > packet.length) return 0;
    header += 4 + ((packet[header + 2] << 8) | packet[header + 3]) * 4;
  }
  const padding = packet[0] & 0x20 ? packet[packet.length - 1] : 0;
  return Math.max(0, packet.length - header - padding);
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

/** The audio leg's transport, shared by a BUNDLEd video stream (plain packets in; the leg protects them). */
export interface BundleTransport {
  /** Sends an RTP packet; false when nothing could be sent (no nominated pair, no keys yet). */
  sendRtp(packet: Buffer): boolean;
  sendRtcp(packet: Uint8Array): void;
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
  readonly #reports: VideoReports;
  readonly #reportIntervalMs: number;
  #reportTimer: NodeJS.Timeout | null = null;
  #bundle: BundleTransport | null = null;
  readonly #counters: LegCounters = { packetsSent: 0, packetsReceived: 0, bytesSent: 0, bytesReceived: 0, packetsDropped: 0 };
  /** Sees every valid video packet (the datagram is valid during the call only). */
  packetTap: ((datagram: Buffer, info: RtpPacketInfo) => void) | null = null;
  /** The peer asked for a keyframe (PLI or FIR) of the video we send it, naming that stream's SSRC (0: unnamed). */
  keyframeTap: ((mediaSsrc: number) => void) | null = null;
  /** The peer sent a generic NACK naming lost packets of the stream `mediaSsrc` we send it. */
  nackTap: ((mediaSsrc: number, sequences: readonly number[]) => void) | null = null;

  private constructor(legId: string, rtp: dgram.Socket, rtcp: dgram.Socket | null, host: LegHost, cname: string, reportIntervalMs: number) {
    this.legId = legId;
    this.#rtp = rtp;
    this.#rtcp = rtcp;
    this.#host = host;
    this.#reports = new VideoReports(this.#ssrc, cname);
    this.#reportIntervalMs = reportIntervalMs;
    this.localPort = rtp.address().port;
    rtp.on('message', (datagram, rinfo) => this.#receive(datagram, rinfo));
    rtp.on('error', (error) => this.#host.log('warn', { legId, err: error.message }, 'video RTP socket error'));
    rtcp?.on('message', (datagram, rinfo) => this.#receiveRtcp(datagram, rinfo));
    rtcp?.on('error', (error) => this.#host.log('debug', { legId, err: error.message }, 'video RTCP socket error'));
    if (rtcp !== null) this.#scheduleReport(true);
  }

  /** Binds RTP on `port` (rejects with `port_in_use` when taken) and RTCP on `port + 1` (best effort). */
  static async open(
    legId: string,
    bindAddress: string,
    port: number,
    host: LegHost,
    cname = `switchboard-video-${legId}`,
    reportIntervalMs = 5000,
  ): Promise<VideoStream> {
    const rtp = await bind(bindAddress, port);
    let rtcp: dgram.Socket | null = null;
    try {
      rtcp = await bind(bindAddress, port + 1);
    } catch (error) {
      host.log('debug', { legId, err: error instanceof Error ? error.message : String(error) }, 'video RTCP unavailable');
    }
    return new VideoStream(legId, rtp, rtcp, host, cname, reportIntervalMs);
  }

  setRemote(remote: VideoRemote | null): void {
    const moved = remote === null || this.#remote === null || this.#remote.address !== remote.address || this.#remote.port !== remote.port;
    if (moved) {
      this.#latched = null;
      this.#rtcpLatched = null;
    }
    this.#remote = remote;
  }

  /**
   * Moves the stream onto the audio leg's transport (null: back to its own sockets). The report
   * timer runs from then on, as it does for a stream with an RTCP socket of its own.
   */
  setBundle(transport: BundleTransport | null): void {
    this.#bundle = transport;
    if (transport !== null && this.#reportTimer === null && !this.#closed) this.#scheduleReport(true);
  }

  get bundled(): boolean {
    return this.#bundle !== null;
  }

  /** A packet the audio leg demultiplexed as this stream's (already authenticated and decrypted). */
  receiveBundled(datagram: Buffer, from: { address: string; port: number }): void {
    this.#receive(datagram, from);
  }

  /** A plain compound RTCP packet that came in on the audio leg's multiplexed port. */
  receiveBundledRtcp(datagram: Buffer, from: { address: string; port: number }): void {
    this.#receiveRtcp(datagram, from);
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

  /** Valid video RTP received so far (the leg's RTP timeout counts it as the peer's activity). */
  get packetsReceived(): number {
    return this.#counters.packetsReceived;
  }

  /** The RTCP report state: what was received from the phone, what was sent to it and what it reported. */
  get reports(): VideoReports {
    return this.#reports;
  }

  /** Sends a packet another leg received, with the router's header. */
  forward(datagram: Uint8Array, header: Readonly<VideoHeader>): void {
    if (this.#remote === null || this.#closed || !this.#mayTransmit()) return;
    this.#transmit(rewriteVideoPacket(datagram, header));
    this.#reports.onSend(header.ssrc >>> 0, rtpPayloadOctets(datagram), header.timestamp, Date.now());
  }

  /** Sends a packet already rewritten on another worker. */
  sendRewritten(packet: Buffer): void {
    if (this.#remote === null || this.#closed || !this.#mayTransmit() || packet.length < 12) return;
    this.#transmit(packet);
    this.#reports.onSend(packet.readUInt32BE(8), rtpPayloadOctets(packet), packet.readUInt32BE(4), Date.now());
  }

  /** Asks the peer for a keyframe: a PLI and a FIR in one compound datagram (either may be supported). */
  requestKeyframe(): void {
    if (this.#remote === null || this.#closed || !this.#hasRtcp()) return;
    this.#firSequence = (this.#firSequence + 1) & 0xff;
    this.#sendRtcp(
      Buffer.concat([
        this.#reports.feedbackHead(),
        buildPli(this.#ssrc, this.#remoteSsrc),
        buildFir(this.#ssrc, this.#remoteSsrc, this.#firSequence),
      ]),
    );
  }

  /**
   * Asks the peer to resend the packets `sequences` of the stream it sends us (RFC 4585 §6.2.1), at
   * once as early feedback allows (RFC 4585 §3.5.2), in a compound packet behind an empty RR and SDES.
   */
  requestRetransmission(sequences: readonly number[]): void {
    if (this.#remote === null || this.#closed || !this.#hasRtcp() || this.#remoteSsrc === 0 || sequences.length === 0) return;
    this.#sendRtcp(Buffer.concat([this.#reports.feedbackHead(), buildNack(this.#ssrc, this.#remoteSsrc, sequences)]));
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.packetTap = null;
    this.keyframeTap = null;
    this.nackTap = null;
    if (this.#reportTimer !== null) clearTimeout(this.#reportTimer);
    this.#rtp.close();
    const rtcp = this.#rtcp;
    if (this.#bundle !== null) {
      if (this.#hasReportToSend()) this.#sendRtcp(this.#finalReport(), true);
      this.#bundle = null;
      rtcp?.close();
      return;
    }
    if (rtcp === null) return;
    // The last report, then close once it is queued.
    if (this.#hasReportToSend()) {
      this.#sendRtcp(this.#finalReport(), true);
    }
    setImmediate(() => rtcp.close());
  }

  /** A last report with a BYE for every SSRC we spoke in (RFC 3550 §6.6). */
  #finalReport(): Buffer {
    const ssrcs = [this.#reports.localSsrc, ...this.#reports.sentStreams().map((stream) => stream.ssrc)];
    return Buffer.concat([this.#reports.buildReport(Date.now()), buildBye(ssrcs)]);
  }

  #hasRtcp(): boolean {
    return this.#bundle !== null || this.#rtcp !== null;
  }

  #hasReportToSend(): boolean {
    return this.#remote !== null && (this.#reports.reception() !== null || this.#counters.packetsSent > 0);
  }

  #scheduleReport(first: boolean): void {
    if (this.#closed) return;
    this.#reportTimer = setTimeout(
      () => {
        const due = this.#hasReportToSend();
        if (due) this.#sendRtcp(this.#reports.buildReport(Date.now()));
        // Until there is something to report, the next try is still the initial one (half the interval).
        this.#scheduleReport(first && !due);
      },
      nextReportDelay(this.#reportIntervalMs, first),
    );
    this.#reportTimer.unref();
  }

  #sendRtcp(datagram: Uint8Array, closing = false): void {
    const remote = this.#remote;
    if (remote === null || (this.#closed && !closing)) return;
    if (this.#bundle !== null) {
      this.#bundle.sendRtcp(datagram);
      return;
    }
    if (this.#rtcp === null) return;
    const target = this.#rtcpLatched ?? { address: remote.address, port: remote.port + 1 };
    try {
      this.#rtcp.send(datagram, target.port, target.address, (error) => {
        if (error) this.#host.log('debug', { legId: this.legId, err: error.message }, 'video RTCP send failed');
      });
    } catch (error) {
      this.#host.log('debug', { legId: this.legId, err: error instanceof Error ? error.message : String(error) }, 'video RTCP send failed');
    }
  }

  #mayTransmit(): boolean {
    // Video hold follows the audio rules: a peer that only sends, or is inactive, wants nothing.
    const direction = this.#remote?.direction ?? 'sendrecv';
    return direction === 'sendrecv' || direction === 'recvonly';
  }

  #transmit(packet: Buffer): void {
    const remote = this.#remote;
    if (remote === null) return;
    if (this.#bundle !== null) {
      if (!this.#bundle.sendRtp(packet)) return;
      this.#counters.packetsSent += 1;
      this.#counters.bytesSent += packet.length;
      return;
    }
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

  #receive(datagram: Buffer, from: { address: string; port: number }): void {
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
      this.#reports.onReceive(parsed.packet.ssrc, parsed.packet.sequenceNumber, parsed.packet.timestamp, Date.now());
      this.packetTap?.(datagram, parsed.packet);
    } catch (error) {
      this.#counters.packetsDropped += 1;
      this.#host.log('error', { legId: this.legId, err: error instanceof Error ? error.stack : String(error) }, 'video receive failed');
    }
  }

  #receiveRtcp(datagram: Buffer, from: { address: string; port: number }): void {
    if (this.#closed) return;
    try {
      this.#rtcpLatched = { address: from.address, port: from.port };
      // Reports are read here and stop here; a reduced-size feedback packet (RFC 5506) has none.
      const parsed = parseRtcp(datagram);
      if (parsed.ok) this.#reports.onRtcp(parsed.packets, Date.now());
      const mediaSsrc = keyframeRequestOf(datagram);
      if (mediaSsrc !== null) this.keyframeTap?.(mediaSsrc);
      if (this.nackTap !== null) for (const nack of nacksOf(datagram)) this.nackTap(nack.mediaSsrc, nack.sequences);
    } catch (error) {
      this.#host.log(
        'error',
        { legId: this.legId, err: error instanceof Error ? error.stack : String(error) },
        'video RTCP receive failed',
      );
    }
  }
}
