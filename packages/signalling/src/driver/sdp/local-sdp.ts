/**
 * Our side of the SDP (RFC 3264, RFC 4566): the answer to an offer and our own offers, with the
 * SDES keys (sdes.ts) and the WebRTC attributes (webrtc-sdp.ts) the endpoint's options call for.
 */
import type { AudioCodecName, VideoCodecName } from '@switchboard/core';
import { type MediaDescription, type SessionDescription, write } from 'sdp-transform';
import { type MediaSecurity, PLAIN_MEDIA, type SdesContext, SdesKeys } from './sdes.js';
import { CODECS, DEFAULT_TELEPHONE_EVENT_PT } from './sdp-codecs.js';
import type { MediaDirection, OfferedStream } from './sdp.js';
import { videoAnswerMedia, videoOfferMedia } from './sdp-video.js';
import { decorateAudio, decorateSession, WebrtcSession } from './webrtc-sdp.js';

/** RFC 3264 §6.1: the answer's direction mirrors the offer's. */
export function answerDirection(offered: MediaDirection): MediaDirection {
  switch (offered) {
    case 'sendonly':
      return 'recvonly';
    case 'recvonly':
      return 'sendonly';
    default:
      return offered;
  }
}

export interface LocalAudio {
  /** Concrete address for c= and o= (never 0.0.0.0). */
  address: string;
  port: number;
  /** Codecs in order (one for an answer, the preference list for an offer). */
  codecs: ReadonlyArray<LocalCodec>;
  /** RFC 4733 telephone-event payload types, one per clock rate. */
  telephoneEvents: ReadonlyArray<{ payloadType: number; clockRate: number }>;
  direction: MediaDirection;
  /**
   * The leg's video port and, for offers, the video codecs to offer (none: no m=video). An
   * answer accepts the offered video stream only when this is present.
   */
  video?: { port: number; codecs: readonly VideoCodecName[] };
}

export interface LocalCodec {
  name: AudioCodecName;
  payloadType: number;
}

/**
 * Our side of the session: the o= line keeps its session id and increments its version only
 * when the description changes (RFC 3264 §8, RFC 4566 §5.2).
 */
export class LocalSdpSession implements SdesContext {
  readonly sessionId: string;
  /** The endpoint's `media_encryption` policy, set once the call knows its endpoint. */
  security: MediaSecurity = PLAIN_MEDIA;
  /** Our SDES master keys for this call (repeated in every offer and answer). */
  readonly keys = new SdesKeys();
  /** ICE credentials, certificate and the endpoint's WebRTC options for this call. */
  readonly webrtc = new WebrtcSession();
  #version: number;
  #lastBody: string | undefined;

  constructor(sessionId = String(Math.floor(Math.random() * 2 ** 31)), version = 1) {
    this.sessionId = sessionId;
    this.#version = version;
  }

  get version(): number {
    return this.#version;
  }

  /**
   * An answer to `streams`: the accepted audio stream carries `audio`, the accepted video stream
   * (when the leg has a video port) the offerer's video format, every other m-line port 0.
   */
  answer(audio: LocalAudio, streams: readonly OfferedStream[]): string {
    let iceLite = false;
    const bundle: string[] = [];
    const audioTransport = streams.find((stream) => stream.accepted)?.transport ?? { ice: false, rtcpMux: false };
    const media = streams.map((stream) => {
      let answer: MediaDescription;
      if (stream.accepted) {
        answer = audioMedia(audio, stream.protocol);
        if (stream.crypto !== undefined) answer.crypto = [this.keys.answerLine(stream.crypto)];
        const transport = stream.transport ?? { ice: false, rtcpMux: false };
        decorateAudio(answer, this.webrtc, transport, audio.address);
        iceLite ||= transport.ice;
        if (stream.bundled === true && stream.mid !== undefined) bundle.push(stream.mid);
      } else if (stream.video?.bundled === true && audio.video !== undefined && stream.mid !== undefined) {
        // RFC 8843 §7.3.1: a bundled stream's answer carries the BUNDLE address, the audio's port,
        // and the same transport attributes (ICE, fingerprint, setup, rtcp-mux).
        answer = videoAnswerMedia(stream.video, audio.port, stream.protocol, answerDirection(stream.video.direction));
        decorateAudio(answer, this.webrtc, audioTransport, audio.address);
        bundle.push(stream.mid);
      } else if (stream.video !== undefined && stream.video.bundled !== true && audio.video !== undefined) {
        answer = videoAnswerMedia(stream.video, audio.video.port, stream.protocol, answerDirection(stream.video.direction));
      } else {
        answer = {
          type: stream.type,
          port: 0,
          protocol: stream.protocol,
          payloads: stream.payloads,
          rtp: [],
          fmtp: [],
        } as MediaDescription;
      }
      if (stream.mid !== undefined) answer.mid = stream.mid;
      return answer;
    });
    return this.#render(audio.address, media, (description) => decorateSession(description, iceLite, bundle));
  }

  /** An offer with every codec of `audio.codecs` and telephone-event, and m=video when video codecs are given. */
  offer(audio: LocalAudio): string {
    const sdes = this.security.encryption === 'sdes';
    const dtls = this.security.encryption === 'dtls';
    const policy = this.webrtc.policy;
    const first = audioMedia(audio, offerProfile(this.security.encryption, this.security.optimistic, policy.avpf));
    if (sdes) first.crypto = this.keys.offerLines();
    // One audio stream, BUNDLEd alone (RFC 9143) so that browsers find the mid they expect.
    const bundled = dtls || policy.ice;
    const transport = { ice: policy.ice, rtcpMux: policy.rtcpMux, ...(dtls ? { setup: policy.dtlsSetup } : {}) };
    decorateAudio(first, this.webrtc, bundled ? { ...transport, mid: '0' } : transport, audio.address);
    const media = [first];
    const mids = bundled ? ['0'] : [];
    const withVideo = audio.video !== undefined && audio.video.codecs.length > 0;
    if (withVideo && !sdes && !dtls) media.push(videoOfferMedia(audio.video?.codecs ?? [], audio.video?.port ?? 0, audio.direction));
    else if (withVideo && dtls && bundled && policy.rtcpMux) {
      // DTLS-SRTP video only BUNDLEd with the audio (RFC 8843 §7.2): the audio's port, profile and transport.
      const video = videoOfferMedia(audio.video?.codecs ?? [], audio.port, audio.direction);
      video.protocol = first.protocol;
      decorateAudio(video, this.webrtc, { ...transport, mid: '1' }, audio.address);
      media.push(video);
      mids.push('1');
    }
    return this.#render(audio.address, media, (description) => decorateSession(description, policy.ice, mids));
  }

  #render(address: string, media: MediaDescription[], decorate?: (description: SessionDescription) => void): string {
    const ipVer = address.includes(':') ? 6 : 4;
    const description = (version: number): SessionDescription => {
      const made: SessionDescription = {
        version: 0,
        origin: { username: '-', sessionId: this.sessionId, sessionVersion: version, netType: 'IN', ipVer, address },
        name: 'Switchboard',
        connection: { version: ipVer, ip: address },
        timing: { start: 0, stop: 0 },
        media,
      };
      decorate?.(made);
      return made;
    };
    // Rendered at the current version, the body equals the last one exactly when nothing changed;
    // only a changed description is rendered again, at the next version.
    let body = write(description(this.#version));
    if (this.#lastBody !== undefined && this.#lastBody !== body) {
      this.#version++;
      body = write(description(this.#version));
    }
    this.#lastBody = body;
    return body;
  }
}

/**
 * The profile of our offer: DTLS-SRTP on UDP/TLS/RTP/SAVP (RFC 5764 §8), SDES on RTP/SAVP, or plain
 * RTP/AVP (also for optimistic encryption, RFC 4568 §7.1.1); with `use_avpf` the feedback variant
 * of each (RFC 4585, RFC 5124).
 */
function offerProfile(encryption: 'no' | 'sdes' | 'dtls', optimistic: boolean, avpf: boolean): string {
  const base = optimistic || encryption === 'no' ? 'RTP/AVP' : encryption === 'sdes' ? 'RTP/SAVP' : 'UDP/TLS/RTP/SAVP';
  return avpf ? `${base}F` : base;
}

function audioMedia(audio: LocalAudio, protocol: string): MediaDescription {
  const rtp: MediaDescription['rtp'] = [];
  const fmtp: MediaDescription['fmtp'] = [];
  for (const codec of audio.codecs) {
    const description = CODECS[codec.name];
    rtp.push({
      payload: codec.payloadType,
      codec: description.encoding,
      rate: description.clockRate,
      ...(description.channels !== undefined ? { encoding: description.channels } : {}),
    });
    if (description.fmtp !== undefined) fmtp.push({ payload: codec.payloadType, config: description.fmtp });
  }
  for (const te of audio.telephoneEvents) {
    rtp.push({ payload: te.payloadType, codec: 'telephone-event', rate: te.clockRate });
    fmtp.push({ payload: te.payloadType, config: '0-16' });
  }
  return {
    type: 'audio',
    port: audio.port,
    protocol,
    payloads: rtp.map((r) => r.payload).join(' '),
    rtp,
    fmtp,
    ptime: 20,
    direction: audio.direction,
  };
}

/** What we offer: every preferred codec, then telephone-event at each clock rate among them. */
export function offerFormats(preferences: readonly AudioCodecName[]): Pick<LocalAudio, 'codecs' | 'telephoneEvents'> {
  const codecs = preferences.map((name) => ({ name, payloadType: CODECS[name].offerPayloadType }));
  const rates = [...new Set(preferences.map((name) => CODECS[name].clockRate))];
  const telephoneEvents = rates.map((clockRate, i) => ({ payloadType: DEFAULT_TELEPHONE_EVENT_PT + i, clockRate }));
  return { codecs, telephoneEvents };
}
