/**
 * The WebRTC parts of an audio stream's SDP: ICE (RFC 8839 attributes, we are ICE-lite, RFC 8445
 * §2.5), DTLS-SRTP (RFC 5763/5764 with a=fingerprint RFC 8122 and a=setup RFC 8842), rtcp-mux
 * (RFC 5761), a=mid and the BUNDLE group (RFC 9143) for the one stream we carry. What the endpoint
 * asks for (`ice_support`, `media_encryption = dtls`, `rtcp_mux`, `use_avpf`, `dtls_setup`) meets
 * what the peer's offer or answer says; the outcome is what the media leg is given (its `ice`,
 * `dtls`, `rtcpMux`) and what our answer carries.
 */
import { randomBytes } from 'node:crypto';
import type { AudioCodecName, LegDtls, LegIce, SipEndpointConfig } from '@switchboard/core';
import type { MediaDescription, SessionDescription } from 'sdp-transform';
import type { DtlsIdentity } from './dtls-certificates.js';

/** The endpoint's WebRTC options as the SDP layer reads them. */
export interface WebrtcPolicy {
  ice: boolean;
  rtcpMux: boolean;
  /** RTCP feedback profiles (…/AVPF, …/SAVPF) in our offers. */
  avpf: boolean;
  /** Our a=setup in offers (answers choose from the offer's). */
  dtlsSetup: 'active' | 'passive' | 'actpass';
  /** `webrtc = yes`: Opus goes first among the endpoint's codecs. */
  opusFirst: boolean;
}

export const NO_WEBRTC: WebrtcPolicy = { ice: false, rtcpMux: false, avpf: false, dtlsSetup: 'actpass', opusFirst: false };

export function webrtcPolicyOf(endpoint: SipEndpointConfig): WebrtcPolicy {
  return {
    ice: endpoint.iceSupport ?? false,
    rtcpMux: endpoint.rtcpMux ?? false,
    avpf: endpoint.useAvpf ?? false,
    dtlsSetup: endpoint.dtlsSetup ?? 'actpass',
    opusFirst: endpoint.webrtc ?? false,
  };
}

/** The DTLS-SRTP profiles (RFC 5764 §8: UDP/TLS/RTP/SAVP; RFC 5124 adds feedback). */
export const DTLS_PROFILES = new Set(['UDP/TLS/RTP/SAVP', 'UDP/TLS/RTP/SAVPF']);

/** One call's WebRTC state: its ICE credentials (kept for the whole call: new ones restart ICE) and certificate. */
export class WebrtcSession {
  policy: WebrtcPolicy = NO_WEBRTC;
  /** Our certificate, when the endpoint encrypts with DTLS. */
  identity: DtlsIdentity | undefined;
  #ice: LegIce | undefined;

  /** Made on first use, then kept: RFC 8445 §5.3 wants at least 24 random bits of ufrag and 128 of password. */
  get ice(): LegIce {
    this.#ice ??= { ufrag: iceChars(8), password: iceChars(24) };
    return this.#ice;
  }

  /** The leg's DTLS parameters for our role and the peer's fingerprint. */
  legDtls(role: LegDtls['role'], remoteFingerprint: string): LegDtls | undefined {
    const identity = this.identity;
    if (identity === undefined) return undefined;
    return { role, remoteFingerprint, certificate: identity.certPem, privateKey: identity.keyPem };
  }
}

/** ice-chars (RFC 8445 §5.3: ALPHA / DIGIT / "+" / "/"), from random bytes. */
function iceChars(length: number): string {
  return randomBytes(length * 2)
    .toString('base64')
    .replace(/[^A-Za-z0-9+/]/g, '')
    .slice(0, length);
}

/** What the media leg gets from the negotiated transport. */
export interface RemoteTransport {
  /** Our credentials, when the peer does ICE with us. */
  ice?: LegIce;
  dtls?: LegDtls;
  rtcpMux?: boolean;
}

/** What our answer's accepted audio stream carries beyond the codecs. */
export interface AnsweredTransport {
  ice: boolean;
  /** Our a=setup, when DTLS was agreed. */
  setup?: 'active' | 'passive';
  rtcpMux: boolean;
}

export type TransportOutcome = { ok: true; remote: RemoteTransport; answer: AnsweredTransport } | { ok: false; reason: string };

interface PeerTransport {
  ice: { ufrag: string; password: string } | undefined;
  fingerprint: string | undefined;
  setup: string | undefined;
  rtcpMux: boolean;
}

/** The transport attributes of a stream; ICE credentials and fingerprint may sit at session level (RFC 8839 §5.4, RFC 8122 §5). */
function peerTransport(session: SessionDescription, media: MediaDescription): PeerTransport {
  const ufrag = media.iceUfrag ?? session.iceUfrag;
  const password = media.icePwd ?? session.icePwd;
  const fingerprint = media.fingerprint ?? session.fingerprint;
  const setup = media.setup ?? (session as { setup?: string }).setup;
  return {
    ice: ufrag === undefined || password === undefined ? undefined : { ufrag: String(ufrag), password: String(password) },
    fingerprint:
      fingerprint === undefined ? undefined : `${String(fingerprint.type).toLowerCase()} ${String(fingerprint.hash).toUpperCase()}`,
    setup: setup === undefined ? undefined : String(setup).toLowerCase(),
    rtcpMux: media.rtcpMux !== undefined,
  };
}

const SHA256_FINGERPRINT = /^sha-256 ([0-9A-F]{2}:){31}[0-9A-F]{2}$/;

/**
 * An offered audio stream's transport against the endpoint's policy. `dtls` is true when the
 * endpoint encrypts with DTLS and the stream is a DTLS profile. RFC 5763 §5: the answerer picks
 * `active` or `passive`; we answer `passive` to `actpass`, because an ICE-lite agent learns where
 * the peer is only from its checks, so the full agent opens the handshake (as browsers do anyway).
 */
export function offeredTransport(
  session: SessionDescription,
  media: MediaDescription,
  webrtc: WebrtcSession,
  dtls: boolean,
): TransportOutcome {
  const peer = peerTransport(session, media);
  const remote: RemoteTransport = {};
  const answer: AnsweredTransport = { ice: false, rtcpMux: false };
  if (webrtc.policy.ice && peer.ice !== undefined) {
    remote.ice = webrtc.ice;
    answer.ice = true;
  }
  // RFC 5761 §5.1.1: an offer with a=rtcp-mux is answered with it when we multiplex too.
  if (webrtc.policy.rtcpMux && peer.rtcpMux) {
    remote.rtcpMux = true;
    answer.rtcpMux = true;
  }
  if (!dtls) return { ok: true, remote, answer };
  if (peer.fingerprint === undefined) return { ok: false, reason: 'DTLS offer without a=fingerprint' };
  if (!SHA256_FINGERPRINT.test(peer.fingerprint)) return { ok: false, reason: 'DTLS offer without a sha-256 a=fingerprint' };
  // RFC 4145 §4.1: no a=setup means active.
  const theirs = peer.setup ?? 'active';
  if (theirs !== 'active' && theirs !== 'passive' && theirs !== 'actpass')
    return { ok: false, reason: `a=setup:${theirs} cannot be answered` };
  const ours = theirs === 'passive' ? 'active' : 'passive';
  const legDtls = webrtc.legDtls(ours === 'active' ? 'client' : 'server', peer.fingerprint);
  if (legDtls === undefined) return { ok: false, reason: 'no DTLS certificate' };
  remote.dtls = legDtls;
  answer.setup = ours;
  return { ok: true, remote, answer };
}

/**
 * The answer to our offer: ICE and rtcp-mux when we offered them and the answer takes them up;
 * the DTLS role from the answer's a=setup (RFC 8842 §5.3: `actpass` is not a valid answer).
 */
export function answeredTransport(
  session: SessionDescription,
  media: MediaDescription,
  webrtc: WebrtcSession,
  dtls: boolean,
): { ok: true; remote: RemoteTransport } | { ok: false; reason: string } {
  const peer = peerTransport(session, media);
  const remote: RemoteTransport = {};
  if (webrtc.policy.ice && peer.ice !== undefined) remote.ice = webrtc.ice;
  if (webrtc.policy.rtcpMux && peer.rtcpMux) remote.rtcpMux = true;
  if (!dtls) return { ok: true, remote };
  if (peer.fingerprint === undefined || !SHA256_FINGERPRINT.test(peer.fingerprint)) {
    return { ok: false, reason: 'DTLS answer without a sha-256 a=fingerprint' };
  }
  const theirs = peer.setup ?? 'active';
  let role: LegDtls['role'];
  if (theirs === 'active') role = 'server';
  else if (theirs === 'passive') role = 'client';
  else return { ok: false, reason: `a=setup:${theirs} is not a valid answer` };
  const ours = webrtc.policy.dtlsSetup;
  if ((ours === 'active' && role === 'server') || (ours === 'passive' && role === 'client')) {
    return { ok: false, reason: `a=setup:${theirs} answers our a=setup:${ours}` };
  }
  const legDtls = webrtc.legDtls(role, peer.fingerprint);
  if (legDtls === undefined) return { ok: false, reason: 'no DTLS certificate' };
  remote.dtls = legDtls;
  return { ok: true, remote };
}

/**
 * Where the peer's media is, for an ICE stream: `c=` unless it is the RFC 8839 §4.2.1.2 placeholder
 * (0.0.0.0 port 9 before candidates are known), then its first UDP host-most candidate. The leg
 * sends only to the pair the peer's checks nominate; this address is the fallback.
 */
export function iceDefaultAddress(media: MediaDescription, address: string): { address: string; port: number } | undefined {
  if (address !== '0.0.0.0' && address !== '::') return undefined;
  const candidate = (media.candidates ?? []).find(
    (c) => Number(c.component) === 1 && String(c.transport).toLowerCase() === 'udp' && /^[0-9.]+$/.test(String(c.ip)),
  );
  return candidate === undefined ? undefined : { address: String(candidate.ip), port: Number(candidate.port) };
}

/** RFC 8445 §5.1.2.1: type preference 126 (host), local preference 65535, then the component. */
function hostPriority(component: number): number {
  return 126 * 2 ** 24 + 65535 * 2 ** 8 + (256 - component);
}

/** Adds ICE, DTLS and rtcp-mux attributes to our audio m-line. */
export function decorateAudio(
  media: MediaDescription,
  webrtc: WebrtcSession,
  what: { ice: boolean; setup?: 'active' | 'passive' | 'actpass'; rtcpMux: boolean; mid?: string },
  address: string,
): void {
  if (what.mid !== undefined) media.mid = what.mid;
  if (what.ice) {
    media.iceUfrag = webrtc.ice.ufrag;
    media.icePwd = webrtc.ice.password;
    const components = what.rtcpMux ? [1] : [1, 2];
    media.candidates = components.map((component) => ({
      foundation: '1',
      component,
      transport: 'udp',
      priority: hostPriority(component),
      ip: address,
      port: media.port + component - 1,
      type: 'host',
    }));
    media.endOfCandidates = 'end-of-candidates';
  }
  if (what.setup !== undefined && webrtc.identity !== undefined) {
    const [type, hash] = webrtc.identity.fingerprint.split(' ');
    media.fingerprint = { type, hash };
    media.setup = what.setup;
  }
  if (what.rtcpMux) media.rtcpMux = 'rtcp-mux';
}

/** Session-level lines: a=ice-lite (RFC 8839 §5.3) and the BUNDLE group of the streams we accept. */
export function decorateSession(description: SessionDescription, iceLite: boolean, bundle: readonly string[]): void {
  if (iceLite) description.icelite = 'ice-lite';
  if (bundle.length > 0) description.groups = [{ type: 'BUNDLE', mids: bundle.join(' ') }];
}

/** The offer's a=mid of a stream (sdp-transform reads `a=mid:0` as a number). */
export function midOf(media: MediaDescription): string | undefined {
  return media.mid === undefined ? undefined : String(media.mid);
}

/** Opus first for a browser endpoint that allows it (WebRTC's mandatory codec, RFC 7874 §3). */
export function preferOpus(codecs: readonly AudioCodecName[], policy: WebrtcPolicy): readonly AudioCodecName[] {
  if (!policy.opusFirst || !codecs.includes('opus')) return codecs;
  return ['opus', ...codecs.filter((c) => c !== 'opus')];
}
