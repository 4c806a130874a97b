/**
 * One playback on one leg, inside a worker: its state, its audio, and its place in the schedule.
 *
 *     loading ──begin()──► playing ──last frame taken──► finished (complete)
 *        │                    │
 *        └──stop / fail───────┴──stop──────────────────► finished (stopped | failed)
 *
 * The leg owns sockets and the RTP stream; this class only hands out 160-sample frames when the
 * pacer says they are due. Time is passed in, so it can be driven by a test without sleeping.
 */
import { Pacer } from '../playback/pacer.js';

export type PlaybackState = 'loading' | 'playing' | 'finished';

const TRANSITIONS: Record<PlaybackState, readonly PlaybackState[]> = {
  loading: ['playing', 'finished'],
  playing: ['finished'],
  finished: [],
};

/** Samples per 20 ms frame at 8 kHz. */
export const SAMPLES_PER_FRAME = 160;

export class Playback {
  readonly id: string;
  #state: PlaybackState = 'loading';
  #samples: Int16Array = new Int16Array(0);
  #pacer: Pacer | null = null;
  /** Holds the last, partial frame padded with silence, so no frame is ever short. */
  readonly #padded = new Int16Array(SAMPLES_PER_FRAME);

  constructor(id: string) {
    this.id = id;
  }

  get state(): PlaybackState {
    return this.#state;
  }

  #transition(next: PlaybackState): void {
    if (!TRANSITIONS[this.#state].includes(next)) {
      throw new Error(`playback ${this.id}: illegal transition ${this.#state} → ${next}`);
    }
    this.#state = next;
  }

  /** The audio is loaded: the schedule starts at `nowMs`. */
  begin(samples: Int16Array, nowMs: number): void {
    this.#transition('playing');
    this.#samples = samples;
    this.#pacer = new Pacer(nowMs, Math.ceil(samples.length / SAMPLES_PER_FRAME));
  }

  finish(): void {
    this.#transition('finished');
  }

  get totalFrames(): number {
    return this.#pacer?.totalFrames ?? 0;
  }

  /** Every frame has been handed out. */
  get exhausted(): boolean {
    return this.#pacer === null || this.#pacer.done;
  }

  /** Index of the next frame to hand out. */
  get nextFrameIndex(): number {
    return this.#pacer?.taken ?? 0;
  }

  /** How many frames are due by `nowMs`; the caller then takes that many with `frame()`. */
  due(nowMs: number): number {
    return this.#state === 'playing' && this.#pacer !== null ? this.#pacer.take(nowMs) : 0;
  }

  /** When frame `index` was due (its place in the schedule, not when it was actually sent). */
  dueAt(index: number): number {
    return this.#pacer === null ? 0 : this.#pacer.startMs + index * this.#pacer.frameMs;
  }

  /**
   * The samples of frame `index` (a view into the audio, or the padded copy for a short last
   * frame; valid until the next call).
   */
  frame(index: number): Int16Array {
    const start = index * SAMPLES_PER_FRAME;
    const end = start + SAMPLES_PER_FRAME;
    if (end <= this.#samples.length) return this.#samples.subarray(start, end);
    this.#padded.fill(0);
    this.#padded.set(this.#samples.subarray(start));
    return this.#padded;
  }
}
