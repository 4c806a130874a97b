/**
 * The two kinds of bridge member a bridge's home worker mixes for: a leg on the same worker (its
 * endpoint's captured frame in, its bridge output slot out) and a leg on another worker, reached
 * through a MessagePort (frames forwarded each tick, see bridge-link.ts).
 *
 * A member's audio travels at the leg's native rate (its frames' length says which); each member
 * converts between that rate and the bridge's mixing rate, in and out, with its own resamplers.
 */
import type { MessagePort } from 'node:worker_threads';
import { RateConverter, rateOfFrame } from '../dsp/rate-converter.js';
import type { ResampleRate } from '../dsp/resampler.js';
import type { MediaEndpoint } from '../worker/media-endpoint.js';
import { FrameQueue } from './frame-queue.js';
import { type LinkMessage, postFrame } from './bridge-link.js';

export interface BridgeMember {
  readonly legId: string;
  /** The endpoint when the leg lives on this worker. */
  readonly endpoint: MediaEndpoint | null;
  /** The rate the leg's audio comes in at: the highest the bridge needs to mix at for it. */
  readonly nativeRate: ResampleRate;
  /** This tick's audio from the leg at `rate` (null: silence). Called exactly once per tick. */
  input(rate: ResampleRate): Int16Array | null;
  /** This tick's audio for the leg, at the bridge's rate (null: nothing to send). */
  output(frame: Int16Array | null): void;
  /** The bridge changed rate: filter histories of the old rate pairs must not leak into the new. */
  resetRates(): void;
  /** Passes a DTMF digit from another member to this leg. */
  dtmf(digit: string, durationMs: number): void;
  close(): void;
}

export class LocalMember implements BridgeMember {
  readonly legId: string;
  readonly endpoint: MediaEndpoint;
  readonly #sendDtmf: (digit: string, durationMs: number) => void;
  readonly #in = new RateConverter();
  readonly #out = new RateConverter();

  constructor(endpoint: MediaEndpoint, sendDtmf: (digit: string, durationMs: number) => void) {
    this.legId = endpoint.id;
    this.endpoint = endpoint;
    this.#sendDtmf = sendDtmf;
  }

  get nativeRate(): ResampleRate {
    return this.endpoint.captureRate;
  }

  input(rate: ResampleRate): Int16Array | null {
    const frame = this.endpoint.inFrame;
    return frame === null ? null : this.#in.convert(frame, rate);
  }

  output(frame: Int16Array | null): void {
    this.endpoint.bridgeOut = frame === null ? null : this.#out.convert(frame, this.endpoint.captureRate);
  }

  resetRates(): void {
    this.#in.reset();
    this.#out.reset();
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
  readonly #in = new RateConverter();
  readonly #out = new RateConverter();
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

  input(rate: ResampleRate): Int16Array | null {
    const frame = this.#queue.shift();
    return frame === null ? null : this.#in.convert(frame, rate);
  }

  output(frame: Int16Array | null): void {
    if (frame !== null && !this.#closed) postFrame(this.#port, this.#out.convert(frame, this.#rate));
  }

  resetRates(): void {
    this.#in.reset();
    this.#out.reset();
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
