/**
 * A file written in place, chunk by chunk, without holding the whole recording in memory. Each
 * write carries its own position, so several writes may be in flight at once and still land in
 * order; `finish()` waits for them, applies the final patches (a WAV header's lengths) and closes.
 * The first error is kept and reported by `finish()`.
 */
import { closeSync, fstatSync, openSync, readSync, unlinkSync, write as fsWrite, writeSync } from 'node:fs';

export class PositionalFile {
  readonly path: string;
  readonly #fd: number;
  #position: number;
  #inFlight = 0;
  #drained: (() => void) | null = null;
  #error: Error | null = null;
  #closed = false;

  /** Opens `path` for writing: truncated, or kept for appending at its end (`append`). */
  constructor(path: string, append: boolean) {
    this.path = path;
    this.#fd = openSync(path, append ? 'a+' : 'w+');
    // 'a+' would force every write to the end; reopen read-write so positional writes (header
    // patches) go where they are aimed.
    if (append) {
      closeSync(this.#fd);
      this.#fd = openSync(path, 'r+');
    }
    this.#position = append ? fstatSync(this.#fd).size : 0;
  }

  get size(): number {
    return this.#position;
  }

  get error(): Error | null {
    return this.#error;
  }

  /** Reads up to `length` bytes from the start (to find an existing WAV header). */
  readHead(length: number): Uint8Array {
    const head = new Uint8Array(length);
    const got = readSync(this.#fd, head, 0, length, 0);
    return head.subarray(0, got);
  }

  /** Moves the write position (after a header was located). */
  seek(position: number): void {
    this.#position = position;
  }

  /** Queues `bytes` at the current position and moves past them. */
  write(bytes: Uint8Array): void {
    if (this.#closed || this.#error !== null) return;
    const position = this.#position;
    this.#position += bytes.length;
    this.#inFlight += 1;
    fsWrite(this.#fd, bytes, 0, bytes.length, position, (error) => {
      if (error && this.#error === null) this.#error = error;
      this.#inFlight -= 1;
      if (this.#inFlight === 0) this.#drained?.();
    });
  }

  /** Queues `bytes` at `position` without moving the write position (a header rewritten in place). */
  writeAt(position: number, bytes: Uint8Array): void {
    const saved = this.#position;
    this.#position = position;
    this.write(bytes);
    this.#position = saved;
  }

  /** Waits for pending writes, writes each patch synchronously, closes. Rejects with the first error. */
  async finish(patches: Array<[number, Uint8Array]> = []): Promise<void> {
    if (this.#closed) return;
    if (this.#inFlight > 0) {
      await new Promise<void>((resolve) => {
        this.#drained = resolve;
      });
    }
    this.#closed = true;
    try {
      if (this.#error === null) for (const [position, bytes] of patches) writeSync(this.#fd, bytes, 0, bytes.length, position);
    } finally {
      closeSync(this.#fd);
    }
    if (this.#error !== null) throw this.#error;
  }

  /** Closes (after pending writes) and deletes the file. */
  async discard(): Promise<void> {
    try {
      await this.finish();
    } catch {
      // The file is being deleted; a write error no longer matters.
    }
    try {
      unlinkSync(this.path);
    } catch {
      // Already gone.
    }
  }
}
