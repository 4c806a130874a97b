/**
 * RFC 3711 §4.3: session keys are derived from the master key and salt with the AES-CM PRF.
 * With a key derivation rate of 0 (the default, and all SDES and DTLS-SRTP use), r = 0 and one
 * derivation per label serves the whole session. For AES-GCM (RFC 7714 §11) the same PRF runs with
 * the 96-bit master salt padded by two zero octets to the 112 bits the PRF expects.
 */
import { createCipheriv } from 'node:crypto';
import { SRTP_SUITES, type SrtpSuiteName } from './suites.js';

/** RFC 3711 §4.3.1 labels (and §4.3.2 for SRTCP). */
export const LABEL = {
  rtpEncryption: 0x00,
  rtpAuthentication: 0x01,
  rtpSalt: 0x02,
  rtcpEncryption: 0x03,
  rtcpAuthentication: 0x04,
  rtcpSalt: 0x05,
} as const;

/** HMAC-SHA1 session authentication key length (RFC 3711 §4.2.1: n_a = 160). */
const AUTH_KEY_LENGTH = 20;

/** The keys one direction of one protocol (RTP or RTCP) uses. */
export interface SessionKeys {
  encryptionKey: Buffer;
  salt: Buffer;
  /** Empty for AES-GCM, whose tag needs no separate key. */
  authenticationKey: Buffer;
}

/**
 * The PRF of §4.3.1 for one label: x = key_id XOR master_salt (key_id = label || r, aligned to the
 * salt's least significant bits), then AES-CM keystream from IV = x · 2^16, truncated to `length`.
 */
export function deriveSessionKey(masterKey: Uint8Array, masterSalt: Uint8Array, label: number, length: number): Buffer {
  const x = Buffer.alloc(16);
  // A 96-bit GCM salt is padded with zeros on the right to the PRF's 112 bits (RFC 7714 §11).
  x.set(masterSalt.subarray(0, 14), 0);
  // key_id is 56 bits: the label lands in byte 7 of the 14-byte salt, r (= 0) after it.
  x[7] ^= label;
  const blocks = Math.ceil(length / 16);
  const counters = Buffer.alloc(blocks * 16);
  for (let i = 0; i < blocks; i++) {
    x.copy(counters, i * 16);
    counters.writeUInt16BE(i, i * 16 + 14);
  }
  const cipher = createCipheriv(masterKey.length === 32 ? 'aes-256-ecb' : 'aes-128-ecb', masterKey, null);
  cipher.setAutoPadding(false);
  return Buffer.concat([cipher.update(counters), cipher.final()]).subarray(0, length);
}

/** Session keys for SRTP (`rtp`) or SRTCP (`rtcp`) from one master key and salt. */
export function deriveKeys(suite: SrtpSuiteName, masterKey: Uint8Array, masterSalt: Uint8Array, protocol: 'rtp' | 'rtcp'): SessionKeys {
  const { keyLength, saltLength, cipher } = SRTP_SUITES[suite];
  const labels =
    protocol === 'rtp'
      ? [LABEL.rtpEncryption, LABEL.rtpAuthentication, LABEL.rtpSalt]
      : [LABEL.rtcpEncryption, LABEL.rtcpAuthentication, LABEL.rtcpSalt];
  return {
    encryptionKey: deriveSessionKey(masterKey, masterSalt, labels[0], keyLength),
    authenticationKey: cipher === 'aes-cm' ? deriveSessionKey(masterKey, masterSalt, labels[1], AUTH_KEY_LENGTH) : Buffer.alloc(0),
    salt: deriveSessionKey(masterKey, masterSalt, labels[2], saltLength),
  };
}
