/**
 * Cross-worker bridging. A bridge lives on one worker (its home); a member leg on another worker
 * is linked to it by a MessageChannel the engine creates per membership, one end transferred to
 * each worker. On every 20 ms tick the leg's worker posts the leg's captured frame up the link and
 * hands the leg the newest mixed frame that came down; the home worker treats the link as a
 * RemoteMember. Frames travel at the leg's native rate as transferred ArrayBuffers (one copy, no
 * clone); a frame's length gives its rate, and the home resamples to and from the mixing rate. Each side queues what it
 * receives in a bounded FrameQueue, which absorbs the phase difference of the two workers' ticks
 * (one frame of added delay each way) and drops the oldest frames if one side runs ahead.
 *
 *     leg's worker                          home worker
 *     BridgeLink ──frame / dtmf──────────►  RemoteMember ─┐
 *         ▲                                               ├─ Bridge.step() mixes
 *         └────────────────────frame──────  RemoteMember ◄┘
 *
 * Video uses the same link, packet by packet as it arrives (never on the tick): the leg's worker
 * posts each received video packet up (`video`, a transferred copy) with the leg's negotiated
 * format (`videoFormat`), its peer's keyframe requests (`keyframe`) and NACKs (`nack`); the home's
 * router sends down packets already rewritten for the leg (`video`), and keyframe requests and NACKs
 * (in the peer's own sequence numbers) for its peer.
 *
 * When either worker dies its end of the channel closes; the survivor sees `close` and drops the
 * membership.
 */
import type { MessagePort } from 'node:worker_threads';
import type { MediaEndpoint } from '../worker/media-endpoint.js';
import type { VideoStream } from '../worker/video-stream.js';
import { frameSamplesAt } from '../dsp/rate-converter.js';
import { FrameQueue } from './frame-queue.js';
import type { VideoFormat } from './video-router.js';

/** What travels on a link, both ways (`videoFormat` only up). */
export type LinkMessage =
  | { type: 'frame'; samples: ArrayBuffer }
  | { type: 'dtmf'; digit: string; durationMs: number }
  | { type: 'video'; packet: ArrayBuffer }
  | { type: 'videoFormat'; format: VideoFormat | null }
  /** Up: the leg's peer asked for a keyframe of the stream `mediaSsrc`; down: ask the leg's peer. */
  | { type: 'keyframe'; mediaSsrc: number }
  /** Up: the leg's peer NACKed these packets of the stream `mediaSsrc`; down: ask the leg's peer to resend them. */
  | { type: 'nack'; mediaSsrc: number; sequences: number[] };

/** Posts one frame (any engine rate: its length tells) as a transferred copy (the frame itself may be a reused buffer). */
export function postFrame(port: MessagePort, frame: Int16Array): void {
  const copy = frame.slice();
  port.postMessage({ type: 'frame', samples: copy.buffer } satisfies LinkMessage, [copy.buffer]);
}

/** The leg's end of a cross-worker membership, on the leg's worker. */
export class BridgeLink {
  readonly bridgeId: string;
  readonly endpoint: MediaEndpoint;
  readonly #port: MessagePort;
  readonly #down = new FrameQueue();
  readonly #video: VideoStream | null;
  #closed = false;

  constructor(
    bridgeId: string,
    endpoint: MediaEndpoint,
    port: MessagePort,
    sendDtmf: (digit: string, durationMs: number) => void,
    onGone: () => void,
    video: VideoStream | null = null,
  ) {
    this.bridgeId = bridgeId;
    this.endpoint = endpoint;
    this.#port = port;
    this.#video = video;
    port.on('message', (message: LinkMessage) => {
      if (message.type === 'frame') this.#down.push(new Int16Array(message.samples));
      else if (message.type === 'dtmf') sendDtmf(message.digit, message.durationMs);
      else if (message.type === 'video') video?.sendRewritten(Buffer.from(message.packet));
      else if (message.type === 'keyframe') video?.requestKeyframe();
      else if (message.type === 'nack') video?.requestRetransmission(message.sequences);
    });
    port.on('close', () => {
      if (this.#closed) return;
      this.#closed = true;
      onGone();
    });
    if (video !== null) {
      video.packetTap = (datagram) => {
        if (this.#closed) return;
        const copy = new Uint8Array(datagram).buffer;
        port.postMessage({ type: 'video', packet: copy } satisfies LinkMessage, [copy]);
      };
      video.keyframeTap = (mediaSsrc) => {
        if (!this.#closed) port.postMessage({ type: 'keyframe', mediaSsrc } satisfies LinkMessage);
      };
      video.nackTap = (mediaSsrc, sequences) => {
        if (!this.#closed) port.postMessage({ type: 'nack', mediaSsrc, sequences: [...sequences] } satisfies LinkMessage);
      };
      this.videoChanged();
    }
  }

  /** The leg's negotiated video changed (or the link is new): the home's router must know. */
  videoChanged(): void {
    if (this.#closed || this.#video === null) return;
    this.#port.postMessage({ type: 'videoFormat', format: this.#video.format } satisfies LinkMessage);
  }

  /** After capture: the leg's frame goes up (silence when it sent nothing, so the home's queue keeps its pace). */
  sendUp(): void {
    if (this.#closed) return;
    postFrame(this.#port, this.endpoint.inFrame ?? new Int16Array(frameSamplesAt(this.endpoint.captureRate)));
  }

  /** Before render: the newest mix from the home becomes the leg's bridge output. */
  takeDown(): void {
    this.endpoint.bridgeOut = this.#down.shift();
  }

  /** A digit the leg received, for the bridge to pass on (unless the member absorbs DTMF). */
  forwardDtmf(digit: string, durationMs: number): void {
    if (!this.#closed) this.#port.postMessage({ type: 'dtmf', digit, durationMs } satisfies LinkMessage);
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.endpoint.bridgeOut = null;
    if (this.#video !== null) {
      this.#video.packetTap = null;
      this.#video.keyframeTap = null;
      this.#video.nackTap = null;
    }
    this.#port.close();
  }
}
