/**
 * pjsip.conf endpoint options `rtp_timeout` and `rtp_timeout_hold` (seconds; 0, the default, turns
 * each off): a call of the endpoint whose phone has sent no RTP (nor RTCP) for that long, while
 * the call is up (`rtp_timeout`) or while the phone holds it (its SDP says sendonly or inactive,
 * or recvonly: `rtp_timeout_hold`), is hung up with cause 44, as Asterisk's res_pjsip_sdp_rtp.c does. With
 * `rtp_timeout_hold` 0 a held call is never timed out. The signalling applies them (calls/rtp-timeout.ts).
 */
import type { IniOption } from './ini.js';
import type { SipEndpointConfig } from './types.js';
import { parseInteger } from './values.js';

/** The largest timeout accepted: a year, in seconds. */
export const MAX_RTP_TIMEOUT_SECONDS = 31_536_000;

/** Endpoint options of this file, merged into readEndpoint's table. */
export function rtpTimeoutHandlers(endpoint: SipEndpointConfig): Record<string, (o: IniOption) => void> {
  return {
    rtp_timeout: (o) => {
      endpoint.rtpTimeout = parseInteger(o, 0, MAX_RTP_TIMEOUT_SECONDS);
    },
    rtp_timeout_hold: (o) => {
      endpoint.rtpTimeoutHold = parseInteger(o, 0, MAX_RTP_TIMEOUT_SECONDS);
    },
  };
}

/** The endpoint's two timeouts in seconds, 0 where an option is absent (off). */
export function endpointRtpTimeouts(endpoint: Pick<SipEndpointConfig, 'rtpTimeout' | 'rtpTimeoutHold'>): {
  active: number;
  hold: number;
} {
  return { active: endpoint.rtpTimeout ?? 0, hold: endpoint.rtpTimeoutHold ?? 0 };
}
