/**
 * One RTP leg inside a worker: its UDP socket, its outgoing stream (SSRC, sequence, timestamp), its
 * send target (symmetric RTP), its counters, its DTMF detector and its current playback.
 * Received datagrams are hostile input: each is validated and anything unexpected is counted and
 * dropped; nothing a peer sends can throw out of the receive handler.
 */
import { randomBytes } from 'node:crypto';
import dgram from 'node:dgram';
import { isIP } from 'node:net';
import { encodeAlaw, encodeUlaw } from '../codecs/g711.js';
import { MediaError } from '../errors.js';
import type { LogLevel } from '../logger.js';
import { loadPlaybackAudio } from '../playback/playback-audio.js';
import type { WorkerNotification } from '../protocol.js';
import { RTP_HEADER_SIZE, parseRtpPacket, writeRtpHeader } from '../rtp/rtp-header.js';
import { DtmfEndDetector, parseTelephoneEvent } from '../rtp/telephone-event.js';
import type { LegCounters, LegRemote, PlaybackEndReason } from '../types.js';
import { Playback, SAMPLES_PER_FRAME } from './playback.js';

/** What a leg needs from the worker that hosts it. */
export interface LegHost {
  notify(notification: WorkerNotification): void;
  log(level: LogLevel, fields: Record<string, unknown>, msg: string): void;
  /** Monotonic milliseconds (performance.now in a worker). */
  now(): number;
  /** The leg has a playback that needs ticks. */
  wantTicks(leg: RtpLeg): void;
}

interface Address {
  address: string;
  port: number;
}

function randomUint32(): number {
  return randomBytes(4).readUInt32BE(0);
}

export class RtpLeg {
  readonly id: string;
  readonly localAddress: string;
  readonly localPort: number;
  readonly #socket: dgram.Socket;
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
  /** Schedule time of the last frame sent or skipped; null before the first. */
  #lastFrameAt: number | null = null;
  /** The next packet starts a talkspurt (RFC 3551 §4.1: marker on the first packet after silence). */
  #markerPending = true;

  #playback: Playback | null = null;
  readonly #dtmf = new DtmfEndDetector();
  readonly #counters: LegCounters = { packetsSent: 0, packetsReceived: 0, bytesSent: 0, bytesReceived: 0, packetsDropped: 0 };
  #sendErrorLogged = false;

  private constructor(id: string, socket: dgram.Socket, host: LegHost) {
    this.id = id;
    this.#socket = socket;
    this.#host = host;
    const bound = socket.address();
    this.localAddress = bound.address;
    this.localPort = bound.port;
    socket.on('message', (datagram, rinfo) => this.#receive(datagram, rinfo));
    socket.on('error', (error) => this.#socketFailed(error));
  }

  /** Binds a socket for a new leg. Rejects with `port_in_use` when the port is taken. */
  static open(id: string, bindAddress: string, port: number, host: LegHost): Promise<RtpLeg> {
    const family = isIP(bindAddress);
    if (family === 0) return Promise.reject(new MediaError('invalid_argument', `bind address ${bindAddress} is not an IP address`));
    const socket = dgram.createSocket({ type: family === 6 ? 'udp6' : 'udp4' });
    return new Promise((resolve, reject) => {
      const onError = (error: NodeJS.ErrnoException): void => {
        socket.close();
        if (error.code === 'EADDRINUSE') reject(new MediaError('port_in_use', `RTP port ${port} is in use`));
        else reject(new MediaError('bind_failed', `cannot bind RTP socket to ${bindAddress}:${port}: ${error.message}`));
      };
      socket.once('error', onError);
      socket.bind({ address: bindAddress, port, exclusive: true }, () => {
        socket.off('error', onError);
        resolve(new RtpLeg(id, socket, host));
      });
    });
  }

  setRemote(remote: LegRemote): void {
    const moved = this.#remote === null || this.#remote.address !== remote.address || this.#remote.port !== remote.port;
    // A new remote address (a re-INVITE moving the media) must not keep sending to the old source.
    if (moved) this.#latched = null;
    this.#remote = remote;
  }

  get counters(): LegCounters {
    return { ...this.#counters };
  }

  get hasActivePlayback(): boolean {
    return this.#playback !== null && this.#playback.state !== 'finished';
  }

  /** Starts a playback, replacing the current one. Emits through the host; never throws for file problems. */
  play(playbackId: string, file: string, offsetMs: number): void {
    this.#endPlayback('stopped');
    const playback = new Playback(playbackId);
    this.#playback = playback;
    if (this.#remote === null) {
      this.#endPlayback('failed', `leg ${this.id} has no remote yet: call setLegRemote before playing`);
      return;
    }
    loadPlaybackAudio(file, offsetMs).then(
      (samples) => {
        // The playback may have been stopped or replaced while the file was read.
        if (this.#playback !== playback || playback.state !== 'loading') return;
        playback.begin(samples, this.#host.now());
        this.#markerPending = true;
        if (playback.exhausted) {
          this.#endPlayback('complete');
          return;
        }
        this.#host.wantTicks(this);
        this.tick(this.#host.now()); // the first frame is due at once
      },
      (error: unknown) => {
        if (this.#playback !== playback || playback.state !== 'loading') return;
        this.#endPlayback('failed', error instanceof Error ? error.message : String(error));
      },
    );
  }

  /** Stops the playback if it is still the current one; a stale id is not an error. */
  stopPlayback(playbackId: string): void {
    if (this.#playback?.id === playbackId) this.#endPlayback('stopped');
  }

  /** Ends the current playback as `failed` (used when the leg's tick hit a bug). */
  failPlayback(error: string): void {
    this.#endPlayback('failed', error);
  }

  /** Sends every frame of the current playback that is due by `nowMs`. */
  tick(nowMs: number): void {
    const playback = this.#playback;
    if (playback === null || playback.state !== 'playing') return;
    const first = playback.nextFrameIndex;
    const count = playback.due(nowMs);
    for (let index = first; index < first + count; index += 1) {
      this.#sendFrame(playback.frame(index), playback.dueAt(index));
      if (index === 0) this.#host.notify({ type: 'playbackStarted', legId: this.id, playbackId: playback.id });
    }
    if (playback.exhausted) this.#endPlayback('complete');
  }

  close(): void {
    if (this.#closed) return;
    this.#endPlayback('stopped');
    this.#closed = true;
    this.#socket.close();
  }

  #endPlayback(reason: PlaybackEndReason, error?: string): void {
    const playback = this.#playback;
    if (playback === null) return;
    this.#playback = null;
    if (playback.state === 'finished') return;
    playback.finish();
    this.#markerPending = true;
    this.#host.notify(
      error === undefined
        ? { type: 'playbackFinished', legId: this.id, playbackId: playback.id, reason }
        : { type: 'playbackFinished', legId: this.id, playbackId: playback.id, reason, error },
    );
  }

  #mayTransmit(): boolean {
    // The peer's direction: if it only sends (hold) or is inactive, it wants nothing from us.
    const direction = this.#remote?.direction ?? 'sendrecv';
    return direction === 'sendrecv' || direction === 'recvonly';
  }

  /** Encodes and sends one frame, or accounts for it silently when the peer does not want audio. */
  #sendFrame(samples: Int16Array, dueAt: number): void {
    const remote = this.#remote;
    if (remote === null) return;
    // RFC 3550 §5.1: the timestamp follows the sampling clock, so after a pause between playbacks
    // it advances by the elapsed time (never less than one frame), keeping the stream monotonic.
    let timestamp = this.#nextTimestamp;
    if (this.#lastFrameAt !== null && this.#markerPending) {
      const elapsed = Math.round(((dueAt - this.#lastFrameAt) * remote.codec.clockRate) / 1000);
      if (elapsed > SAMPLES_PER_FRAME) timestamp = (timestamp + elapsed - SAMPLES_PER_FRAME) >>> 0;
    }
    this.#nextTimestamp = (timestamp + SAMPLES_PER_FRAME) >>> 0;
    this.#lastFrameAt = dueAt;

    if (!this.#mayTransmit() || this.#closed) {
      this.#markerPending = true;
      return;
    }
    const packet = Buffer.allocUnsafe(RTP_HEADER_SIZE + samples.length);
    writeRtpHeader(packet, {
      payloadType: remote.codec.payloadType,
      marker: this.#markerPending,
      sequenceNumber: this.#sequence,
      timestamp,
      ssrc: this.#ssrc,
    });
    if (remote.codec.name === 'PCMA') encodeAlaw(samples, packet, RTP_HEADER_SIZE);
    else encodeUlaw(samples, packet, RTP_HEADER_SIZE);
    this.#sequence = (this.#sequence + 1) & 0xffff;
    this.#markerPending = false;

    const target = this.#latched ?? remote;
    this.#socket.send(packet, target.port, target.address, (error) => {
      if (error && !this.#sendErrorLogged) {
        this.#sendErrorLogged = true; // once per leg: a dead peer would otherwise log 50 lines a second
        this.#host.log('warn', { legId: this.id, target, err: error.message }, 'RTP send failed');
      }
    });
    this.#counters.packetsSent += 1;
    this.#counters.bytesSent += packet.length;
  }

  #receive(datagram: Buffer, from: dgram.RemoteInfo): void {
    try {
      this.#accept(datagram, from);
    } catch (error) {
      // A parsing bug must cost one packet, not the worker and every call on it.
      this.#counters.packetsDropped += 1;
      this.#host.log('error', { legId: this.id, err: error instanceof Error ? error.stack : String(error) }, 'RTP receive failed');
    }
  }

  #accept(datagram: Buffer, from: dgram.RemoteInfo): void {
    const remote = this.#remote;
    const parsed = parseRtpPacket(datagram);
    // Before the remote is known there is no payload type to accept.
    if (this.#closed || remote === null || !parsed.ok) {
      this.#counters.packetsDropped += 1;
      return;
    }
    const packet = parsed.packet;
    const isAudio = packet.payloadType === remote.codec.payloadType;
    const isEvent = remote.telephoneEventPayloadType !== undefined && packet.payloadType === remote.telephoneEventPayloadType;
    if (!isAudio && !isEvent) {
      this.#counters.packetsDropped += 1;
      return;
    }
    this.#counters.packetsReceived += 1;
    this.#counters.bytesReceived += datagram.length;
    // RFC 4961 symmetric RTP: answer to where valid RTP comes from, which gets through NATs that
    // rewrote the peer's advertised address.
    if (this.#latched === null || this.#latched.address !== from.address || this.#latched.port !== from.port) {
      this.#latched = { address: from.address, port: from.port };
    }
    if (isEvent) {
      const event = parseTelephoneEvent(datagram.subarray(packet.payloadOffset, packet.payloadOffset + packet.payloadLength));
      if (event === null) return;
      const digit = this.#dtmf.push(packet.ssrc, packet.timestamp, event, remote.codec.clockRate);
      if (digit !== null) this.#host.notify({ type: 'dtmfReceived', legId: this.id, digit: digit.digit, durationMs: digit.durationMs });
    }
  }

  #socketFailed(error: Error): void {
    if (this.#closed) return;
    this.#host.log('error', { legId: this.id, err: error.message }, 'RTP socket failed');
    this.#host.notify({ type: 'legFailed', legId: this.id, error: `RTP socket failed: ${error.message}` });
  }
}
