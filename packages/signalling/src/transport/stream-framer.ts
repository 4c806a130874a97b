/**
 * Message framing on stream transports (RFC 3261 §18.3): a message is its header section up to the
 * first empty line, then exactly Content-Length bytes of body. CRLFs between messages are skipped
 * (§7.5); a double CRLF there is an RFC 5626 §3.5.1 keep-alive ping, which the transport answers
 * with a single CRLF pong. Pure: bytes in, messages and pings out.
 *
 * Linear in the bytes received however they are split: received bytes are appended to a buffer
 * that grows by doubling, and the search for the end of the header section resumes where the
 * previous one stopped. (Concatenating and rescanning from the start on every chunk made a
 * client sending a 64 KiB header one byte at a time cost gigabytes of copying.)
 */
import { SipParseError } from '../errors.js';

export type FramerOutput = { kind: 'message'; data: Buffer } | { kind: 'ping' };

const CRLFCRLF = Buffer.from('\r\n\r\n');
const CONTENT_LENGTH = /^(?:content-length|l)[ \t]*:[ \t]*(\d{1,10})[ \t]*$/im;
const INITIAL_CAPACITY = 4096;

export class StreamFramer {
  readonly #maxMessageBytes: number;
  #storage: Buffer = Buffer.alloc(0);
  /** Unconsumed bytes are #storage[#start, #end). */
  #start = 0;
  #end = 0;
  /** Offset (from #start) where the next search for CRLFCRLF begins. */
  #searched = 0;

  constructor(maxMessageBytes: number) {
    this.#maxMessageBytes = maxMessageBytes;
  }

  /** Bytes received and not yet part of a whole message. */
  get buffered(): number {
    return this.#end - this.#start;
  }

  /**
   * Adds received bytes and returns every whole message (and ping) they complete. Throws
   * SipParseError when the stream cannot be framed any more (a header section or a body beyond the
   * size limit): the connection must then be closed, since the next message's start is unknown.
   */
  push(chunk: Buffer): FramerOutput[] {
    this.#append(chunk);
    const out: FramerOutput[] = [];
    for (;;) {
      const buffer = this.#storage;
      let skip = this.#start;
      while (skip < this.#end && (buffer[skip] === 0x0d || buffer[skip] === 0x0a)) skip++;
      if (skip > this.#start) {
        if (skip - this.#start >= 4 && buffer.subarray(this.#start, this.#start + 4).equals(CRLFCRLF)) out.push({ kind: 'ping' });
        this.#consume(skip - this.#start);
      }
      if (this.buffered === 0) return out;
      const from = this.#start + Math.max(0, this.#searched - 3);
      const found = buffer.subarray(0, this.#end).indexOf(CRLFCRLF, from);
      if (found === -1) {
        this.#searched = this.buffered;
        if (this.buffered > this.#maxMessageBytes) throw new SipParseError('header section exceeds the message size limit');
        return out;
      }
      const headEnd = found - this.#start;
      this.#searched = headEnd;
      const head = buffer.toString('latin1', this.#start, found);
      const match = CONTENT_LENGTH.exec(head);
      // A missing Content-Length frames an empty body; the parser then refuses the message
      // (it is mandatory on streams), which still lets a request be answered with 400.
      const bodyLength = match === null ? 0 : Number(match[1]);
      const total = headEnd + 4 + bodyLength;
      if (total > this.#maxMessageBytes) throw new SipParseError(`message of ${total} bytes exceeds the size limit`);
      if (this.buffered < total) return out;
      out.push({ kind: 'message', data: Buffer.from(buffer.subarray(this.#start, this.#start + total)) });
      this.#consume(total);
    }
  }

  #consume(bytes: number): void {
    this.#start += bytes;
    this.#searched = 0;
    if (this.#start === this.#end) {
      this.#start = 0;
      this.#end = 0;
      // An idle connection does not keep the room a large message needed.
      if (this.#storage.length > 4 * INITIAL_CAPACITY) this.#storage = Buffer.alloc(0);
    }
  }

  #append(chunk: Buffer): void {
    const length = this.buffered;
    if (this.#end + chunk.length > this.#storage.length) {
      // Compact, and grow by doubling when the unconsumed bytes plus the chunk do not fit.
      const needed = length + chunk.length;
      let capacity = Math.max(this.#storage.length, INITIAL_CAPACITY);
      while (capacity < needed) capacity *= 2;
      const next = capacity === this.#storage.length ? this.#storage : Buffer.allocUnsafe(capacity);
      this.#storage.copy(next, 0, this.#start, this.#end);
      this.#storage = next;
      this.#start = 0;
      this.#end = length;
    }
    chunk.copy(this.#storage, this.#end);
    this.#end += chunk.length;
  }
}
