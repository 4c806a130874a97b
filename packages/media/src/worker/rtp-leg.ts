// Over 500 lines: the hot path of one RTP leg (receive, validate, decrypt, tap, send, encrypt) stays in one class so that a packet touches one object.
/**
 * One RTP leg inside a worker: its UDP socket, its outgoing stream (SSRC, sequence, timestamp), its
 * send target (symmetric RTP), its counters and its DTMF detector. What it plays is decided
 * outside (worker/media-endpoint.ts): the worker's media tick hands it one frame at a time through
 * `writeFrame`, and takes what the peer sent through `readFrame`.
 * Received datagrams are hostile input: each is validated and anything unexpected is counted and
 * dropped; nothing a peer sends can throw out of the receive handler.
 */
import { getRandomValues } from 'node:crypto';
import { LegAudio } from '../audio/leg-audio.js';
import type { InbandDigit } from '../dsp/dtmf-detector.js';
import { isCodecSupported } from '../codecs/index.js';
import { MediaError } from '../errors.js';
import type { LogLevel } from '../logger.js';
import type { WorkerNotification } from '../protocol.js';
import { RtpStatsTracker, type RtpStatisticsSnapshot } from '../rtp/rtcp-stats.js';
import { RtcpSocket, type RtcpSocketHandlers } from '../rtp/rtcp-socket.js';
import { buildBye } from '../rtp/rtcp.js';
import { RTP_HEADER_SIZE, type RtpPacketInfo, emptyRtpPacketInfo, parseRtpPacketInto, writeRtpHeader } from '../rtp/rtp-header.js';
import { hasPlainHeader, writeRelayedHeader } from '../rtp/rtp-header-in-place.js';
import { type DatagramSource, type LegSocket, openLegSocket } from '../rtp/leg-socket.js';
import { DtlsSrtpAssociation } from '../dtls/dtls-srtp.js';
import { IceLiteAgent } from '../ice/ice-lite.js';
import { looksLikeStun } from '../ice/stun.js';
import { SrtpSession } from '../srtp/srtp-session.js';
import {
  DtmfEndDetector,
  TELEPHONE_EVENT_SIZE,
  type TelephoneEvent,
  parseTelephoneEvent,
  writeTelephoneEvent,
} from '../rtp/telephone-event.js';
import type { LegCounters, LegDtls, LegIce, LegRemote, LegSrtp } from '@switchboard/media-control';
import type { BundleTransport, VideoStream } from './video-stream.js';

/**
 * A received packet handed to a relay before any decoding. Valid only during the call: the leg
 * reuses this object for its next packet. `datagram` is the received buffer itself, which nothing
 * else holds; `plainHeader` says its payload follows a bare 12-byte header, so a relay may rewrite
 * the header in place and send the datagram on (`relayInPlace`): the leg reads only the payload,
 * which stays untouched, after the tap.
 */
export interface TappedPacket {
  kind: 'audio' | 'event';
  readonly info: RtpPacketInfo;
  /** A view of the datagram's payload, made when asked for (a relay in place needs none). */
  payload(): Uint8Array;
  datagram: Buffer;
  plainHeader: boolean;
}

/** What a leg needs from the worker that hosts it. */
export interface LegHost {
  notify(notification: WorkerNotification): void;
  log(level: LogLevel, fields: Record<string, unknown>, msg: string): void;
  /** Monotonic milliseconds (performance.now in a worker). */
  now(): number;
}

interface Address {
  address: string;
  port: number;
}

/**
 * Random SSRC, first sequence number and timestamp (RFC 3550 §5.1, §8.1), drawn from a pool filled
 * from the CSPRNG 64 values at a time: a new leg takes three, and one call to the generator per
 * value showed in the worker's profile at high call rates.
 */
const randomPool = new Uint32Array(64);
let randomLeft = 0;
function randomUint32(): number {
  if (randomLeft === 0) {
    getRandomValues(randomPool);
    randomLeft = randomPool.length;
  }
  randomLeft -= 1;
  return randomPool[randomLeft];
}

export class RtpLeg {
  readonly id: string;
  readonly localAddress: string;
  readonly localPort: number;
  readonly #socket: LegSocket;
  readonly #host: LegHost;
  #closed = false;

  #remote: LegRemote | null = null;
  /** Where received RTP came from: RFC 4961 symmetric RTP sends back to it. */
  #latched: Address | null = null;

  // RFC 3550 §5.1: SSRC, initial sequence number and initial timestamp are random, so that a
  // stream cannot be guessed or confused with an earlier one.
  readonly #ssrc = randomUint32();
  #sequence = randomUint32() & 0xffff;
  #nextTimestamp = randomUint32();
  /**
   * Schedule time of the last frame sent or skipped; NaN before the first. Never null: it is written
   * for every relayed packet, and V8 keeps a field's doubles in place only while it holds numbers
   * alone (a nullable one boxes each value anew: garbage per packet).
   */
  #lastFrameAt = Number.NaN;
  /** The next packet starts a talkspurt (RFC 3551 §4.1: marker on the first packet after silence). */
  #markerPending = true;

  /** Jitter buffer, codec and resampling between packets and the media tick's PCM (set with the remote). */
  #audio: LegAudio | null = null;
  /** RFC 3550 statistics of both directions, for RTCP reports and RTPstat. */
  #rtcp: RtcpSocket | null = null;
  /** RTCP on the RTP socket (RFC 5761) once the remote asks for rtcp-mux; the port + 1 socket then stays quiet. */
  #muxedRtcp: RtcpSocket | null = null;
  #rtcpLatched: Address | null = null;
  /** Valid RTCP datagrams received (either socket): they show the peer is alive (packetsHeard). */
  #rtcpReceived = 0;
  /** SDES CNAME (RFC 3550 §6.5.1), shared with the leg's video so that the phone can pair the two. */
  readonly cname = `switchboard-${this.#ssrc.toString(16)}`;
  readonly #stats = new RtpStatsTracker({ localSsrc: this.#ssrc, clockRate: 8000, cname: this.cname });
  /** Sees every valid audio/event packet before decoding (a two-party relay); null when none. */
  packetTap: ((packet: TappedPacket) => void) | null = null;
  #remoteSsrc = 0;
  readonly #dtmf = new DtmfEndDetector();
  readonly #counters: LegCounters = { packetsSent: 0, packetsReceived: 0, bytesSent: 0, bytesReceived: 0, packetsDropped: 0 };
  #sendErrorLogged = false;
  /** A failed send: logged once per leg (LegSocketHandlers.sendFailed). */
  readonly #afterSend = (error: Error): void => {
    if (!this.#sendErrorLogged) {
      this.#sendErrorLogged = true; // once per leg: a dead peer would otherwise log 50 lines a second
      this.#host.log('warn', { legId: this.id, target: this.#latched ?? this.#remote, err: error.message }, 'RTP send failed');
    }
  };
  /**
   * Whether received audio goes into the jitter buffer. The media endpoint clears it while the leg
   * is relayed and nothing decodes its audio (media-endpoint.ts `capture`), so a relayed packet is
   * not also copied into a buffer nobody reads; set again, the buffer refills from the next packet.
   */
  #decodeWanted = true;

  setDecodeWanted(wanted: boolean): void {
    this.#decodeWanted = wanted;
  }
  /** The received packet's header, reused for every packet (parseRtpPacketInto). */
  readonly #received: RtpPacketInfo = emptyRtpPacketInfo();
  /** The tap's packet object, reused for every packet (TappedPacket); `#accept` sets its fields before each tap. */
  readonly #tapped: TappedPacket = {
    kind: 'audio',
    info: this.#received,
    payload() {
      return this.datagram.subarray(this.info.payloadOffset, this.info.payloadOffset + this.info.payloadLength);
    },
    datagram: Buffer.alloc(0),
    plainHeader: false,
  };
  /** The leg's video socket pair, when it was created with one (one video stream per leg). */
  video: VideoStream | null = null;
  /** SRTP of the audio stream and its RTCP (RFC 3711) when the remote carries keys; null for plain RTP. */
  #srtp: SrtpSession | null = null;
  #srtpKeys: LegSrtp | null = null;
  #srtpFailureLogged = false;
  /** ICE-lite (RFC 8445) when the remote carries our credentials: checks answered, media to the nominated address. */
  #ice: IceLiteAgent | null = null;
  #iceCredentials: LegIce | null = null;
  /** DTLS-SRTP (RFC 5764): the handshake on this socket; SRTP keys come from it. */
  #dtls: DtlsSrtpAssociation | null = null;
  #dtlsParams: LegDtls | null = null;
  #dtlsKeys: LegSrtp | null = null;
  /** Where DTLS records come from (the server side answers there before media is flowing). */
  #dtlsPeer: Address | null = null;

  private constructor(id: string, socket: LegSocket, host: LegHost) {
    this.id = id;
    this.#socket = socket;
    this.#host = host;
    this.localAddress = socket.localAddress;
    this.localPort = socket.localPort;
    this.#openRtcp(socket.localAddress, socket.localPort + 1);
  }

  /** RFC 3550 §11: RTCP on the next port; without it the leg still carries RTP. */
  #openRtcp(address: string, port: number): void {
    void RtcpSocket.open(address, port, this.#rtcpHandlers(false)).then((rtcp) => {
      if (rtcp !== null && this.#closed) rtcp.close();
      else this.#rtcp = rtcp;
    });
  }

  #rtcpHandlers(muxed: boolean): RtcpSocketHandlers {
    return {
      unprotect: (datagram) => {
        if (this.#srtp === null) return datagram;
        const result = this.#srtp.unprotectRtcp(datagram);
        return result.ok ? result.packet : null;
      },
      protect: (datagram) => (this.#srtp === null ? datagram : this.#srtp.protectRtcp(datagram)),
      received: (packets, from) => {
        // RFC 4961 symmetric RTCP: report back to where the peer's RTCP comes from.
        this.#rtcpLatched = from;
        this.#rtcpReceived += 1;
        this.#stats.onRtcp(packets, Date.now());
      },
      report: () => {
        // One reporter per leg; and no RTCP before DTLS has keyed SRTCP.
        if (muxed !== (this.#muxedRtcp !== null) || (this.#dtls !== null && this.#srtp === null)) return null;
        return this.#remoteSsrc === 0 && this.#counters.packetsSent === 0 ? null : this.#stats.buildReport(Date.now());
      },
      target: () => {
        if (muxed) return this.#ice === null ? (this.#latched ?? this.#remote) : this.#ice.consentValid() ? this.#ice.selected : null;
        return this.#rtcpLatched ?? (this.#remote === null ? null : { address: this.#remote.address, port: this.#remote.port + 1 });
      },
      problem: (what) => this.#host.log('debug', { legId: this.id }, what),
      // RFC 8843: a BUNDLEd video stream's feedback (PLI, FIR, NACK) comes in on this port too.
      ...(muxed
        ? { plain: (datagram: Buffer, from: { address: string; port: number }) => this.#bundledVideo()?.receiveBundledRtcp(datagram, from) }
        : {}),
    };
  }

  /** The leg's video stream when it rides on this leg's transport. */
  #bundledVideo(): VideoStream | null {
    const video = this.video;
    return video?.bundled ? video : null;
  }

  /**
   * What a BUNDLEd video stream sends through (RFC 8843 §9: one transport for every bundled
   * stream): the same nominated pair and, RFC 5764 §4.1, the same SRTP keys, its packets told
   * apart by their SSRC.
   */
  readonly #bundleTransport: BundleTransport = {
    sendRtp: (plain) => {
      const target = this.#mediaTarget();
      if (target === null) return false;
      const packet = this.#srtp === null ? plain : this.#srtp.protectRtp(plain);
      this.#socket.send(packet, target.port, target.address);
      return true;
    },
    sendRtcp: (plain) => {
      const target = this.#mediaTarget();
      if (target === null || this.#muxedRtcp === null) return;
      const packet = this.#srtp === null ? plain : this.#srtp.protectRtcp(plain);
      this.#socket.send(packet, target.port, target.address);
    },
  };

  /**
   * Where media goes now: with ICE only the nominated pair while consent is fresh (RFC 7675 §5.1);
   * with DTLS-SRTP nowhere until the handshake has keyed SRTP.
   */
  #mediaTarget(): Address | null {
    const remote = this.#remote;
    if (remote === null || this.#closed) return null;
    if (this.#dtls !== null && this.#srtp === null) return null;
    const ice = this.#ice;
    return ice === null ? (this.#latched ?? remote) : ice.consentValid() ? ice.selected : null;
  }

  /** Binds a socket for a new leg. Rejects with `port_in_use` when the port is taken. */
  static async open(id: string, bindAddress: string, port: number, host: LegHost): Promise<RtpLeg> {
    let leg: RtpLeg | undefined;
    const socket = await openLegSocket(bindAddress, port, {
      message: (datagram, from) => {
        if (leg !== undefined) leg.#receive(datagram, from);
      },
      error: (error) => {
        if (leg !== undefined) leg.#socketFailed(error);
      },
      sendFailed: (error) => {
        if (leg !== undefined) leg.#afterSend(error);
      },
    });
    leg = new RtpLeg(id, socket, host);
    return leg;
  }

  setRemote(remote: LegRemote): void {
    const moved = this.#remote === null || this.#remote.address !== remote.address || this.#remote.port !== remote.port;
    // A new remote address (a re-INVITE moving the media) must not keep sending to the old source.
    if (moved) {
      this.#latched = null;
      this.#rtcpLatched = null;
    }
    if (!isCodecSupported(remote.codec.name)) {
      throw new MediaError('invalid_argument', `codec ${remote.codec.name} is not available on this server`);
    }
    // A different codec (or payload type) needs a new codec pipeline; the same one keeps its state.
    const previous = this.#remote?.codec;
    const { name, payloadType, clockRate } = remote.codec;
    const sameCodec = previous?.name === name && previous.payloadType === payloadType && previous.clockRate === clockRate;
    if (this.#audio === null || !sameCodec) {
      const events = {
        digit: ({ digit, durationMs }: InbandDigit) => this.#host.notify({ type: 'dtmfReceived', legId: this.id, digit, durationMs }),
      };
      this.#audio = new LegAudio(name, events, clockRate);
      this.#stats.clockRate = this.#audio.clockRate;
    }
    // Without RFC 4733 the peer can only send digits as tones: listen for them in the audio.
    this.#audio.setInbandDtmf(remote.telephoneEventPayloadType === undefined);
    this.#remote = remote;
    this.#setIce(remote.ice ?? null);
    this.#setDtls(remote.dtls ?? null);
    this.#setSrtp(remote.srtp ?? this.#dtlsKeys);
    if (remote.rtcpMux === true && this.#muxedRtcp === null)
      this.#muxedRtcp = RtcpSocket.multiplexed(this.#socket, this.#rtcpHandlers(true));
    this.video?.setRemote(remote.video ?? null);
    this.video?.setBundle(remote.video?.bundled === true && remote.rtcpMux === true ? this.#bundleTransport : null);
  }

  /**
   * New keys start a new SRTP session (RFC 4568 §7.1.4: a changed key restarts the crypto context);
   * the same keys in a re-INVITE keep the session, its rollover counters and replay windows.
   */
  #setSrtp(keys: LegSrtp | null): void {
    const previous = this.#srtpKeys;
    const same =
      keys !== null &&
      previous !== null &&
      previous.suite === keys.suite &&
      previous.localMasterKey === keys.localMasterKey &&
      previous.remoteMasterKey === keys.remoteMasterKey;
    if (same) return;
    this.#srtpKeys = keys;
    this.#srtp =
      keys === null
        ? null
        : new SrtpSession({
            suite: keys.suite,
            localMasterKey: Buffer.from(keys.localMasterKey, 'base64'),
            remoteMasterKey: Buffer.from(keys.remoteMasterKey, 'base64'),
          });
  }

  /** Same parameters keep the association (and its keys); new ones start a new handshake. */
  #setDtls(params: LegDtls | null): void {
    const previous = this.#dtlsParams;
    const same =
      params !== null &&
      previous !== null &&
      previous.role === params.role &&
      previous.remoteFingerprint === params.remoteFingerprint &&
      previous.certificate === params.certificate;
    if (same) return;
    this.#dtls?.close();
    this.#dtls = null;
    this.#dtlsKeys = null;
    this.#dtlsParams = params;
    if (params === null) return;
    const association = new DtlsSrtpAssociation({
      role: params.role,
      certificate: { certPem: params.certificate, keyPem: params.privateKey },
      remoteFingerprint: params.remoteFingerprint,
      path: {
        send: (datagram) => {
          const target = this.#ice?.selected ?? this.#dtlsPeer ?? this.#latched ?? this.#remote;
          if (target !== null && !this.#closed) this.#socket.send(datagram, target.port, target.address);
        },
      },
    });
    this.#dtls = association;
    void association.establish().then((outcome) => {
      if (this.#dtls !== association || this.#closed) return;
      if (!outcome.ok) {
        this.#host.log('warn', { legId: this.id, problem: outcome.reason }, 'DTLS-SRTP failed');
        this.#host.notify({ type: 'legFailed', legId: this.id, error: `DTLS-SRTP: ${outcome.reason}`, fatal: true });
        return;
      }
      this.#dtlsKeys = outcome.srtp;
      this.#setSrtp(outcome.srtp);
    });
  }

  /** The same credentials keep the agent (and its nominated pair); new ones start over (an ICE restart). */
  #setIce(credentials: LegIce | null): void {
    const previous = this.#iceCredentials;
    if (credentials !== null && previous !== null && previous.ufrag === credentials.ufrag && previous.password === credentials.password)
      return;
    this.#iceCredentials = credentials;
    this.#ice = credentials === null ? null : new IceLiteAgent(credentials, () => this.#host.now());
  }

  /** Whether the leg's audio is SRTP (for statistics and tests). */
  get secure(): boolean {
    return this.#srtp !== null;
  }

  /** In-band DTMF detection runs on decoded audio: the media tick must read this leg's frames. */
  get needsAudioTicks(): boolean {
    return this.#audio?.detecting ?? false;
  }

  /** RTPstat figures of this leg (RFC 3550 A.3/A.8 receive side, counts of the send side). */
  get rtpStatistics(): RtpStatisticsSnapshot {
    return this.#stats.statistics();
  }

  get counters(): LegCounters {
    return { ...this.#counters };
  }

  /**
   * Datagrams heard from the peer so far: valid RTP of the leg's payload types (audio and
   * telephone-event), its video's, and valid RTCP. As in Asterisk, whose RTP timeout is reset by
   * every read of the RTP or the RTCP socket (res_pjsip_sdp_rtp.c), RTCP shows the peer is alive:
   * RFC 3264 §5.1 keeps it flowing while a stream is on hold. The RTP timeout compares this between
   * its checks (rtp-timeouts.ts), so the packet path does no work for it.
   */
  get packetsHeard(): number {
    return this.#counters.packetsReceived + this.#rtcpReceived + (this.video?.packetsReceived ?? 0);
  }

  /** The rate the negotiated codec's audio is sampled at; 8000 before a remote is known. */
  get nativeRate(): number {
    return this.#audio?.sampleRate ?? 8000;
  }

  get remote(): LegRemote | null {
    return this.#remote;
  }

  get ssrc(): number {
    return this.#ssrc;
  }

  /** SSRC of the last valid packet received (0 before any). */
  get remoteSsrc(): number {
    return this.#remoteSsrc;
  }

  /** Where the outgoing stream continues: a relay anchors its rewriting here. */
  get streamPosition(): { nextSequence: number; nextTimestamp: number } {
    return { nextSequence: this.#sequence, nextTimestamp: this.#nextTimestamp };
  }

  /** The sequence number of the next packet sent (`streamPosition` without an object, for the packet path). */
  get nextSequence(): number {
    return this.#sequence;
  }

  /** The RTP timestamp of the next audio frame sent. */
  get nextTimestamp(): number {
    return this.#nextTimestamp;
  }

  /** The next frame starts a talkspurt: it carries the marker bit (RFC 3551 §4.1). */
  startTalkspurt(): void {
    this.#markerPending = true;
  }

  /**
   * One 20 ms frame of what the peer sent, decoded to linear PCM at `rateHz` (8000, 16000 or
   * 48000), concealed when a packet is missing, or null when there is nothing to play (before the
   * first packet, or the peer went quiet). Packets wait in the jitter buffer until this is called.
   */
  readFrame(rateHz: number): Int16Array | null {
    return this.#audio?.readFrame(rateHz) ?? null;
  }

  /**
   * Encodes (with the negotiated codec, resampling from `rateHz`) and sends one 20 ms frame at the
   * media tick's time (accounted silently while on hold).
   */
  writeFrame(pcm: Int16Array, rateHz: number): void {
    this.#sendFrame(pcm, rateHz, this.#host.now());
  }

  /**
   * Sends a payload another leg received, in this leg's own stream: our SSRC, and the sequence
   * number and timestamp the relay computed from this leg's `streamPosition` (RFC 3550 §7.1: a
   * translator may change them as long as each stream stays consistent).
   */
  sendRelayed(
    kind: 'audio' | 'event',
    payload: Uint8Array,
    header: { sequenceNumber: number; timestamp: number; marker: boolean },
    samples: number,
  ): void {
    const payloadType = this.#advanceRelayed(kind, header, samples);
    if (payloadType === undefined || !this.#mayTransmit()) return;
    const packet = Buffer.allocUnsafe(RTP_HEADER_SIZE + payload.length);
    writeRtpHeader(packet, {
      payloadType,
      marker: header.marker,
      sequenceNumber: header.sequenceNumber,
      timestamp: header.timestamp,
      ssrc: this.#ssrc,
    });
    packet.set(payload, RTP_HEADER_SIZE);
    this.#transmit(packet);
  }

  /**
   * `sendRelayed` without a copy: rewrites the header of `datagram` (a packet another leg received,
   * with a bare 12-byte header: `TappedPacket.plainHeader`) in place into this leg's stream and sends
   * that buffer. The relay path's only work per packet is this header and one send.
   */
  relayInPlace(
    kind: 'audio' | 'event',
    datagram: Buffer,
    header: { sequenceNumber: number; timestamp: number; marker: boolean },
    samples: number,
  ): void {
    const payloadType = this.#advanceRelayed(kind, header, samples);
    if (payloadType === undefined || !this.#mayTransmit()) return;
    writeRelayedHeader(datagram, header, payloadType, this.#ssrc);
    this.#transmit(datagram);
  }

  /**
   * Moves this leg's stream past a relayed packet; returns the payload type to send it with, or
   * undefined when it must not be sent (no remote, closed, or an event the peer did not negotiate).
   */
  #advanceRelayed(kind: 'audio' | 'event', header: { sequenceNumber: number; timestamp: number }, samples: number): number | undefined {
    const remote = this.#remote;
    if (remote === null || this.#closed) return undefined;
    const payloadType = kind === 'audio' ? remote.codec.payloadType : remote.telephoneEventPayloadType;
    if (payloadType === undefined) return undefined; // the peer did not negotiate telephone-event
    this.#sequence = (header.sequenceNumber + 1) & 0xffff;
    const end = (header.timestamp + samples) >>> 0;
    // An event's packets share its start timestamp (RFC 4733 §2.5.1.3); only audio moves the clock.
    if (kind === 'audio' || ((end - this.#nextTimestamp) | 0) > 0) this.#nextTimestamp = end;
    this.#lastFrameAt = this.#host.now();
    this.#markerPending = false;
    return payloadType;
  }

  /**
   * Sends one RFC 4733 event packet (§2.3) in this leg's stream with the event's start timestamp;
   * returns false when the peer negotiated no telephone-event payload type.
   */
  sendEvent(event: TelephoneEvent, timestamp: number, marker: boolean): boolean {
    const remote = this.#remote;
    if (remote === null || remote.telephoneEventPayloadType === undefined || this.#closed) return false;
    const packet = Buffer.allocUnsafe(RTP_HEADER_SIZE + TELEPHONE_EVENT_SIZE);
    writeRtpHeader(packet, {
      payloadType: remote.telephoneEventPayloadType,
      marker,
      sequenceNumber: this.#sequence,
      timestamp,
      ssrc: this.#ssrc,
    });
    writeTelephoneEvent(packet, event, RTP_HEADER_SIZE);
    this.#sequence = (this.#sequence + 1) & 0xffff;
    if (this.#mayTransmit()) this.#transmit(packet);
    return true;
  }

  /** The timestamp the next audio frame would carry: an event starts there (RFC 4733 §2.5.1.3). */
  claimTimestamp(samples: number): number {
    const timestamp = this.#nextTimestamp;
    this.#nextTimestamp = (timestamp + samples) >>> 0;
    this.#lastFrameAt = this.#host.now();
    return timestamp;
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.packetTap = null;
    // RFC 3550 §6.6: a BYE tells the peer this source is leaving (on the RTP socket itself with rtcp-mux).
    const muxed = this.#muxedRtcp !== null;
    this.#muxedRtcp?.close(buildBye([this.#ssrc]));
    this.#dtls?.close();
    // A multiplexed BYE is queued on this socket: close it once the send has gone out.
    if (muxed) setImmediate(() => this.#socket.close());
    else this.#socket.close();
    this.video?.close();
    this.#rtcp?.close(buildBye([this.#ssrc]));
    this.#rtcp = null;
  }

  #mayTransmit(): boolean {
    // The peer's direction: if it only sends (hold) or is inactive, it wants nothing from us.
    const direction = this.#remote?.direction ?? 'sendrecv';
    return direction === 'sendrecv' || direction === 'recvonly';
  }

  /** Encodes and sends one frame, or accounts for it silently when the peer does not want audio. */
  #sendFrame(samples: Int16Array, rateHz: number, dueAt: number): void {
    const remote = this.#remote;
    const audio = this.#audio;
    if (remote === null || audio === null) return;
    const frameTimestamps = audio.timestampsPerFrame;
    // RFC 3550 §5.1: the timestamp follows the sampling clock, so after a pause between playbacks
    // it advances by the elapsed time (never less than one frame), keeping the stream monotonic.
    let timestamp = this.#nextTimestamp;
    if (!Number.isNaN(this.#lastFrameAt) && this.#markerPending) {
      const elapsed = Math.round(((dueAt - this.#lastFrameAt) * remote.codec.clockRate) / 1000);
      if (elapsed > frameTimestamps) timestamp = (timestamp + elapsed - frameTimestamps) >>> 0;
    }
    this.#nextTimestamp = (timestamp + frameTimestamps) >>> 0;
    this.#lastFrameAt = dueAt;

    if (!this.#mayTransmit() || this.#closed) {
      this.#markerPending = true;
      return;
    }
    const payload = audio.encodeFrame(samples, rateHz);
    if (payload === null) return;
    const packet = Buffer.allocUnsafe(RTP_HEADER_SIZE + payload.length);
    writeRtpHeader(packet, {
      payloadType: remote.codec.payloadType,
      marker: this.#markerPending,
      sequenceNumber: this.#sequence,
      timestamp,
      ssrc: this.#ssrc,
    });
    packet.set(payload, RTP_HEADER_SIZE);
    this.#sequence = (this.#sequence + 1) & 0xffff;
    this.#markerPending = false;
    this.#transmit(packet);
  }

  #transmit(plain: Buffer): void {
    const target = this.#mediaTarget();
    if (target === null) return;
    // Encrypted here, on the way out, so relayed, played, mixed and DTMF packets are all covered.
    const packet = this.#srtp === null ? plain : this.#srtp.protectRtp(plain);
    this.#socket.send(packet, target.port, target.address);
    this.#counters.packetsSent += 1;
    this.#counters.bytesSent += packet.length;
    // Our packets carry no CSRC or extension: the payload follows the 12-byte header.
    this.#stats.onSend(plain.length - RTP_HEADER_SIZE, plain.readUInt32BE(4), Date.now());
  }

  #receive(datagram: Buffer, from: DatagramSource): void {
    try {
      // RFC 7983: STUN (first byte 0–3) shares the socket with RTP once ICE is on.
      if (this.#ice !== null && looksLikeStun(datagram)) {
        this.#answerCheck(this.#ice, datagram, from);
        return;
      }
      // RFC 7983 §7: DTLS records start with 20–63. The handshake may keep what it is given.
      if (this.#dtls !== null && datagram.length > 0 && datagram[0] >= 20 && datagram[0] <= 63) {
        this.#dtlsPeer = { address: from.address, port: from.port };
        this.#dtls.receive(this.#owned(datagram));
        return;
      }
      // RFC 5761 §4: with rtcp-mux, RTCP packet types 200–204 (second byte 192–223) share the port.
      if (this.#muxedRtcp !== null && datagram.length >= 8 && datagram[1] >= 192 && datagram[1] <= 223) {
        this.#muxedRtcp.deliver(this.#owned(datagram), from);
        return;
      }
      this.#accept(datagram, from);
    } catch (error) {
      // A parsing bug must cost one packet, not the worker and every call on it.
      this.#counters.packetsDropped += 1;
      this.#host.log('error', { legId: this.id, err: error instanceof Error ? error.stack : String(error) }, 'RTP receive failed');
    }
  }

  #accept(received: Buffer, from: DatagramSource): void {
    const remote = this.#remote;
    // DTLS-SRTP before its keys exist: whatever arrives cannot be authenticated, so it is dropped.
    const unkeyed = this.#dtls !== null && this.#srtp === null;
    const datagram = unkeyed ? null : this.#srtp === null || remote === null ? received : this.#unprotect(received);
    if (datagram === null) {
      this.#counters.packetsDropped += 1;
      return;
    }
    const packet = this.#received;
    const failure = parseRtpPacketInto(datagram, packet);
    // Before the remote is known there is no payload type to accept.
    if (this.#closed || remote === null || failure !== null) {
      this.#counters.packetsDropped += 1;
      return;
    }
    const isAudio = packet.payloadType === remote.codec.payloadType;
    const isEvent = remote.telephoneEventPayloadType !== undefined && packet.payloadType === remote.telephoneEventPayloadType;
    if (!isAudio && !isEvent) {
      // RFC 8843 §9.2: a BUNDLEd stream's packets are told apart by payload type (each payload
      // type belongs to one m-line); the video's go to the video stream, already decrypted.
      const video = this.#bundledVideo();
      if (video !== null && packet.payloadType === video.remote?.codec.payloadType) video.receiveBundled(this.#owned(datagram), from);
      else this.#counters.packetsDropped += 1;
      return;
    }
    this.#counters.packetsReceived += 1;
    this.#counters.bytesReceived += datagram.length;
    // RFC 4961 symmetric RTP: answer to where valid RTP comes from, which gets through NATs that
    // rewrote the peer's advertised address.
    if (this.#latched === null || this.#latched.address !== from.address || this.#latched.port !== from.port) {
      this.#latched = { address: from.address, port: from.port };
    }
    this.#remoteSsrc = packet.ssrc;
    // Statistics first: a relay below may rewrite the datagram's header in place and send it on.
    this.#stats.onReceive(packet.ssrc, packet.sequenceNumber, packet.timestamp, packet.payloadLength, Date.now());
    const tap = this.packetTap;
    if (tap !== null) {
      const tapped = this.#tapped;
      tapped.kind = isAudio ? 'audio' : 'event';
      tapped.datagram = datagram;
      tapped.plainHeader = hasPlainHeader(packet);
      tap(tapped);
    }
    if (isAudio) {
      // Into the jitter buffer (the payload is copied there, so a relay's header rewrite does not
      // matter); decoded only when the media tick reads a frame. Skipped while nothing decodes.
      if (this.#decodeWanted && this.#audio !== null) {
        this.#audio.receive(packet, datagram.subarray(packet.payloadOffset, packet.payloadOffset + packet.payloadLength), this.#host.now());
      }
      return;
    }
    if (isEvent) {
      const event = parseTelephoneEvent(datagram.subarray(packet.payloadOffset, packet.payloadOffset + packet.payloadLength));
      if (event === null) return;
      const digit = this.#dtmf.push(packet.ssrc, packet.timestamp, event, remote.codec.clockRate);
      if (digit !== null) this.#host.notify({ type: 'dtmfReceived', legId: this.id, digit: digit.digit, durationMs: digit.durationMs });
    }
  }

  /**
   * A received datagram that outlives this call: a copy when the socket lends its buffer
   * (`LegSocket.transient`). Audio needs none: the jitter buffer copies the payload and a relay
   * sends the datagram before returning.
   */
  #owned(datagram: Buffer): Buffer {
    return this.#socket.transient ? Buffer.from(datagram) : datagram;
  }

  #answerCheck(ice: IceLiteAgent, datagram: Buffer, from: DatagramSource): void {
    const outcome = ice.handle(datagram, { address: from.address, port: from.port });
    if (outcome.kind === 'ignored' || this.#closed) return;
    this.#socket.send(outcome.response, from.port, from.address);
  }

  /** RFC 3711 §3.3: authenticate (and replay-check) before anything reads the packet. */
  #unprotect(datagram: Buffer): Buffer | null {
    const result = this.#srtp?.unprotectRtp(datagram);
    if (result === undefined) return datagram;
    if (result.ok) return result.packet;
    if (!this.#srtpFailureLogged) {
      this.#srtpFailureLogged = true; // once per leg: plain RTP from a peer that should encrypt would flood the log
      this.#host.log('info', { legId: this.id, reason: result.reason }, 'SRTP packet refused');
    }
    return null;
  }

  #socketFailed(error: Error): void {
    if (this.#closed) return;
    this.#host.log('error', { legId: this.id, err: error.message }, 'RTP socket failed');
    this.#host.notify({ type: 'legFailed', legId: this.id, error: `RTP socket failed: ${error.message}`, fatal: true });
  }
}
