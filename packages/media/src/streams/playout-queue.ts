/**
 * What the application sends towards the call, waiting to be played out one 20 ms frame per tick.
 * The application may send audio in any chunk size and faster than real time; the queue cuts it
 * into frames and says when it is filling up (XOFF at XOFF_LEVEL frames, XON once it is back down
 * to XON_LEVEL), refuses audio beyond QUEUE_MAX_FRAMES, and plays silence when it is empty or
 * paused. A pure object: the stream's ticker calls `next()` every 20 ms.
 */

/** 20 s of audio. */
export const QUEUE_MAX_FRAMES = 1000;
export const XOFF_LEVEL = 900;
export const XON_LEVEL = 800;

export type QueueEvent =
  | { type: 'xoff' }
  | { type: 'xon' }
  | { type: 'drained' }
  | { type: 'bufferingCompleted'; correlationId?: string }
  | { type: 'markProcessed'; correlationId?: string };

interface Mark {
  /** Played out once this many frames have left the queue. */
  readonly afterFrame: number;
  readonly correlationId?: string;
}

export class PlayoutQueue {
  readonly #frameBytes: number;
  readonly #silence: Buffer;
  readonly #onEvent: (event: QueueEvent) => void;
  #frames: Buffer[] = [];
  #partial: Buffer = Buffer.alloc(0);
  #xoff = false;
  #paused = false;
  #buffering = false;
  #reportDrained = false;
  #enqueued = 0;
  #played = 0;
  #marks: Mark[] = [];
  /** Bytes refused because the queue was full. */
  dropped = 0;

  constructor(frameBytes: number, silenceByte: number, onEvent: (event: QueueEvent) => void) {
    this.#frameBytes = frameBytes;
    this.#silence = Buffer.alloc(frameBytes, silenceByte);
    this.#onEvent = onEvent;
  }

  get length(): number {
    return this.#frames.length;
  }

  get paused(): boolean {
    return this.#paused;
  }

  get full(): boolean {
    return this.#frames.length >= QUEUE_MAX_FRAMES;
  }

  get buffering(): boolean {
    return this.#buffering;
  }

  /** Adds audio; what does not fit is dropped (and counted). */
  push(data: Uint8Array): void {
    let bytes = this.#partial.length === 0 ? Buffer.from(data) : Buffer.concat([this.#partial, data]);
    while (bytes.length >= this.#frameBytes) {
      if (this.full) {
        this.dropped += bytes.length;
        bytes = Buffer.alloc(0);
        break;
      }
      this.#frames.push(bytes.subarray(0, this.#frameBytes));
      this.#enqueued += 1;
      bytes = bytes.subarray(this.#frameBytes);
    }
    this.#partial = bytes;
    if (!this.#xoff && this.#frames.length >= XOFF_LEVEL) {
      this.#xoff = true;
      this.#onEvent({ type: 'xoff' });
    }
  }

  /** The next frame to play: queued audio, or silence when there is none or playout is paused. */
  next(): Buffer {
    if (this.#paused || this.#frames.length === 0) return this.#silence;
    const frame = this.#frames.shift() as Buffer;
    this.#played += 1;
    while (this.#marks.length > 0 && (this.#marks[0] as Mark).afterFrame <= this.#played) {
      const mark = this.#marks.shift() as Mark;
      this.#onEvent({ type: 'markProcessed', ...(mark.correlationId !== undefined ? { correlationId: mark.correlationId } : {}) });
    }
    if (this.#xoff && this.#frames.length <= XON_LEVEL) {
      this.#xoff = false;
      this.#onEvent({ type: 'xon' });
    }
    if (this.#frames.length === 0 && this.#reportDrained) {
      this.#reportDrained = false;
      this.#onEvent({ type: 'drained' });
    }
    return frame;
  }

  /** Bulk media: a partial frame at the end is kept until STOP_MEDIA_BUFFERING. */
  startBuffering(): void {
    this.#buffering = true;
  }

  /** Ends bulk media: a partial last frame is padded with silence and queued. */
  stopBuffering(correlationId?: string): void {
    this.#buffering = false;
    if (this.#partial.length > 0 && !this.full) {
      const frame = Buffer.concat([this.#partial, this.#silence.subarray(this.#partial.length)]);
      this.#frames.push(frame);
      this.#enqueued += 1;
    }
    this.#partial = Buffer.alloc(0);
    this.#onEvent({ type: 'bufferingCompleted', ...(correlationId !== undefined ? { correlationId } : {}) });
  }

  /** Drops everything queued (and pending marks, which are reported as processed). */
  flush(): void {
    this.#played += this.#frames.length;
    this.#frames = [];
    this.#partial = Buffer.alloc(0);
    for (const mark of this.#marks.splice(0)) {
      this.#onEvent({ type: 'markProcessed', ...(mark.correlationId !== undefined ? { correlationId: mark.correlationId } : {}) });
    }
    if (this.#xoff) {
      this.#xoff = false;
      this.#onEvent({ type: 'xon' });
    }
  }

  /** Reports `markProcessed` when the audio queued so far has been played. */
  mark(correlationId?: string): void {
    const mark: Mark = { afterFrame: this.#enqueued, ...(correlationId !== undefined ? { correlationId } : {}) };
    if (mark.afterFrame <= this.#played)
      this.#onEvent({ type: 'markProcessed', ...(correlationId !== undefined ? { correlationId } : {}) });
    else this.#marks.push(mark);
  }

  /** Reports `drained` the next time the queue empties (at once when it is empty). */
  reportWhenDrained(): void {
    if (this.#frames.length === 0) this.#onEvent({ type: 'drained' });
    else this.#reportDrained = true;
  }

  pause(): void {
    this.#paused = true;
  }

  resume(): void {
    this.#paused = false;
  }
}
