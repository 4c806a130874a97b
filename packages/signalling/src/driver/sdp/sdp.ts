/**
 * SDP offer/answer for one audio stream and, when the endpoint allows video codecs, one video
 * stream (RFC 3264, SDP syntax RFC 4566 via sdp-transform; video rules in sdp-video.ts).
 * Pure functions: an offer and the endpoint's codec preferences in, the media to set on the leg
 * and the SDP to send out. RFC 4733 telephone-event is accepted with the payload type offered.
 * SRTP keys (RFC 4568 `a=crypto`) are agreed here too when the endpoint asks for SDES (sdes.ts).
 */
import type { AudioCodecName, CodecBinding, LegSrtp, SrtpSuiteName, VideoCodecName } from '@switchboard/core';
import { type MediaDescription, parse, type SessionDescription } from 'sdp-transform';
import { type MediaSecurity, PLAIN_MEDIA, type SdesContext, SECURE_PROFILES, usableCrypto } from './sdes.js';
import { CODECS, type CodecDescription } from './sdp-codecs.js';
import { type AcceptedVideo, chooseVideo, videoFromAnswer } from './sdp-video.js';
import {
  type AnsweredTransport,
  answeredTransport,
  DTLS_PROFILES,
  iceDefaultAddress,
  midOf,
  offeredTransport,
  preferOpus,
  type RemoteTransport,
  WebrtcSession,
} from './webrtc-sdp.js';

export { CODECS, DEFAULT_TELEPHONE_EVENT_PT } from './sdp-codecs.js';
export { answerDirection, type LocalAudio, type LocalCodec, LocalSdpSession, offerFormats } from './local-sdp.js';

export type MediaDirection = 'sendrecv' | 'sendonly' | 'recvonly' | 'inactive';

/** The far end's media as an offer or answer describes it. */
export interface RemoteMedia {
  address: string;
  port: number;
  codec: CodecBinding;
  telephoneEventPayloadType?: number;
  /** The peer's own direction attribute (`sendonly` when it puts us on hold). */
  direction: MediaDirection;
  /** The accepted video stream, when the endpoint allows video and the SDP carried a common codec. */
  video?: AcceptedVideo;
  /** The audio stream's SRTP keys, when SDES was agreed. */
  srtp?: LegSrtp;
  /** ICE, DTLS-SRTP and rtcp-mux of the audio stream, when agreed (webrtc-sdp.ts). */
  transport?: RemoteTransport;
}

/** One m-line of the offer, as the answer must mirror it (RFC 3264 §6: same number and order). */
export interface OfferedStream {
  type: string;
  protocol: string;
  payloads: string;
  /** Whether this is the audio stream we accept. */
  accepted: boolean;
  /** Set when this is the video stream we accept. */
  video?: AcceptedVideo;
  /** The offered `a=crypto` line we accepted (its tag and suite), answered with our key. */
  crypto?: { tag: number; suite: SrtpSuiteName };
  /** The offer's a=mid of the stream, repeated in the answer (RFC 8843 §7.3.1). */
  mid?: string;
  /** The stream is in the offer's BUNDLE group. */
  bundled?: boolean;
  /** ICE, DTLS and rtcp-mux of the accepted audio stream's answer. */
  transport?: AnsweredTransport;
}

export type OfferOutcome = { ok: true; remote: RemoteMedia; streams: OfferedStream[] } | { ok: false; status: 488 | 400; reason: string };

export type AnswerOutcome = { ok: true; remote: RemoteMedia } | { ok: false; reason: string };

const STATIC_PAYLOAD_TYPES = new Map<number, AudioCodecName>(
  (Object.entries(CODECS) as Array<[AudioCodecName, CodecDescription]>)
    .filter(([, codec]) => codec.staticPayloadType !== undefined)
    .map(([name, codec]) => [codec.staticPayloadType as number, name]),
);

/** Plain RTP profiles; the SRTP ones (SAVP, SAVPF) only for audio of an endpoint with `media_encryption = sdes`. */
const ACCEPTED_PROTOCOLS = new Set(['RTP/AVP', 'RTP/AVPF']);

interface Format {
  pt: number;
  /** Encoding name in upper case. */
  name: string;
  rate: number;
}

function formatMatches(format: Format, codec: AudioCodecName): boolean {
  const description = CODECS[codec];
  return format.name === description.encoding.toUpperCase() && format.rate === description.clockRate;
}

function parseSdp(text: string): SessionDescription | undefined {
  let description: SessionDescription;
  try {
    description = parse(text);
  } catch {
    // sdp-transform does not throw on ordinary input; a throw means the text is not SDP.
    return undefined;
  }
  if (!Array.isArray(description.media)) return undefined;
  normaliseTypes(description);
  return description;
}

/**
 * sdp-transform turns every field that looks like an integer into a number (`m=audio 45000 123 0`
 * gives protocol 123, `a=rtpmap:0 1234/8000` codec 1234) and leaves a port that is not one as
 * an empty string. The text fields are made strings again and a port outside 0–65535 becomes 0
 * (a refused stream), so that what is merely odd input ends in 488, never in a TypeError.
 */
function normaliseTypes(description: SessionDescription): void {
  if (description.connection !== undefined) description.connection.ip = String(description.connection.ip);
  for (const media of description.media) {
    media.type = String(media.type);
    media.protocol = String(media.protocol);
    if (!Number.isInteger(media.port) || media.port < 0 || media.port > 65535) media.port = 0;
    if (media.connection !== undefined) media.connection.ip = String(media.connection.ip);
    for (const rtp of media.rtp ?? []) rtp.codec = String(rtp.codec);
    for (const fmtp of media.fmtp ?? []) fmtp.config = String(fmtp.config);
    for (const fb of media.rtcpFb ?? []) {
      fb.type = String(fb.type);
      if (fb.subtype !== undefined) fb.subtype = String(fb.subtype);
    }
  }
}

/** Payload types of an m-line mapped to codec names (rtpmap first, static types for 0 and 8). */
function formatsOf(media: MediaDescription): Format[] {
  const formats: Format[] = [];
  const payloads = String(media.payloads ?? '')
    .split(/\s+/)
    .filter((p) => /^\d{1,3}$/.test(p))
    .map(Number);
  for (const pt of payloads) {
    const rtpmap = media.rtp?.find((entry) => entry.payload === pt);
    if (rtpmap !== undefined) {
      formats.push({ pt, name: rtpmap.codec.toUpperCase(), rate: rtpmap.rate ?? 0 });
    } else {
      const name = STATIC_PAYLOAD_TYPES.get(pt);
      if (name !== undefined) formats.push({ pt, name: CODECS[name].encoding.toUpperCase(), rate: CODECS[name].clockRate });
    }
  }
  return formats;
}

function connectionAddress(session: SessionDescription, media: MediaDescription): string | undefined {
  return media.connection?.ip ?? session.connection?.ip;
}

function directionOf(session: SessionDescription, media: MediaDescription, address: string): MediaDirection {
  let direction: MediaDirection = (media.direction ?? session.direction ?? 'sendrecv') as MediaDirection;
  // RFC 3264 §8.4: the RFC 2543 way of holding, c=0.0.0.0, means "do not send to me".
  if ((address === '0.0.0.0' || address === '::') && direction === 'sendrecv') direction = 'sendonly';
  if (address === '0.0.0.0' && direction === 'recvonly') direction = 'inactive';
  return direction;
}

/** RFC 4733 §2.1: telephone-event runs at the clock rate of the audio it goes with. */
function telephoneEventPt(formats: readonly Format[], clockRate: number): number | undefined {
  return formats.find((f) => f.name === 'TELEPHONE-EVENT' && f.rate === clockRate)?.pt;
}

/**
 * Chooses the first codec of `preferences` that the offer's first usable audio stream carries
 * (RFC 3264 §6.1). No usable audio stream or no common codec: 488 Not Acceptable Here.
 */
export function negotiateOffer(
  offerText: string,
  preferences: readonly AudioCodecName[],
  videoPreferences: readonly VideoCodecName[] = [],
  sdes?: SdesContext,
): OfferOutcome {
  const security = sdes?.security ?? PLAIN_MEDIA;
  const webrtc = sdes?.webrtc ?? new WebrtcSession();
  const ordered = preferOpus(preferences, webrtc.policy);
  const offer = parseSdp(offerText);
  if (offer === undefined) return { ok: false, status: 400, reason: 'SDP offer cannot be parsed' };
  let remote: RemoteMedia | undefined;
  let video: AcceptedVideo | undefined;
  let failure = 'no audio stream';
  const streams: OfferedStream[] = offer.media.map((media) => {
    const stream: OfferedStream = {
      type: media.type,
      protocol: media.protocol,
      payloads: String(media.payloads ?? ''),
      accepted: false,
      ...bundleOf(offer, media),
    };
    // Video is plain RTP, or DTLS-SRTP BUNDLEd with the audio (checked once the audio is chosen);
    // SDES-keyed video is not carried.
    const videoAllowed = videoPreferences.length > 0 && security.encryption !== 'sdes';
    // A DTLS endpoint takes only video in the offer's BUNDLE group, never a plain-RTP stream beside encrypted audio.
    const dtlsVideo = security.encryption === 'dtls';
    if (media.type === 'video' && video === undefined && media.port !== 0 && videoAllowed && (!dtlsVideo || stream.bundled === true)) {
      video = acceptVideo(offer, media, videoPreferences, dtlsVideo);
      if (video !== undefined) stream.video = video;
      return stream;
    }
    if (remote !== undefined || media.type !== 'audio' || media.port === 0) return stream;
    const keying = offeredKeying(media, security);
    if (!keying.ok) {
      failure = keying.reason;
      return stream;
    }
    const transport = offeredTransport(offer, media, webrtc, keying.dtls === true);
    if (!transport.ok) {
      failure = transport.reason;
      return stream;
    }
    const address = connectionAddress(offer, media);
    if (address === undefined) {
      failure = 'audio stream without a connection address';
      return stream;
    }
    // An ICE offer made before its candidates were gathered says c=0.0.0.0: that is no hold.
    const iceDefault = transport.remote.ice === undefined ? undefined : iceDefaultAddress(media, address);
    const formats = formatsOf(media);
    for (const name of ordered) {
      const format = formats.find((f) => formatMatches(f, name));
      if (format === undefined) continue;
      const clockRate = CODECS[name].clockRate;
      remote = {
        address: iceDefault?.address ?? address,
        port: iceDefault?.port ?? media.port,
        codec: { name, payloadType: format.pt, clockRate },
        direction: directionOf(offer, media, iceDefault?.address ?? address),
      };
      if (Object.keys(transport.remote).length > 0) remote.transport = transport.remote;
      stream.transport = transport.answer;
      const te = telephoneEventPt(formats, clockRate);
      if (te !== undefined) remote.telephoneEventPayloadType = te;
      if (keying.crypto !== undefined && sdes !== undefined) {
        remote.srtp = sdes.keys.legSrtp(keying.crypto.suite, keying.crypto.key);
        stream.crypto = { tag: keying.crypto.tag, suite: keying.crypto.suite };
      }
      stream.accepted = true;
      return stream;
    }
    failure = 'no common codec';
    return stream;
  });
  if (remote === undefined) return { ok: false, status: 488, reason: failure };
  if (video !== undefined && video.bundled === true && !bundlesWithAudio(streams, remote)) {
    // RFC 8843 §9: BUNDLEd video needs the audio's transport to ride on; without it, refused.
    video = undefined;
    for (const stream of streams) delete stream.video;
  }
  if (video !== undefined) remote.video = video;
  return { ok: true, remote, streams };
}

type OfferedKeying =
  | { ok: true; crypto?: { tag: number; suite: SrtpSuiteName; key: string }; dtls?: boolean }
  | { ok: false; reason: string };

/** The stream's a=mid and whether the offer's BUNDLE group names it. */
function bundleOf(session: SessionDescription, media: MediaDescription): { mid?: string; bundled?: boolean } {
  const mid = midOf(media);
  if (mid === undefined) return {};
  const bundled = (session.groups ?? []).some((g) => String(g.type) === 'BUNDLE' && String(g.mids).split(' ').includes(mid));
  return bundled ? { mid, bundled } : { mid };
}

/**
 * Whether an offered audio stream fits the endpoint's `media_encryption` (RFC 4568 §7.1.2): an
 * SRTP profile needs SDES and a usable `a=crypto` line; plain RTP is refused by a mandatory `sdes`
 * endpoint and keyed anyway when the offer carries `a=crypto` to an optimistic one.
 */
function offeredKeying(media: MediaDescription, security: MediaSecurity): OfferedKeying {
  const protocol = media.protocol.toUpperCase();
  if (security.encryption === 'dtls') {
    // RFC 5764 §8: DTLS-SRTP runs on the UDP/TLS/RTP profiles; plain RTP only for an optimistic endpoint.
    if (DTLS_PROFILES.has(protocol)) return { ok: true, dtls: true };
    if (security.optimistic && ACCEPTED_PROTOCOLS.has(protocol)) return { ok: true };
    return { ok: false, reason: `the endpoint requires DTLS-SRTP (media_encryption = dtls), offered ${media.protocol}` };
  }
  if (DTLS_PROFILES.has(protocol))
    return { ok: false, reason: `unsupported media protocol ${media.protocol} (media_encryption is not dtls)` };
  const sdes = security.encryption === 'sdes';
  if (SECURE_PROFILES.has(protocol)) {
    if (!sdes) return { ok: false, reason: `unsupported media protocol ${media.protocol} (media_encryption is not sdes)` };
    const crypto = usableCrypto(media)[0];
    return crypto === undefined ? { ok: false, reason: 'no usable a=crypto line' } : { ok: true, crypto };
  }
  if (!ACCEPTED_PROTOCOLS.has(protocol)) return { ok: false, reason: `unsupported media protocol ${media.protocol}` };
  if (!sdes) return { ok: true };
  const crypto = usableCrypto(media)[0];
  if (crypto !== undefined) return { ok: true, crypto };
  return security.optimistic ? { ok: true } : { ok: false, reason: 'the endpoint requires SRTP (media_encryption = sdes)' };
}

/**
 * Whether the accepted audio stream is one a BUNDLEd video can share: in the offer's BUNDLE group,
 * with rtcp-mux (RFC 8843 §9.3 requires it of every bundled stream) and DTLS-SRTP agreed.
 */
function bundlesWithAudio(streams: readonly OfferedStream[], remote: RemoteMedia): boolean {
  const audio = streams.find((stream) => stream.accepted);
  return (
    audio?.bundled === true &&
    audio.transport?.rtcpMux === true &&
    remote.transport?.dtls !== undefined &&
    remote.transport.rtcpMux === true
  );
}

/**
 * One offered (or answered) m=video, when its profile, address and a codec are usable: plain RTP,
 * or (`bundled`: a DTLS endpoint's stream in the offer's BUNDLE group) a DTLS-SRTP profile.
 */
function acceptVideo(
  session: SessionDescription,
  media: MediaDescription,
  codecs: readonly VideoCodecName[],
  bundled = false,
): AcceptedVideo | undefined {
  const protocol = media.protocol.toUpperCase();
  if (!(bundled ? DTLS_PROFILES.has(protocol) : ACCEPTED_PROTOCOLS.has(protocol))) return undefined;
  const address = connectionAddress(session, media);
  if (address === undefined) return undefined;
  // Video hold follows the audio rules (c=0.0.0.0, direction attributes), except that an ICE
  // offer's c=0.0.0.0 is a placeholder (RFC 8839 §4.2.1.2), not a hold.
  const direction = bundled
    ? ((media.direction ?? session.direction ?? 'sendrecv') as MediaDirection)
    : directionOf(session, media, address);
  const accepted = chooseVideo(media, address, direction, codecs);
  if (accepted !== undefined && bundled) accepted.bundled = true;
  return accepted;
}

/**
 * Reads the answer to our offer (RFC 3264 §7): the first format of the answer's audio stream
 * that we offered decides the codec.
 */
export function negotiateAnswer(
  answerText: string,
  offered: readonly AudioCodecName[],
  videoOffered: readonly VideoCodecName[] = [],
  sdes?: SdesContext,
): AnswerOutcome {
  const answer = parseSdp(answerText);
  if (answer === undefined) return { ok: false, reason: 'SDP answer cannot be parsed' };
  const media = answer.media.find((m) => m.type === 'audio' && m.port !== 0);
  if (media === undefined) return { ok: false, reason: 'answer rejects the audio stream' };
  const address = connectionAddress(answer, media);
  if (address === undefined) return { ok: false, reason: 'audio stream without a connection address' };
  const formats = formatsOf(media);
  let chosen: { format: Format; name: AudioCodecName } | undefined;
  for (const format of formats) {
    const name = offered.find((codec) => formatMatches(format, codec));
    if (name !== undefined) {
      chosen = { format, name };
      break;
    }
  }
  if (chosen === undefined) return { ok: false, reason: 'answer has no codec we offered' };
  const clockRate = CODECS[chosen.name].clockRate;
  const remote: RemoteMedia = {
    address,
    port: media.port,
    codec: { name: chosen.name, payloadType: chosen.format.pt, clockRate },
    direction: directionOf(answer, media, address),
  };
  const te = telephoneEventPt(formats, clockRate);
  if (te !== undefined) remote.telephoneEventPayloadType = te;
  if (sdes?.webrtc !== undefined) {
    const dtls = sdes.security.encryption === 'dtls' && DTLS_PROFILES.has(media.protocol.toUpperCase());
    if (
      sdes.security.encryption === 'dtls' &&
      !dtls &&
      !(sdes.security.optimistic && ACCEPTED_PROTOCOLS.has(media.protocol.toUpperCase()))
    ) {
      return { ok: false, reason: `answer uses ${media.protocol}, not DTLS-SRTP` };
    }
    const transport = answeredTransport(answer, media, sdes.webrtc, dtls);
    if (!transport.ok) return transport;
    if (Object.keys(transport.remote).length > 0) remote.transport = transport.remote;
    const iceDefault = transport.remote.ice === undefined ? undefined : iceDefaultAddress(media, address);
    if (iceDefault !== undefined) {
      remote.address = iceDefault.address;
      remote.port = iceDefault.port;
      remote.direction = directionOf(answer, media, iceDefault.address);
    }
  }
  if (sdes !== undefined && sdes.security.encryption === 'sdes') {
    // RFC 4568 §7.1.3: the answer names one of our tags with that tag's suite, and its own key.
    const answered = usableCrypto(media).find((c) => sdes.keys.offeredSuite(c.tag) === c.suite);
    if (answered !== undefined) remote.srtp = sdes.keys.legSrtp(answered.suite, answered.key);
    else if (!sdes.security.optimistic || SECURE_PROFILES.has(media.protocol.toUpperCase())) {
      return { ok: false, reason: 'answer carries no a=crypto line for a suite we offered' };
    }
  }
  const videoMedia = videoOffered.length === 0 ? undefined : answer.media.find((m) => m.type === 'video' && m.port !== 0);
  if (videoMedia !== undefined && sdes?.security.encryption === 'dtls') {
    // Our DTLS offer BUNDLEs video with the audio; the answer must keep both in its group (RFC 8843 §7.3).
    const address = connectionAddress(answer, videoMedia) ?? remote.address;
    const bundled = bundleOf(answer, videoMedia).bundled === true && bundleOf(answer, media).bundled === true;
    const video =
      bundled &&
      remote.transport?.dtls !== undefined &&
      remote.transport.rtcpMux === true &&
      DTLS_PROFILES.has(videoMedia.protocol.toUpperCase())
        ? videoFromAnswer(videoMedia, address, (videoMedia.direction ?? 'sendrecv') as MediaDirection, videoOffered)
        : undefined;
    if (video !== undefined) remote.video = { ...video, bundled: true };
  } else if (videoMedia !== undefined && ACCEPTED_PROTOCOLS.has(videoMedia.protocol.toUpperCase())) {
    const videoAddress = connectionAddress(answer, videoMedia);
    const video =
      videoAddress === undefined
        ? undefined
        : videoFromAnswer(videoMedia, videoAddress, directionOf(answer, videoMedia, videoAddress), videoOffered);
    if (video !== undefined) remote.video = video;
  }
  return { ok: true, remote };
}
