/** Every audio codec the media engine names, as SDP describes it (RFC 3551, RFC 7587). */
import type { AudioCodecName } from '@switchboard/core';

export interface CodecDescription {
  /** Encoding name as written in a=rtpmap. */
  encoding: string;
  /** RTP clock rate (for G.722 8000, although it samples at 16 kHz: RFC 3551 §4.5.2). */
  clockRate: number;
  channels?: number;
  /** RFC 3551 static payload type, when the codec has one. */
  staticPayloadType?: number;
  /** Payload type we use in our own offers. */
  offerPayloadType: number;
  fmtp?: string;
}

/** Every codec the media engine names, as SDP describes it. */
export const CODECS: Readonly<Record<AudioCodecName, CodecDescription>> = {
  PCMU: { encoding: 'PCMU', clockRate: 8000, staticPayloadType: 0, offerPayloadType: 0 },
  PCMA: { encoding: 'PCMA', clockRate: 8000, staticPayloadType: 8, offerPayloadType: 8 },
  G722: { encoding: 'G722', clockRate: 8000, staticPayloadType: 9, offerPayloadType: 9 },
  // RFC 7587 §7: always opus/48000/2, whatever is actually sent.
  opus: { encoding: 'opus', clockRate: 48000, channels: 2, offerPayloadType: 111, fmtp: 'useinbandfec=1' },
  // Linear 16-bit at the engine's 8 kHz (Asterisk's `slin`); dynamic payload type (RFC 3551 §4.5.11).
  L16: { encoding: 'L16', clockRate: 8000, offerPayloadType: 118 },
};

/** First payload type we offer for telephone-event; one more per further clock rate. */
export const DEFAULT_TELEPHONE_EVENT_PT = 101;
