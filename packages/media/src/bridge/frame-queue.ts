/**
 * A bounded queue of 20 ms frames between a producer and a consumer that run on different clocks:
 * a leg's receive path and the worker's media tick, or two workers' ticks (cross-worker bridging).
 *
 * Pushes of any length are cut into whole frames. The queue holds at most `capacity` frames and
 * drops the oldest beyond that, so latency stays bounded when the consumer is slower. After it has
 * run dry it hands out nothing until `prefill` frames are waiting again: one frame of extra delay
 * absorbs the phase jitter between the two clocks instead of producing a gap on every other tick.
 * A pure processor: no timers, no I/O.
 */
/** 20 ms at 8, 16 and 48 kHz. */
const WHOLE_FRAMES: readonly number[] = [160, 320, 960];

export class FrameQueue {
  readonly frameSamples: number;
  readonly capacity: number;
  readonly prefill: number;
  readonly #frames: Int16Array[] = [];
  #partial: Int16Array;
  #partialLength = 0;
  #starved = true;
  #dropped = 0;

  constructor(frameSamples = 160, capacity = 5, prefill = 2) {
    if (prefill > capacity) throw new RangeError(`prefill ${prefill} exceeds capacity ${capacity}`);
    this.frameSamples = frameSamples;
    this.capacity = capacity;
    this.prefill = prefill;
    this.#partial = new Int16Array(frameSamples);
  }

  get length(): number {
    return this.#frames.length;
  }

  /** Frames discarded because the queue was full. */
  get dropped(): number {
    return this.#dropped;
  }

  /**
   * Appends samples; a frame pushed whole (the common case) is kept without copying. A whole 20 ms
   * frame at another engine rate (320 or 960 samples: the sender's rate changed) is kept whole too.
   */
  push(samples: Int16Array): void {
    if (this.#partialLength === 0 && (samples.length === this.frameSamples || WHOLE_FRAMES.includes(samples.length))) {
      this.#enqueue(samples);
      return;
    }
    let offset = 0;
    while (offset < samples.length) {
      const take = Math.min(this.frameSamples - this.#partialLength, samples.length - offset);
      this.#partial.set(samples.subarray(offset, offset + take), this.#partialLength);
      this.#partialLength += take;
      offset += take;
      if (this.#partialLength === this.frameSamples) {
        this.#enqueue(this.#partial);
        this.#partial = new Int16Array(this.frameSamples);
        this.#partialLength = 0;
      }
    }
  }

  /** The oldest frame, or null when the queue is (re)filling. */
  shift(): Int16Array | null {
    if (this.#starved) {
      if (this.#frames.length < this.prefill) return null;
      this.#starved = false;
    }
    const frame = this.#frames.shift();
    if (frame === undefined) {
      this.#starved = true;
      return null;
    }
    return frame;
  }

  clear(): void {
    this.#frames.length = 0;
    this.#partialLength = 0;
    this.#starved = true;
  }

  #enqueue(frame: Int16Array): void {
    this.#frames.push(frame);
    while (this.#frames.length > this.capacity) {
      this.#frames.shift();
      this.#dropped += 1;
    }
  }
}
