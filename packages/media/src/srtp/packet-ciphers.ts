/**
 * The per-packet transforms of one direction: AES-CM + HMAC-SHA1 (RFC 3711 §3.1, §3.4, §4.1.1,
 * §4.2) and AES-GCM (RFC 7714 §8, §9). They only encrypt, decrypt and authenticate; which index a
 * packet carries (ROC, SRTCP index) and whether it was seen before is srtp-session.ts's job.
 */
import { createCipheriv, createDecipheriv, timingSafeEqual } from 'node:crypto';
import { AesCounterMode } from './aes-cm.js';
import { HmacSha1 } from './hmac-sha1.js';
import type { SessionKeys } from './key-derivation.js';
import type { SrtpSuite } from './suites.js';

/** The SRTCP E flag and 31-bit index that follow the encrypted part (RFC 3711 §3.4). */
export const SRTCP_INDEX_LENGTH = 4;
/** RTCP header octets sent in the clear: V/P/RC, PT, length, SSRC. */
export const RTCP_CLEAR_HEADER = 8;
const GCM_TAG = 16;

export interface RtpCipher {
  readonly tagLength: number;
  /** `header | payload` → `header | encrypted payload | tag`, for packet index `index` (48 bits). */
  encrypt(packet: Uint8Array, headerLength: number, ssrc: number, index: number): Buffer;
  /** The reverse, or null when the tag does not verify (nothing is decrypted then). */
  decrypt(packet: Uint8Array, headerLength: number, ssrc: number, index: number): Buffer | null;
}

export interface RtcpCipher {
  /** Bytes an SRTCP packet adds to its RTCP packet. */
  readonly overhead: number;
  /** `header | rest` → the SRTCP packet with index `index` and the E flag set. */
  encrypt(packet: Uint8Array, ssrc: number, index: number): Buffer;
  /** The SRTCP index carried by `packet` (it precedes the tag for AES-CM and follows it for GCM). */
  indexOf(packet: Uint8Array): { index: number; encrypted: boolean };
  /** The RTCP packet, or null when the tag does not verify. */
  decrypt(packet: Uint8Array, ssrc: number, index: number, encrypted: boolean): Buffer | null;
}

function roc(index: number): Buffer {
  const trailer = Buffer.allocUnsafe(4);
  trailer.writeUInt32BE(Math.floor(index / 0x10000) >>> 0, 0);
  return trailer;
}

/** RFC 3711 §4.2: the tag authenticates the header and encrypted payload, then the 32-bit ROC. */
class CmRtpCipher implements RtpCipher {
  readonly tagLength: number;
  readonly #ctr: AesCounterMode;
  readonly #hmac: HmacSha1;

  constructor(keys: SessionKeys, tagLength: number) {
    this.tagLength = tagLength;
    this.#ctr = new AesCounterMode(keys.encryptionKey, keys.salt);
    this.#hmac = new HmacSha1(keys.authenticationKey);
  }

  encrypt(packet: Uint8Array, headerLength: number, ssrc: number, index: number): Buffer {
    const out = Buffer.allocUnsafe(packet.length + this.tagLength);
    out.set(packet, 0);
    const body = out.subarray(0, packet.length);
    this.#ctr.apply(body.subarray(headerLength), ssrc, index);
    this.#hmac.tag(body, roc(index), this.tagLength).copy(out, packet.length);
    return out;
  }

  decrypt(packet: Uint8Array, headerLength: number, ssrc: number, index: number): Buffer | null {
    const end = packet.length - this.tagLength;
    if (end < headerLength) return null;
    const expected = this.#hmac.tag(packet.subarray(0, end), roc(index), this.tagLength);
    if (!timingSafeEqual(expected, packet.subarray(end))) return null;
    const out = Buffer.from(packet.subarray(0, end));
    this.#ctr.apply(out.subarray(headerLength), ssrc, index);
    return out;
  }
}

/** RFC 3711 §3.4: header | encrypted rest | E·index | tag, the tag over everything before it. */
class CmRtcpCipher implements RtcpCipher {
  readonly overhead: number;
  readonly #tagLength: number;
  readonly #ctr: AesCounterMode;
  readonly #hmac: HmacSha1;

  constructor(keys: SessionKeys, tagLength: number) {
    this.#tagLength = tagLength;
    this.overhead = SRTCP_INDEX_LENGTH + tagLength;
    this.#ctr = new AesCounterMode(keys.encryptionKey, keys.salt);
    this.#hmac = new HmacSha1(keys.authenticationKey);
  }

  encrypt(packet: Uint8Array, ssrc: number, index: number): Buffer {
    const out = Buffer.allocUnsafe(packet.length + this.overhead);
    out.set(packet, 0);
    this.#ctr.apply(out.subarray(RTCP_CLEAR_HEADER, packet.length), ssrc, index);
    out.writeUInt32BE((0x80000000 | index) >>> 0, packet.length);
    const authenticated = out.subarray(0, packet.length + SRTCP_INDEX_LENGTH);
    this.#hmac.tag(authenticated, null, this.#tagLength).copy(out, authenticated.length);
    return out;
  }

  indexOf(packet: Uint8Array): { index: number; encrypted: boolean } {
    const word = Buffer.from(packet.buffer, packet.byteOffset, packet.length).readUInt32BE(packet.length - this.overhead);
    return { index: word & 0x7fffffff, encrypted: (word & 0x80000000) !== 0 };
  }

  decrypt(packet: Uint8Array, ssrc: number, index: number, encrypted: boolean): Buffer | null {
    const authenticatedEnd = packet.length - this.#tagLength;
    const expected = this.#hmac.tag(packet.subarray(0, authenticatedEnd), null, this.#tagLength);
    if (!timingSafeEqual(expected, packet.subarray(authenticatedEnd))) return null;
    const out = Buffer.from(packet.subarray(0, authenticatedEnd - SRTCP_INDEX_LENGTH));
    if (encrypted) this.#ctr.apply(out.subarray(RTCP_CLEAR_HEADER), ssrc, index);
    return out;
  }
}

/** RFC 7714 §8.1: IV = (0x0000 || SSRC || ROC || SEQ) XOR salt; §9.1 for SRTCP with 0x0000 || index. */
function gcmIv(salt: Buffer, ssrc: number, high: number, low: number, lowBytes: 2 | 4): Buffer {
  const iv = Buffer.alloc(12);
  iv.writeUInt32BE(ssrc >>> 0, 2);
  if (lowBytes === 2) {
    iv.writeUInt32BE(high >>> 0, 6);
    iv.writeUInt16BE(low, 10);
  } else {
    iv.writeUInt32BE(low >>> 0, 8);
  }
  for (let i = 0; i < 12; i++) iv[i] ^= salt[i];
  return iv;
}

function gcmAlgorithm(key: Buffer): 'aes-128-gcm' | 'aes-256-gcm' {
  return key.length === 32 ? 'aes-256-gcm' : 'aes-128-gcm';
}

/** RFC 7714 §8.2: the header is the associated data; the 16-octet tag follows the ciphertext. */
class GcmRtpCipher implements RtpCipher {
  readonly tagLength = GCM_TAG;
  readonly #keys: SessionKeys;

  constructor(keys: SessionKeys) {
    this.#keys = keys;
  }

  encrypt(packet: Uint8Array, headerLength: number, ssrc: number, index: number): Buffer {
    const iv = gcmIv(this.#keys.salt, ssrc, Math.floor(index / 0x10000), index & 0xffff, 2);
    const cipher = createCipheriv(gcmAlgorithm(this.#keys.encryptionKey), this.#keys.encryptionKey, iv, { authTagLength: GCM_TAG });
    cipher.setAAD(packet.subarray(0, headerLength));
    const body = cipher.update(packet.subarray(headerLength));
    cipher.final();
    return Buffer.concat([packet.subarray(0, headerLength), body, cipher.getAuthTag()]);
  }

  decrypt(packet: Uint8Array, headerLength: number, ssrc: number, index: number): Buffer | null {
    const end = packet.length - GCM_TAG;
    if (end < headerLength) return null;
    const iv = gcmIv(this.#keys.salt, ssrc, Math.floor(index / 0x10000), index & 0xffff, 2);
    const decipher = createDecipheriv(gcmAlgorithm(this.#keys.encryptionKey), this.#keys.encryptionKey, iv, { authTagLength: GCM_TAG });
    decipher.setAAD(packet.subarray(0, headerLength));
    decipher.setAuthTag(packet.subarray(end));
    const body = decipher.update(packet.subarray(headerLength, end));
    try {
      decipher.final();
    } catch {
      return null; // the tag did not verify: the plaintext is discarded unread
    }
    return Buffer.concat([packet.subarray(0, headerLength), body]);
  }
}

/** RFC 7714 §9: header(8) | ciphertext | tag | E·index; the AAD is the header and the E·index word. */
class GcmRtcpCipher implements RtcpCipher {
  readonly overhead = GCM_TAG + SRTCP_INDEX_LENGTH;
  readonly #keys: SessionKeys;

  constructor(keys: SessionKeys) {
    this.#keys = keys;
  }

  encrypt(packet: Uint8Array, ssrc: number, index: number): Buffer {
    const trailer = Buffer.allocUnsafe(SRTCP_INDEX_LENGTH);
    trailer.writeUInt32BE((0x80000000 | index) >>> 0, 0);
    const iv = gcmIv(this.#keys.salt, ssrc, 0, index, 4);
    const cipher = createCipheriv(gcmAlgorithm(this.#keys.encryptionKey), this.#keys.encryptionKey, iv, { authTagLength: GCM_TAG });
    cipher.setAAD(Buffer.concat([packet.subarray(0, RTCP_CLEAR_HEADER), trailer]));
    const body = cipher.update(packet.subarray(RTCP_CLEAR_HEADER));
    cipher.final();
    return Buffer.concat([packet.subarray(0, RTCP_CLEAR_HEADER), body, cipher.getAuthTag(), trailer]);
  }

  indexOf(packet: Uint8Array): { index: number; encrypted: boolean } {
    const word = Buffer.from(packet.buffer, packet.byteOffset, packet.length).readUInt32BE(packet.length - SRTCP_INDEX_LENGTH);
    return { index: word & 0x7fffffff, encrypted: (word & 0x80000000) !== 0 };
  }

  decrypt(packet: Uint8Array, ssrc: number, index: number, encrypted: boolean): Buffer | null {
    const trailerAt = packet.length - SRTCP_INDEX_LENGTH;
    const tagAt = trailerAt - GCM_TAG;
    const iv = gcmIv(this.#keys.salt, ssrc, 0, index, 4);
    const decipher = createDecipheriv(gcmAlgorithm(this.#keys.encryptionKey), this.#keys.encryptionKey, iv, { authTagLength: GCM_TAG });
    decipher.setAuthTag(packet.subarray(tagAt, trailerAt));
    const trailer = packet.subarray(trailerAt);
    // RFC 7714 §9.2: with E = 0 the whole packet is associated data and nothing is encrypted.
    if (encrypted) {
      decipher.setAAD(Buffer.concat([packet.subarray(0, RTCP_CLEAR_HEADER), trailer]));
      const body = decipher.update(packet.subarray(RTCP_CLEAR_HEADER, tagAt));
      try {
        decipher.final();
      } catch {
        return null;
      }
      return Buffer.concat([packet.subarray(0, RTCP_CLEAR_HEADER), body]);
    }
    decipher.setAAD(Buffer.concat([packet.subarray(0, tagAt), trailer]));
    try {
      decipher.final();
    } catch {
      return null;
    }
    return Buffer.from(packet.subarray(0, tagAt));
  }
}

export function rtpCipher(suite: SrtpSuite, keys: SessionKeys): RtpCipher {
  return suite.cipher === 'aes-cm' ? new CmRtpCipher(keys, suite.rtpTagLength) : new GcmRtpCipher(keys);
}

export function rtcpCipher(suite: SrtpSuite, keys: SessionKeys): RtcpCipher {
  return suite.cipher === 'aes-cm' ? new CmRtcpCipher(keys, suite.rtcpTagLength) : new GcmRtcpCipher(keys);
}
