/**
 * One playback (a file, a looping file, or a tone) on a leg or a bridge, inside a worker: its state
 * and the frames it hands out, one per media tick.
 *
 *     loading ──begin()──► playing ──source ended──► finished (complete)
 *        │                    │
 *        └──stop / fail───────┴──stop / fail───────► finished (stopped | failed)
 *
 * The owner (an endpoint or a bridge) asks for the next frame on each 20 ms tick of the worker's
 * media clock, so pacing lives in one place (worker-host.ts) and this class has no notion of time.
 */

export type PlaybackState = 'loading' | 'playing' | 'finished';

const TRANSITIONS: Record<PlaybackState, readonly PlaybackState[]> = {
  loading: ['playing', 'finished'],
  playing: ['finished'],
  finished: [],
};

/** Samples per 20 ms frame at 8 kHz. */
export const SAMPLES_PER_FRAME = 160;

/** Where a playback's audio comes from: 20 ms frames, one at a time (8 kHz unless it says otherwise). */
export interface FrameSource {
  /** Samples per frame: 160 at 8 kHz (absent), 320 at 16 kHz, 960 at 48 kHz. */
  readonly frameSamples?: number;
  /** Fills `out` (`frameSamples` samples) with the next frame; false when the source has ended (out untouched). */
  next(out: Int16Array): boolean;
  /** The source has nothing more to give: the frame last taken was the final one. */
  readonly done: boolean;
}

/** A decoded file's samples, split into 20 ms frames; the last is padded with silence. */
export class SampleSource implements FrameSource {
  readonly frameSamples: number;
  readonly #samples: Int16Array;
  readonly #loop: boolean;
  #position = 0;

  /** `start` skips into the first pass only (an offset); a loop starts again from sample 0. */
  constructor(samples: Int16Array, options: { loop?: boolean; start?: number; frameSamples?: number } = {}) {
    this.frameSamples = options.frameSamples ?? SAMPLES_PER_FRAME;
    this.#samples = samples;
    this.#loop = options.loop === true && samples.length > 0;
    this.#position = Math.min(options.start ?? 0, samples.length);
  }

  get done(): boolean {
    return !this.#loop && this.#position >= this.#samples.length;
  }

  next(out: Int16Array): boolean {
    if (this.#position >= this.#samples.length) {
      if (!this.#loop) return false;
      this.#position = 0;
    }
    const end = Math.min(this.#position + this.frameSamples, this.#samples.length);
    out.set(this.#samples.subarray(this.#position, end));
    if (end - this.#position < this.frameSamples) out.fill(0, end - this.#position);
    this.#position = end;
    return true;
  }
}

export class Playback {
  readonly id: string;
  #state: PlaybackState = 'loading';
  #source: FrameSource | null = null;
  #framesOut = 0;
  /** Reused for every frame: the consumer encodes or mixes it before asking for the next. */
  #frame = new Int16Array(SAMPLES_PER_FRAME);

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

  /** The audio is ready: frames flow from the next tick on. */
  begin(source: FrameSource): void {
    this.#transition('playing');
    this.#source = source;
    const samples = source.frameSamples ?? SAMPLES_PER_FRAME;
    if (samples !== this.#frame.length) this.#frame = new Int16Array(samples);
  }

  finish(): void {
    this.#transition('finished');
  }

  /** Frames handed out so far (0 means the next frame is the first: the playback starts). */
  get framesOut(): number {
    return this.#framesOut;
  }

  /** The source has nothing more: the frame last handed out was the final one (report `complete`). */
  get exhausted(): boolean {
    return this.#source?.done === true;
  }

  /** The next frame (a view valid until the next call), or null when not playing or ended. */
  nextFrame(): Int16Array | null {
    if (this.#state !== 'playing' || this.#source === null) return null;
    if (!this.#source.next(this.#frame)) return null;
    this.#framesOut += 1;
    return this.#frame;
  }
}
