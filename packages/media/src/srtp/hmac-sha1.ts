/**
 * HMAC-SHA1 (RFC 2104) with the session authentication key. Measured in a worker (bench/srtp-crypto.mjs):
 * one `createHmac` per packet costs less than copying precomputed inner and outer SHA-1 states
 * (two context copies and two digests cross into native code twice as often), so the key is kept and
 * a fresh HMAC made per tag.
 */
import { createHmac } from 'node:crypto';

export class HmacSha1 {
  readonly #key: Buffer;

  constructor(key: Uint8Array) {
    this.#key = Buffer.from(key);
  }

  /** The MAC of `message` followed by `trailer` (SRTP appends the ROC), truncated to `length` bytes. */
  tag(message: Uint8Array, trailer: Uint8Array | null, length: number): Buffer {
    const hmac = createHmac('sha1', this.#key).update(message);
    if (trailer !== null) hmac.update(trailer);
    return hmac.digest().subarray(0, length);
  }
}
