/**
 * AES in counter mode as SRTP uses it (RFC 3711 §4.1.1): the keystream of a packet is AES_k(IV),
 * AES_k(IV + 1), … with IV = (k_s · 2^16) XOR (SSRC · 2^64) XOR (i · 2^16). One ECB context per
 * session key is kept and fed the packet's counter blocks, so no cipher object is made per packet.
 */
import { type Cipher, createCipheriv } from 'node:crypto';

export class AesCounterMode {
  readonly #ecb: Cipher;
  /** The session salt in the IV's first 14 bytes, zero in the 16-bit block counter. */
  readonly #iv = Buffer.alloc(16);
  #counters = Buffer.alloc(16 * 64);

  constructor(key: Uint8Array, salt: Uint8Array) {
    this.#ecb = createCipheriv(key.length === 32 ? 'aes-256-ecb' : 'aes-128-ecb', key, null);
    this.#ecb.setAutoPadding(false);
    this.#iv.set(salt.subarray(0, 14), 0);
  }

  /**
   * XORs `data` in place with the keystream of (`ssrc`, `index`): `index` is the 48-bit SRTP packet
   * index (ROC · 2^16 + SEQ) or the 31-bit SRTCP index.
   */
  apply(data: Uint8Array, ssrc: number, index: number): void {
    const blocks = Math.ceil(data.length / 16);
    if (blocks === 0) return;
    if (this.#counters.length < blocks * 16) this.#counters = Buffer.alloc(blocks * 16);
    const counters = this.#counters;
    const iv = this.#iv;
    iv.copy(counters, 0, 0, 16);
    counters.writeUInt32BE((counters.readUInt32BE(4) ^ ssrc) >>> 0, 4);
    const high = Math.floor(index / 0x100000000) & 0xffff;
    counters.writeUInt16BE(counters.readUInt16BE(8) ^ high, 8);
    counters.writeUInt32BE((counters.readUInt32BE(10) ^ index) >>> 0, 10);
    // The block counter occupies the last 16 bits, which the salt leaves at zero.
    for (let i = 1; i < blocks; i++) {
      counters.copy(counters, i * 16, 0, 14);
      counters.writeUInt16BE(i, i * 16 + 14);
    }
    const keystream = this.#ecb.update(counters.subarray(0, blocks * 16));
    for (let i = 0; i < data.length; i++) data[i] ^= keystream[i];
  }
}
