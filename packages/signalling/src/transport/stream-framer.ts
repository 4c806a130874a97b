/**
 * Message framing on stream transports (RFC 3261 §18.3): a message is its header section up to the
 * first empty line, then exactly Content-Length bytes of body. CRLFs between messages are skipped
 * (§7.5); a double CRLF there is an RFC 5626 §3.5.1 keep-alive ping, which the transport answers
 * with a single CRLF pong. Pure: bytes in, messages and pings out.
 */
import { SipParseError } from '../errors.js';

export type FramerOutput = { kind: 'message'; data: Buffer } | { kind: 'ping' };

const CRLFCRLF = Buffer.from('\r\n\r\n');
const CONTENT_LENGTH = /^(?:content-length|l)[ \t]*:[ \t]*(\d{1,10})[ \t]*$/im;

export class StreamFramer {
  readonly #maxMessageBytes: number;
  #buffer: Buffer = Buffer.alloc(0);

  constructor(maxMessageBytes: number) {
    this.#maxMessageBytes = maxMessageBytes;
  }

  /** Bytes received and not yet part of a whole message. */
  get buffered(): number {
    return this.#buffer.length;
  }

  /**
   * Adds received bytes and returns every whole message (and ping) they complete. Throws
   * SipParseError when the stream cannot be framed any more (a header section or a body beyond the
   * size limit): the connection must then be closed, since the next message's start is unknown.
   */
  push(chunk: Buffer): FramerOutput[] {
    this.#buffer = this.#buffer.length === 0 ? chunk : Buffer.concat([this.#buffer, chunk]);
    const out: FramerOutput[] = [];
    for (;;) {
      let start = 0;
      while (start < this.#buffer.length && (this.#buffer[start] === 0x0d || this.#buffer[start] === 0x0a)) start++;
      if (start > 0) {
        if (start >= 4 && this.#buffer.subarray(0, 4).equals(CRLFCRLF)) out.push({ kind: 'ping' });
        this.#buffer = this.#buffer.subarray(start);
      }
      if (this.#buffer.length === 0) return out;
      const headEnd = this.#buffer.indexOf(CRLFCRLF);
      if (headEnd === -1) {
        if (this.#buffer.length > this.#maxMessageBytes) throw new SipParseError('header section exceeds the message size limit');
        return out;
      }
      const head = this.#buffer.toString('latin1', 0, headEnd);
      const match = CONTENT_LENGTH.exec(head);
      // A missing Content-Length frames an empty body; the parser then refuses the message
      // (it is mandatory on streams), which still lets a request be answered with 400.
      const bodyLength = match === null ? 0 : Number(match[1]);
      const total = headEnd + 4 + bodyLength;
      if (total > this.#maxMessageBytes) throw new SipParseError(`message of ${total} bytes exceeds the size limit`);
      if (this.#buffer.length < total) return out;
      out.push({ kind: 'message', data: Buffer.from(this.#buffer.subarray(0, total)) });
      this.#buffer = this.#buffer.subarray(total);
    }
  }
}
