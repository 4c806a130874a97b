/**
 * pjsip.conf `rtp_timeout` and `rtp_timeout_hold` on one SIP call (core's pjsip-rtp-timeout.ts):
 * while the call is up its media leg is armed in the engine with the endpoint's timeout for the
 * call's state, `rtp_timeout` off hold and `rtp_timeout_hold` while the far end holds the call
 * (its SDP says sendonly or inactive) or says it will only receive (recvonly, which Asterisk meets
 * as a call it holds itself); 0 leaves the leg unarmed. The engine reports `legRtpTimeout` once
 * the phone has sent nothing for that long, and the call ends with cause 44, as Asterisk's
 * res_pjsip_sdp_rtp.c `rtp_check_timeout` ends it (AST_CAUSE_REQUESTED_CHAN_UNAVAIL).
 *
 *   answered ──arm(rtp_timeout)──> counting ──legRtpTimeout──> BYE, cause 44
 *                                   │    ^
 *           far end's SDP applied   │    │  (hold: rtp_timeout_hold; resume: rtp_timeout;
 *           (re-INVITE, UPDATE)     └────┘   the count starts again each time)
 *
 * Armed when the call is answered (a call we answer: once its 2xx is acknowledged, so that no BYE
 * goes before the ACK, RFC 3261 §15), never while it rings; re-armed whenever the far end's SDP is
 * applied in the call, as Asterisk reschedules its check on every negotiation. The engine counts
 * from when the leg's remote is known, so a late offer (in the ACK) is not timed from the answer.
 */
import type { Logger, MediaEngine, SipEndpointConfig } from '@switchboard/core';
import { endpointRtpTimeouts } from '@switchboard/core';
import type { RemoteMedia } from '../sdp/sdp.js';

/** Q.850 44, requested circuit/channel not available: the cause Asterisk sets on an RTP timeout. */
export const CAUSE_REQUESTED_CHAN_UNAVAIL = 44;

/**
 * The warning written when a call is ended for silence. The driver logs it sampled (one line per
 * interval, the rest counted): a network outage ends many calls at once.
 */
export const RTP_TIMEOUT_MESSAGE = 'disconnecting channel for lack of RTP activity';

export class CallRtpTimeout {
  readonly #media: Partial<Pick<MediaEngine, 'setLegRtpTimeout'>>;
  readonly #log: Logger;
  /** The call's leg while it has one. */
  readonly #legId: () => string | undefined;
  #limits = { active: 0, hold: 0 };
  /** The seconds the leg is armed with now; 0 while it is not. */
  #armed = 0;

  constructor(media: Partial<Pick<MediaEngine, 'setLegRtpTimeout'>>, log: Logger, legId: () => string | undefined) {
    this.#media = media;
    this.#log = log;
    this.#legId = legId;
  }

  /** The endpoint's timeouts, read when the call starts (a reload applies to new calls). */
  configure(endpoint: SipEndpointConfig): void {
    this.#limits = endpointRtpTimeouts(endpoint);
  }

  /** The call is up with the far end's latest SDP applied: (re)arm for its state; the count starts again. */
  arm(remote: RemoteMedia | undefined): void {
    const media = this.#media;
    const legId = this.#legId();
    if (legId === undefined || media.setLegRtpTimeout === undefined) return;
    const seconds = remote !== undefined && silentByDesign(remote) ? this.#limits.hold : this.#limits.active;
    // Nothing armed and nothing to arm: no request for an endpoint without the options.
    if (seconds === 0 && this.#armed === 0) return;
    this.#armed = seconds;
    media.setLegRtpTimeout(legId, seconds).catch((err: unknown) => {
      // The leg went with the call while the request was on its way.
      this.#log.debug({ err, legId }, 'RTP timeout not set on the media leg');
    });
  }

  /**
   * The engine's `legRtpTimeout`: true (and the warning written) when the call had a timeout armed;
   * false for one that crossed a disarm. Nothing is armed afterwards.
   */
  expire(seconds: number, channel: string): boolean {
    const armed = this.#armed;
    this.#armed = 0;
    if (armed === 0) return false;
    this.#log.warn({ channel, seconds }, RTP_TIMEOUT_MESSAGE);
    return true;
  }
}

/**
 * Whether `rtp_timeout_hold` applies: the far end holds the call (sendonly or inactive, c=0.0.0.0
 * read as such by sdp.ts: Asterisk's "remotely held"), or said it will only receive (recvonly,
 * which Asterisk meets as "locally held", when it holds the phone): silence from it is expected.
 */
function silentByDesign(remote: RemoteMedia): boolean {
  return remote.direction === 'sendonly' || remote.direction === 'inactive' || remote.direction === 'recvonly';
}
