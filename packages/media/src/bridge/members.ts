/**
 * The two kinds of bridge member a bridge's home worker mixes for: a leg on the same worker (its
 * endpoint's captured frame in, its bridge output slot out) and a leg on another worker, reached
 * through a MessagePort (frames forwarded each tick, see bridge-link.ts).
 *
 * A member's audio travels at the leg's native rate, both ways (a frame's length says which): the
 * bridge mixes per rate and converts between rates once per rate pair, never per member.
 */
import type { MessagePort } from 'node:worker_threads';
import { rateOfFrame } from '../dsp/rate-converter.js';
import type { ResampleRate } from '../dsp/resampler.js';
import type { MediaEndpoint } from '../worker/media-endpoint.js';
import { FrameQueue } from './frame-queue.js';
import { type LinkMessage, postFrame } from './bridge-link.js';

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
  close(): void;
}

export class LocalMember implements BridgeMember {
  readonly legId: string;
  readonly endpoint: MediaEndpoint;
  readonly #sendDtmf: (digit: string, durationMs: number) => void;

  constructor(endpoint: MediaEndpoint, sendDtmf: (digit: string, durationMs: number) => void) {
    this.legId = endpoint.id;
    this.endpoint = endpoint;
    this.#sendDtmf = sendDtmf;
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
    });
    port.on('close', () => {
      if (this.#closed) return;
      this.#closed = true;
      onGone();
    });
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
    if (this.#closed) return;
    this.#closed = true;
    this.#port.close();
  }
}
