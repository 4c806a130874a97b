/**
 * The two kinds of bridge member a bridge's home worker mixes for: a leg on the same worker (its
 * endpoint's captured frame in, its bridge output slot out) and a leg on another worker, reached
 * through a MessagePort (frames forwarded each tick, see bridge-link.ts).
 *
 * A member's audio travels at the leg's native rate, both ways (a frame's length says which): the
 * bridge mixes per rate and converts between rates once per rate pair, never per member.
 */
import type { MessagePort } from 'node:worker_threads';
import { parseRtpPacket, type RtpPacketInfo } from '../rtp/rtp-header.js';
import { rateOfFrame } from '../dsp/rate-converter.js';
import type { ResampleRate } from '../dsp/resampler.js';
import type { MediaEndpoint } from '../worker/media-endpoint.js';
import { type VideoStream, writeVideoHeader } from '../worker/video-stream.js';
import { FrameQueue } from './frame-queue.js';
import { type LinkMessage, postFrame } from './bridge-link.js';
import type { VideoFormat, VideoHeader } from './video-router.js';

/** What a member tells its bridge about its video (bridge-video.ts). */
export interface MemberVideoHandlers {
  /** A valid packet with the member's negotiated payload type (valid during the call only). */
  packet(datagram: Buffer, info: RtpPacketInfo): void;
  /** The member's peer asked for a keyframe (PLI/FIR) of the stream `mediaSsrc` (0: unnamed). */
  keyframeRequest(mediaSsrc: number): void;
  /** The member's peer sent a generic NACK naming `sequences` of the stream `mediaSsrc` as lost. */
  retransmissionRequest(mediaSsrc: number, sequences: readonly number[]): void;
  /** The member's negotiated video changed (re-INVITE, or it arrived over a link). */
  formatChanged(): void;
}

export interface BridgeMember {
  readonly legId: string;
  /** The endpoint when the leg lives on this worker. */
  readonly endpoint: MediaEndpoint | null;
  /** The rate the leg's audio comes in at and goes out at. */
  readonly nativeRate: ResampleRate;
  /** This tick's audio from the leg, at its native rate (null: silence). Called exactly once per tick. */
  input(): Int16Array | null;
  /** This tick's audio for the leg, at its native rate (null: nothing to send). */
  output(frame: Int16Array | null): void;
  /** Passes a DTMF digit from another member to this leg. */
  dtmf(digit: string, durationMs: number): void;
  /** The leg's negotiated video, null when it has none. */
  videoFormat(): VideoFormat | null;
  /** Hands the leg's video to the bridge (null: stop). */
  attachVideo(handlers: MemberVideoHandlers | null): void;
  /** Sends another member's video packet to this leg with the router's header. */
  sendVideo(datagram: Uint8Array, header: Readonly<VideoHeader>): void;
  /** Asks this leg's peer for a keyframe. */
  requestKeyframe(): void;
  /** Asks this leg's peer to resend these packets of the stream it sends (its sequence numbers). */
  requestRetransmission(sequences: readonly number[]): void;
  close(): void;
}

export class LocalMember implements BridgeMember {
  readonly legId: string;
  readonly endpoint: MediaEndpoint;
  readonly #sendDtmf: (digit: string, durationMs: number) => void;
  readonly #video: VideoStream | null;

  constructor(endpoint: MediaEndpoint, sendDtmf: (digit: string, durationMs: number) => void, video: VideoStream | null = null) {
    this.legId = endpoint.id;
    this.endpoint = endpoint;
    this.#sendDtmf = sendDtmf;
    this.#video = video;
  }

  videoFormat(): VideoFormat | null {
    return this.#video?.format ?? null;
  }

  attachVideo(handlers: MemberVideoHandlers | null): void {
    const video = this.#video;
    if (video === null) return;
    video.packetTap = handlers === null ? null : (datagram, info) => handlers.packet(datagram, info);
    video.keyframeTap = handlers === null ? null : (mediaSsrc) => handlers.keyframeRequest(mediaSsrc);
    video.nackTap = handlers === null ? null : (mediaSsrc, sequences) => handlers.retransmissionRequest(mediaSsrc, sequences);
  }

  sendVideo(datagram: Uint8Array, header: Readonly<VideoHeader>): void {
    this.#video?.forward(datagram, header);
  }

  requestKeyframe(): void {
    this.#video?.requestKeyframe();
  }

  requestRetransmission(sequences: readonly number[]): void {
    this.#video?.requestRetransmission(sequences);
  }

  get nativeRate(): ResampleRate {
    return this.endpoint.captureRate;
  }

  input(): Int16Array | null {
    return this.endpoint.inFrame;
  }

  output(frame: Int16Array | null): void {
    this.endpoint.bridgeOut = frame;
  }

  dtmf(digit: string, durationMs: number): void {
    this.#sendDtmf(digit, durationMs);
  }

  close(): void {
    this.attachVideo(null);
    this.endpoint.bridgeOut = null;
  }
}

/** A leg on another worker: its frames arrive on `port` from that worker's BridgeLink. */
export class RemoteMember implements BridgeMember {
  readonly legId: string;
  readonly endpoint = null;
  readonly #port: MessagePort;
  readonly #queue = new FrameQueue();
  /** Learned from the frames the leg's worker sends (8 kHz until the first arrives). */
  #rate: ResampleRate = 8000;
  #closed = false;
  #videoFormat: VideoFormat | null = null;
  #video: MemberVideoHandlers | null = null;

  /** `onDtmf` hears digits the remote leg received; `onGone` fires when the other worker's end closed (it died). */
  constructor(legId: string, port: MessagePort, onDtmf: (digit: string, durationMs: number) => void, onGone: () => void) {
    this.legId = legId;
    this.#port = port;
    port.on('message', (message: LinkMessage) => {
      if (message.type === 'frame') {
        const frame = new Int16Array(message.samples);
        this.#rate = rateOfFrame(frame);
        this.#queue.push(frame);
      } else if (message.type === 'dtmf') onDtmf(message.digit, message.durationMs);
      else this.#videoMessage(message);
    });
    port.on('close', () => {
      if (this.#closed) return;
      this.#closed = true;
      onGone();
    });
  }

  #videoMessage(message: LinkMessage): void {
    if (message.type === 'video') {
      const datagram = Buffer.from(message.packet);
      const parsed = parseRtpPacket(datagram);
      if (parsed.ok) this.#video?.packet(datagram, parsed.packet);
    } else if (message.type === 'videoFormat') {
      this.#videoFormat = message.format;
      this.#video?.formatChanged();
    } else if (message.type === 'keyframe') {
      this.#video?.keyframeRequest(message.mediaSsrc);
    } else if (message.type === 'nack') {
      this.#video?.retransmissionRequest(message.mediaSsrc, message.sequences);
    }
  }

  videoFormat(): VideoFormat | null {
    return this.#videoFormat;
  }

  attachVideo(handlers: MemberVideoHandlers | null): void {
    this.#video = handlers;
  }

  /** The packet is rewritten here and crosses to the leg's worker as a transferred buffer. */
  sendVideo(datagram: Uint8Array, header: Readonly<VideoHeader>): void {
    if (this.#closed) return;
    const buffer = new ArrayBuffer(datagram.length);
    const packet = Buffer.from(buffer);
    packet.set(datagram);
    writeVideoHeader(packet, header);
    this.#port.postMessage({ type: 'video', packet: buffer } satisfies LinkMessage, [buffer]);
  }

  requestKeyframe(): void {
    if (!this.#closed) this.#port.postMessage({ type: 'keyframe', mediaSsrc: 0 } satisfies LinkMessage);
  }

  requestRetransmission(sequences: readonly number[]): void {
    if (!this.#closed) this.#port.postMessage({ type: 'nack', mediaSsrc: 0, sequences: [...sequences] } satisfies LinkMessage);
  }

  get nativeRate(): ResampleRate {
    return this.#rate;
  }

  input(): Int16Array | null {
    return this.#queue.shift();
  }

  output(frame: Int16Array | null): void {
    if (frame !== null && !this.#closed) postFrame(this.#port, frame);
  }

  dtmf(digit: string, durationMs: number): void {
    if (!this.#closed) this.#port.postMessage({ type: 'dtmf', digit, durationMs } satisfies LinkMessage);
  }

  close(): void {
    this.#video = null;
    if (this.#closed) return;
    this.#closed = true;
    this.#port.close();
  }
}
