/**
 * HMAC-SHA1 (RFC 2104) with the key's inner and outer pad states computed once: each tag starts
 * from copies of the two SHA-1 contexts instead of rehashing the padded key for every packet.
 */
import { createHash, type Hash } from 'node:crypto';

const BLOCK = 64;

export class HmacSha1 {
  readonly #inner: Hash;
  readonly #outer: Hash;

  constructor(key: Uint8Array) {
    const padded = Buffer.alloc(BLOCK);
    if (key.length > BLOCK) padded.set(createHash('sha1').update(key).digest());
    else padded.set(key);
    const ipad = Buffer.alloc(BLOCK);
    const opad = Buffer.alloc(BLOCK);
    for (let i = 0; i < BLOCK; i++) {
      ipad[i] = padded[i] ^ 0x36;
      opad[i] = padded[i] ^ 0x5c;
    }
    this.#inner = createHash('sha1').update(ipad);
    this.#outer = createHash('sha1').update(opad);
  }

  /** The MAC of `message` followed by `trailer` (SRTP appends the ROC), truncated to `length` bytes. */
  tag(message: Uint8Array, trailer: Uint8Array | null, length: number): Buffer {
    const inner = this.#inner.copy().update(message);
    if (trailer !== null) inner.update(trailer);
    return this.#outer.copy().update(inner.digest()).digest().subarray(0, length);
  }
}
