/**
 * The video stream of SDP offer/answer (RFC 3264). Video is forwarded between bridge members
 * without transcoding, so an offered m=video is accepted only with a codec the endpoint allows
 * (`allow = h264,vp8` in pjsip.conf); the answer then keeps the offerer's payload type, rtpmap and
 * fmtp (H.264 packetization-mode and profile-level-id must reach the other members unchanged) and
 * echoes the RTCP feedback we act on: generic `nack` (RFC 4585 §6.2.1, forwarded to the sender of the
 * stream watched), `nack pli` (RFC 4585 §6.3.1) and `ccm fir` (RFC 5104 §7.1).
 * Anything else is refused with port 0 (RFC 3264 §6). One video stream per call: a second m=video
 * line is refused too.
 */
import type { VideoCodecBinding, VideoCodecName, VideoRemote } from '@switchboard/core';
import type { MediaDescription } from 'sdp-transform';

export type VideoDirection = 'sendrecv' | 'sendonly' | 'recvonly' | 'inactive';

interface VideoCodecDescription {
  /** Encoding name as written in a=rtpmap. */
  encoding: string;
  /** RFC 3551 static payload type, when the codec has one. */
  staticPayloadType?: number;
  /** Payload type we use in our own offers (dynamic range, distinct from our audio ones). */
  offerPayloadType: number;
  /** What we offer in a=fmtp. */
  fmtp?: string;
}

/** RFC 3551 §5: every video codec's RTP clock runs at 90 kHz. */
export const VIDEO_CLOCK_RATE = 90000;

export const VIDEO_CODECS: Readonly<Record<VideoCodecName, VideoCodecDescription>> = {
  // RFC 6184 §8.1: Constrained Baseline level 3.1, non-interleaved mode (what phones send).
  H264: { encoding: 'H264', offerPayloadType: 99, fmtp: 'profile-level-id=42e01f;packetization-mode=1' },
  VP8: { encoding: 'VP8', offerPayloadType: 96 },
  VP9: { encoding: 'VP9', offerPayloadType: 98 },
  H263: { encoding: 'H263', staticPayloadType: 34, offerPayloadType: 34 },
  'H263-1998': { encoding: 'H263-1998', offerPayloadType: 97 },
};

/** The RTCP feedback we can honour: NACKs and keyframe requests go to the sender of what is watched. */
const FEEDBACK: ReadonlyArray<{ type: string; subtype?: string }> = [
  { type: 'nack' },
  { type: 'nack', subtype: 'pli' },
  { type: 'ccm', subtype: 'fir' },
];

/** An accepted m=video: what the leg sends to, and what the answer must say back. */
export interface AcceptedVideo {
  address: string;
  port: number;
  codec: VideoCodecBinding;
  /** The offerer's own fmtp for the chosen payload type, echoed in the answer. */
  fmtp?: string;
  /** The offered rtcp-fb values we also support, echoed in the answer. */
  feedback: ReadonlyArray<{ type: string; subtype?: string }>;
  /** The peer's direction attribute for video. */
  direction: VideoDirection;
  /**
   * BUNDLEd with the audio stream (RFC 8843): a WebRTC offer's DTLS-SRTP video, carried on the
   * audio's transport; the answer repeats the audio's port and transport attributes.
   */
  bundled?: boolean;
}

function offeredPayloadTypes(media: MediaDescription): number[] {
  return String(media.payloads ?? '')
    .split(/\s+/)
    .filter((p) => /^\d{1,3}$/.test(p))
    .map(Number);
}

/** The payload type the m-line uses for `codec` (by rtpmap at 90 kHz, or its static number). */
function payloadTypeFor(media: MediaDescription, codec: VideoCodecName): number | undefined {
  const description = VIDEO_CODECS[codec];
  for (const pt of offeredPayloadTypes(media)) {
    const rtpmap = media.rtp?.find((entry) => entry.payload === pt);
    if (rtpmap !== undefined) {
      if (rtpmap.codec.toUpperCase() === description.encoding && (rtpmap.rate ?? VIDEO_CLOCK_RATE) === VIDEO_CLOCK_RATE) return pt;
    } else if (description.staticPayloadType === pt) {
      return pt;
    }
  }
  return undefined;
}

/**
 * Chooses the first of `preferences` that the m=video line carries (RFC 3264 §6.1), or undefined
 * when none is (the stream is then refused).
 */
export function chooseVideo(
  media: MediaDescription,
  address: string,
  direction: VideoDirection,
  preferences: readonly VideoCodecName[],
): AcceptedVideo | undefined {
  for (const name of preferences) {
    const payloadType = payloadTypeFor(media, name);
    if (payloadType === undefined) continue;
    const fmtp = media.fmtp?.find((entry) => entry.payload === payloadType)?.config;
    const offeredFeedback = (media.rtcpFb ?? []).filter((fb) => String(fb.payload) === String(payloadType) || fb.payload === '*');
    const feedback = FEEDBACK.filter((ours) => offeredFeedback.some((fb) => fb.type === ours.type && fb.subtype === ours.subtype));
    const accepted: AcceptedVideo = {
      address,
      port: media.port,
      codec: { name, payloadType, clockRate: VIDEO_CLOCK_RATE },
      feedback,
      direction,
    };
    if (fmtp !== undefined) accepted.fmtp = fmtp;
    return accepted;
  }
  return undefined;
}

/** The answer's m=video for an accepted stream: the offerer's format, our port, the mirrored direction. */
export function videoAnswerMedia(video: AcceptedVideo, port: number, protocol: string, direction: VideoDirection): MediaDescription {
  const pt = video.codec.payloadType;
  const media: MediaDescription = {
    type: 'video',
    port,
    protocol,
    payloads: String(pt),
    rtp: [{ payload: pt, codec: VIDEO_CODECS[video.codec.name].encoding, rate: VIDEO_CLOCK_RATE }],
    fmtp: video.fmtp === undefined ? [] : [{ payload: pt, config: video.fmtp }],
    direction,
  };
  if (video.feedback.length > 0) media.rtcpFb = video.feedback.map((fb) => ({ payload: pt, ...fb }));
  return media;
}

/** Our offer's m=video: every allowed video codec in preference order, with NACK/PLI/FIR feedback. */
export function videoOfferMedia(codecs: readonly VideoCodecName[], port: number, direction: VideoDirection): MediaDescription {
  const rtp: MediaDescription['rtp'] = [];
  const fmtp: MediaDescription['fmtp'] = [];
  const rtcpFb: NonNullable<MediaDescription['rtcpFb']> = [];
  for (const name of codecs) {
    const description = VIDEO_CODECS[name];
    const pt = description.offerPayloadType;
    rtp.push({ payload: pt, codec: description.encoding, rate: VIDEO_CLOCK_RATE });
    if (description.fmtp !== undefined) fmtp.push({ payload: pt, config: description.fmtp });
    for (const fb of FEEDBACK) rtcpFb.push({ payload: pt, ...fb });
  }
  return {
    type: 'video',
    port,
    protocol: 'RTP/AVP',
    payloads: rtp.map((r) => r.payload).join(' '),
    rtp,
    fmtp,
    rtcpFb,
    direction,
  };
}

/** Reads the answer's m=video (RFC 3264 §7): the first format we offered decides the codec. */
export function videoFromAnswer(
  media: MediaDescription,
  address: string,
  direction: VideoDirection,
  offered: readonly VideoCodecName[],
): AcceptedVideo | undefined {
  for (const pt of offeredPayloadTypes(media)) {
    for (const name of offered) {
      if (payloadTypeFor({ ...media, payloads: String(pt) }, name) === pt) {
        return chooseVideo({ ...media, payloads: String(pt) }, address, direction, [name]);
      }
    }
  }
  return undefined;
}

/** The `video` field of a leg's remote: the negotiated stream (for a leg with a video socket pair). */
export function legVideo(video: AcceptedVideo | undefined): { video?: VideoRemote } {
  if (video === undefined) return {};
  const remote: VideoRemote = { address: video.address, port: video.port, codec: video.codec, direction: video.direction };
  if (video.bundled === true) remote.bundled = true;
  return { video: remote };
}

/** The `video` field of our side of the SDP: the leg's video port and the codecs to offer. */
export function localVideo(
  videoPort: number | undefined,
  codecs: readonly VideoCodecName[] | undefined,
): { video?: { port: number; codecs: readonly VideoCodecName[] } } {
  return videoPort === undefined ? {} : { video: { port: videoPort, codecs: codecs ?? [] } };
}

/** Whether calls of an endpoint need a video socket pair. */
export function wantsVideo(codecs: readonly VideoCodecName[] | undefined): boolean {
  return codecs !== undefined && codecs.length > 0;
}
