/**
 * The SRTP crypto suites Switchboard speaks, by their SDP names (RFC 4568 §6.2 for the AES-CM ones,
 * RFC 7714 §14.2 for AES-GCM), and what each needs: master key and salt lengths, the cipher, and the
 * authentication tag lengths of SRTP and SRTCP.
 */
export type SrtpSuiteName = 'AES_CM_128_HMAC_SHA1_80' | 'AES_CM_128_HMAC_SHA1_32' | 'AEAD_AES_128_GCM' | 'AEAD_AES_256_GCM';

export interface SrtpSuite {
  name: SrtpSuiteName;
  /** `aes-cm`: AES counter mode + HMAC-SHA1 (RFC 3711); `aes-gcm`: AEAD (RFC 7714). */
  cipher: 'aes-cm' | 'aes-gcm';
  /** Master (and session encryption) key length in bytes. */
  keyLength: 16 | 32;
  /** Master (and session) salt length in bytes: 14 for AES-CM, 12 for GCM (RFC 7714 §11). */
  saltLength: 14 | 12;
  /** Authentication tag appended to SRTP packets. */
  rtpTagLength: number;
  /** Authentication tag of SRTCP: 80 bits even for the _32 suite (RFC 3711 §5.2, RFC 4568 §6.2.2). */
  rtcpTagLength: number;
}

export const SRTP_SUITES: Readonly<Record<SrtpSuiteName, SrtpSuite>> = {
  AES_CM_128_HMAC_SHA1_80: {
    name: 'AES_CM_128_HMAC_SHA1_80',
    cipher: 'aes-cm',
    keyLength: 16,
    saltLength: 14,
    rtpTagLength: 10,
    rtcpTagLength: 10,
  },
  AES_CM_128_HMAC_SHA1_32: {
    name: 'AES_CM_128_HMAC_SHA1_32',
    cipher: 'aes-cm',
    keyLength: 16,
    saltLength: 14,
    rtpTagLength: 4,
    rtcpTagLength: 10,
  },
  // RFC 7714 §10: the GCM tag is 16 octets and covers both confidentiality and integrity.
  AEAD_AES_128_GCM: { name: 'AEAD_AES_128_GCM', cipher: 'aes-gcm', keyLength: 16, saltLength: 12, rtpTagLength: 16, rtcpTagLength: 16 },
  AEAD_AES_256_GCM: { name: 'AEAD_AES_256_GCM', cipher: 'aes-gcm', keyLength: 32, saltLength: 12, rtpTagLength: 16, rtcpTagLength: 16 },
};

export function isSrtpSuiteName(name: string): name is SrtpSuiteName {
  return Object.hasOwn(SRTP_SUITES, name);
}

/** Bytes of master key plus master salt, as carried in `inline:` (RFC 4568 §6.1). */
export function masterKeyLength(suite: SrtpSuiteName): number {
  const { keyLength, saltLength } = SRTP_SUITES[suite];
  return keyLength + saltLength;
}
