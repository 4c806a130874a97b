/**
 * One SRTP session of a leg (RFC 3711): our master key protects what we send, the peer's master key
 * unprotects what we receive, for RTP and RTCP alike. Per SSRC it keeps the rollover counter and
 * highest sequence (§3.3.1), the replay windows (§3.3.2) and, for SRTCP, the send index (§3.4).
 */
import { deriveKeys } from './key-derivation.js';
import { type RtcpCipher, type RtpCipher, RTCP_CLEAR_HEADER, rtcpCipher, rtpCipher } from './packet-ciphers.js';
import { ReplayWindow, estimateIndex } from './replay-window.js';
import { masterKeyLength, SRTP_SUITES, type SrtpSuiteName } from './suites.js';

/** What a leg needs to run SRTP: the suite and both master keys (key || salt, as `inline:` carries them). */
export interface SrtpKeying {
  suite: SrtpSuiteName;
  localMasterKey: Uint8Array;
  remoteMasterKey: Uint8Array;
}

export type UnprotectResult = { ok: true; packet: Buffer } | { ok: false; reason: 'malformed' | 'authentication' | 'replay' };

/** Receivers keep state for this many SSRCs at most; a flood of made-up SSRCs cannot grow it. */
const MAX_REMOTE_STREAMS = 32;
const MAX_SRTCP_INDEX = 0x7fffffff;

interface SendState {
  rolloverCounter: number;
  lastSequence: number;
}

interface ReceiveState {
  rolloverCounter: number;
  highestSequence: number;
  window: ReplayWindow;
}

/** RFC 3550 §5.1: 12 bytes, CSRCs, and the extension when X is set; -1 when the packet is too short. */
export function rtpHeaderLength(packet: Uint8Array): number {
  if (packet.length < 12) return -1;
  let length = 12 + 4 * (packet[0] & 0x0f);
  if ((packet[0] & 0x10) !== 0) {
    if (packet.length < length + 4) return -1;
    length += 4 + 4 * ((packet[length + 2] << 8) | packet[length + 3]);
  }
  return length <= packet.length ? length : -1;
}

function ssrcOf(packet: Uint8Array, at: number): number {
  return ((packet[at] << 24) | (packet[at + 1] << 16) | (packet[at + 2] << 8) | packet[at + 3]) >>> 0;
}

function splitMaster(suite: SrtpSuiteName, master: Uint8Array, side: string): { key: Uint8Array; salt: Uint8Array } {
  const { keyLength } = SRTP_SUITES[suite];
  if (master.length !== masterKeyLength(suite)) {
    throw new RangeError(`${side} master key for ${suite} must be ${masterKeyLength(suite)} bytes, not ${master.length}`);
  }
  return { key: master.subarray(0, keyLength), salt: master.subarray(keyLength) };
}

export class SrtpSession {
  readonly suite: SrtpSuiteName;
  readonly #sendRtp: RtpCipher;
  readonly #sendRtcp: RtcpCipher;
  readonly #receiveRtp: RtpCipher;
  readonly #receiveRtcp: RtcpCipher;
  readonly #sending = new Map<number, SendState>();
  readonly #receiving = new Map<number, ReceiveState>();
  readonly #rtcpWindows = new Map<number, ReplayWindow>();
  #srtcpIndex = 0;

  constructor(keying: SrtpKeying) {
    this.suite = keying.suite;
    const suite = SRTP_SUITES[keying.suite];
    const local = splitMaster(keying.suite, keying.localMasterKey, 'local');
    const remote = splitMaster(keying.suite, keying.remoteMasterKey, 'remote');
    this.#sendRtp = rtpCipher(suite, deriveKeys(suite.name, local.key, local.salt, 'rtp'));
    this.#sendRtcp = rtcpCipher(suite, deriveKeys(suite.name, local.key, local.salt, 'rtcp'));
    this.#receiveRtp = rtpCipher(suite, deriveKeys(suite.name, remote.key, remote.salt, 'rtp'));
    this.#receiveRtcp = rtcpCipher(suite, deriveKeys(suite.name, remote.key, remote.salt, 'rtcp'));
  }

  /** An RTP packet we send → its SRTP form. The ROC follows our own sequence numbers' wraps. */
  protectRtp(packet: Uint8Array): Buffer {
    const headerLength = rtpHeaderLength(packet);
    if (headerLength < 0) throw new RangeError('RTP packet too short to protect');
    const ssrc = ssrcOf(packet, 8);
    const sequence = (packet[2] << 8) | packet[3];
    let state = this.#sending.get(ssrc);
    if (state === undefined) {
      state = { rolloverCounter: 0, lastSequence: sequence };
      this.#sending.set(ssrc, state);
    } else {
      // §3.3.1: the sender's ROC counts the wraps of its sequence number (forward steps only).
      if (sequence < state.lastSequence && state.lastSequence - sequence > 0x8000)
        state.rolloverCounter = (state.rolloverCounter + 1) >>> 0;
      if (((sequence - state.lastSequence) & 0xffff) < 0x8000) state.lastSequence = sequence;
    }
    return this.#sendRtp.encrypt(packet, headerLength, ssrc, state.rolloverCounter * 0x10000 + sequence);
  }

  /** An SRTP packet received → the RTP packet, after authentication and the replay check. */
  unprotectRtp(packet: Uint8Array): UnprotectResult {
    const headerLength = rtpHeaderLength(packet);
    if (headerLength < 0 || packet.length < headerLength + this.#receiveRtp.tagLength) return { ok: false, reason: 'malformed' };
    const ssrc = ssrcOf(packet, 8);
    const sequence = (packet[2] << 8) | packet[3];
    const state = this.#receiving.get(ssrc);
    // §3.3.1: a new stream starts with ROC 0 and s_l = its first sequence number.
    const index = state === undefined ? sequence : estimateIndex(sequence, state.highestSequence, state.rolloverCounter);
    if (state !== undefined && !state.window.check(index)) return { ok: false, reason: 'replay' };
    const plain = this.#receiveRtp.decrypt(packet, headerLength, ssrc, index);
    if (plain === null) return { ok: false, reason: 'authentication' };
    let current = state;
    if (current === undefined) {
      if (this.#receiving.size >= MAX_REMOTE_STREAMS) {
        const oldest = this.#receiving.keys().next().value;
        if (oldest !== undefined) this.#receiving.delete(oldest);
      }
      current = { rolloverCounter: 0, highestSequence: sequence, window: new ReplayWindow() };
      this.#receiving.set(ssrc, current);
    }
    current.window.accept(index);
    // Only an authenticated packet may advance s_l and the ROC (§3.3.1).
    const highest = current.rolloverCounter * 0x10000 + current.highestSequence;
    if (index > highest) {
      current.rolloverCounter = Math.floor(index / 0x10000);
      current.highestSequence = index & 0xffff;
    }
    return { ok: true, packet: plain };
  }

  /** A compound RTCP packet we send → SRTCP, with the next SRTCP index and the E flag set (§3.4). */
  protectRtcp(packet: Uint8Array): Buffer {
    if (packet.length < RTCP_CLEAR_HEADER) throw new RangeError('RTCP packet too short to protect');
    const index = this.#srtcpIndex;
    // §3.4: the index is 31 bits; re-keying would be needed after 2^31 packets (years of RTCP).
    this.#srtcpIndex = index === MAX_SRTCP_INDEX ? 0 : index + 1;
    return this.#sendRtcp.encrypt(packet, ssrcOf(packet, 4), index);
  }

  /** An SRTCP packet received → the compound RTCP packet. */
  unprotectRtcp(packet: Uint8Array): UnprotectResult {
    if (packet.length < RTCP_CLEAR_HEADER + this.#receiveRtcp.overhead) return { ok: false, reason: 'malformed' };
    const ssrc = ssrcOf(packet, 4);
    const { index, encrypted } = this.#receiveRtcp.indexOf(packet);
    const window = this.#rtcpWindows.get(ssrc);
    if (window !== undefined && !window.check(index)) return { ok: false, reason: 'replay' };
    const plain = this.#receiveRtcp.decrypt(packet, ssrc, index, encrypted);
    if (plain === null) return { ok: false, reason: 'authentication' };
    if (window === undefined) {
      if (this.#rtcpWindows.size >= MAX_REMOTE_STREAMS) {
        const oldest = this.#rtcpWindows.keys().next().value;
        if (oldest !== undefined) this.#rtcpWindows.delete(oldest);
      }
      const created = new ReplayWindow();
      created.accept(index);
      this.#rtcpWindows.set(ssrc, created);
    } else {
      window.accept(index);
    }
    return { ok: true, packet: plain };
  }
}
