/**
 * SDES: SRTP keys carried in SDP (RFC 4568). What an endpoint's `media_encryption` and
 * `media_encryption_optimistic` mean for an offer we receive or make, parsing and writing
 * `a=crypto`, and our own master keys for a call (made once, repeated in every re-offer so a
 * re-INVITE does not restart the peer's SRTP context).
 */
import { randomBytes } from 'node:crypto';
import type { LegSrtp, SipEndpointConfig, SrtpSuiteName } from '@switchboard/core';
import type { MediaDescription } from 'sdp-transform';
import type { WebrtcSession } from './webrtc-sdp.js';

export type MediaEncryption = 'no' | 'sdes' | 'dtls';

export interface MediaSecurity {
  encryption: MediaEncryption;
  /** Encrypt when the peer can, carry plain RTP when it cannot. */
  optimistic: boolean;
}

export const PLAIN_MEDIA: MediaSecurity = { encryption: 'no', optimistic: false };

export function mediaSecurityOf(endpoint: SipEndpointConfig): MediaSecurity {
  return { encryption: endpoint.mediaEncryption ?? 'no', optimistic: endpoint.mediaEncryptionOptimistic ?? false };
}

/** Master key || salt lengths per suite (RFC 4568 §6.2.1, RFC 7714 §12). */
const MASTER_LENGTHS: Readonly<Record<SrtpSuiteName, number>> = {
  AES_CM_128_HMAC_SHA1_80: 30,
  AES_CM_128_HMAC_SHA1_32: 30,
  AEAD_AES_128_GCM: 28,
  AEAD_AES_256_GCM: 44,
};

/** What we offer, in our order of preference: the two suites every SDES phone knows (RFC 4568 §6.2). */
export const OFFERED_SUITES: readonly SrtpSuiteName[] = ['AES_CM_128_HMAC_SHA1_80', 'AES_CM_128_HMAC_SHA1_32'];

function isSuite(name: string): name is SrtpSuiteName {
  return Object.hasOwn(MASTER_LENGTHS, name);
}

/** One usable `a=crypto` line: its tag, suite and the master key || salt in base64. */
export interface CryptoAttribute {
  tag: number;
  suite: SrtpSuiteName;
  key: string;
}

/**
 * The `a=crypto` lines of an m-line we can use, in the order given (the offerer's preference,
 * RFC 4568 §7.1.1). A line is skipped when its suite is unknown, its key has the wrong length,
 * it carries several keys or an MKI (we send no MKI), or session parameters (e.g.
 * UNENCRYPTED_SRTP, KDR) that we do not implement (§6.3: such a line must not be accepted).
 */
export function usableCrypto(media: MediaDescription): CryptoAttribute[] {
  const usable: CryptoAttribute[] = [];
  for (const line of media.crypto ?? []) {
    if (!isSuite(line.suite) || line.sessionConfig !== undefined) continue;
    if (!Number.isInteger(line.id) || line.id < 0 || line.id > 999_999_999) continue;
    const params = line.config.split(';');
    if (params.length !== 1 || !params[0].startsWith('inline:')) continue;
    const [key, ...rest] = params[0].slice('inline:'.length).split('|');
    // `|lifetime` is fine (we never reach 2^31 packets in one call); `|MKI:length` is not.
    if (rest.length > 1 || (rest.length === 1 && rest[0].includes(':'))) continue;
    if (!/^[A-Za-z0-9+/]+={0,2}$/.test(key) || Buffer.from(key, 'base64').length !== MASTER_LENGTHS[line.suite]) continue;
    usable.push({ tag: line.id, suite: line.suite, key });
  }
  return usable;
}

/** Our master keys for one call, one per suite, made on first use. */
export class SdesKeys {
  readonly #keys = new Map<SrtpSuiteName, string>();

  inline(suite: SrtpSuiteName): string {
    let key = this.#keys.get(suite);
    if (key === undefined) {
      key = randomBytes(MASTER_LENGTHS[suite]).toString('base64');
      this.#keys.set(suite, key);
    }
    return key;
  }

  /** `a=crypto` lines for an offer: every suite we offer, tags from 1. */
  offerLines(): NonNullable<MediaDescription['crypto']> {
    return OFFERED_SUITES.map((suite, i) => ({ id: i + 1, suite, config: `inline:${this.inline(suite)}` }));
  }

  /** The suite we offered under `tag` (tags count from 1 in OFFERED_SUITES order). */
  offeredSuite(tag: number): SrtpSuiteName | undefined {
    return OFFERED_SUITES[tag - 1];
  }

  /** The `a=crypto` line answering the chosen one: same tag and suite, our key (RFC 4568 §7.1.2). */
  answerLine(chosen: { tag: number; suite: SrtpSuiteName }): NonNullable<MediaDescription['crypto']>[number] {
    return { id: chosen.tag, suite: chosen.suite, config: `inline:${this.inline(chosen.suite)}` };
  }

  /** The leg's keys for an agreed suite: ours to send, the peer's to receive. */
  legSrtp(suite: SrtpSuiteName, remoteKey: string): LegSrtp {
    return { suite, localMasterKey: this.inline(suite), remoteMasterKey: remoteKey };
  }
}

/** What the SDP layer needs to key a call: the endpoint's policy and the call's keys. */
export interface SdesContext {
  readonly security: MediaSecurity;
  readonly keys: SdesKeys;
  /** ICE, DTLS and rtcp-mux of the call (webrtc-sdp.ts); absent: none of them. */
  readonly webrtc?: WebrtcSession;
}

export const SECURE_PROFILES = new Set(['RTP/SAVP', 'RTP/SAVPF']);

/** The media-leg field for a negotiated stream: present only when it is SRTP. */
export function legSrtpOf(remote: { srtp?: LegSrtp }): { srtp?: LegSrtp } {
  return remote.srtp === undefined ? {} : { srtp: remote.srtp };
}
