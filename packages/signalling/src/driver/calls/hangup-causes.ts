/**
 * Q.850 cause ⇄ SIP status, after RFC 3398 §8.2.6.1 (ISUP cause → SIP) and §7.2.6.1
 * (SIP → ISUP cause), adjusted where PBXes commonly differ for calls they reject themselves.
 *
 * Cause → final response, for an inbound call that is still unanswered:
 *
 *   cause                                  status  note
 *   1   unallocated number                  404
 *   2   no route to transit network         404
 *   3   no route to destination             404
 *   16  normal clearing                     480    RFC 3398 has none (BYE); unanswered: 480, as PBXes do
 *   17  user busy                           486
 *   18  no user responding                  480    RFC 3398 says 408; 480 keeps the caller from retrying at once
 *   19  no answer from user                 480
 *   20  subscriber absent                   480
 *   21  call rejected                       403
 *   22  number changed                      410
 *   23  redirected to new destination       410
 *   26  non-selected user clearing          480    RFC 3398 says 404; the answered-elsewhere 487 is for CANCEL
 *   27  destination out of order            502
 *   28  invalid number format               484
 *   29  facility rejected                   501
 *   31  normal, unspecified                 480
 *   34  no circuit/channel available        503
 *   38  network out of order                503
 *   41  temporary failure                   503
 *   42  switching equipment congestion      503
 *   47  resource unavailable                503
 *   55  incoming calls barred within CUG    403
 *   57  bearer capability not authorized    403
 *   58  bearer capability not available     488    RFC 3398 says 503; 488 tells the caller it is the media
 *   65  bearer capability not implemented   488
 *   69  requested facility not implemented  501
 *   70  only restricted digital available   488
 *   79  service/option not implemented      501
 *   87  user not member of CUG              403
 *   88  incompatible destination            488    RFC 3398 says 503
 *   102 recovery on timer expiry            504
 *   111 protocol error                      500
 *   127 interworking, unspecified           500
 *   anything else                           480
 */

const CAUSE_TO_STATUS: Readonly<Record<number, number>> = {
  1: 404,
  2: 404,
  3: 404,
  16: 480,
  17: 486,
  18: 480,
  19: 480,
  20: 480,
  21: 403,
  22: 410,
  23: 410,
  26: 480,
  27: 502,
  28: 484,
  29: 501,
  31: 480,
  34: 503,
  38: 503,
  41: 503,
  42: 503,
  47: 503,
  55: 403,
  57: 403,
  58: 488,
  65: 488,
  69: 501,
  70: 488,
  79: 501,
  87: 403,
  88: 488,
  102: 504,
  111: 500,
  127: 500,
};

/** The final response for an unanswered inbound call hung up with this Q.850 cause. */
export function statusForCause(cause: number): number {
  return CAUSE_TO_STATUS[cause] ?? 480;
}

/**
 * SIP final response → Q.850 cause (RFC 3398 §7.2.6.1), for the far end's answers to our
 * requests and for failures we report upward:
 *
 *   400 → 41   401 → 21   402 → 21   403 → 21   404 → 1    405 → 63   406 → 79   407 → 21
 *   408 → 102  410 → 22   413 → 127  414 → 127  415 → 79   416 → 127  420 → 127  421 → 127
 *   423 → 127  480 → 18   481 → 41   482 → 25   483 → 25   484 → 28   485 → 1    486 → 17
 *   487 → 16   488 → 58   500 → 41   501 → 79   502 → 38   503 → 41   504 → 102  505 → 127
 *   513 → 127  600 → 17   603 → 21   604 → 1    606 → 58   other 4xx → 21, 5xx → 41, 6xx → 21
 *
 * 487 maps to normal clearing (a cancelled call is not a failure) and 488/606 to 58 (bearer
 * capability not available), where RFC 3398 has 127, as PBXes report them.
 */
const STATUS_TO_CAUSE: Readonly<Record<number, number>> = {
  400: 41,
  401: 21,
  402: 21,
  403: 21,
  404: 1,
  405: 63,
  406: 79,
  407: 21,
  408: 102,
  410: 22,
  413: 127,
  414: 127,
  415: 79,
  416: 127,
  420: 127,
  421: 127,
  423: 127,
  480: 18,
  481: 41,
  482: 25,
  483: 25,
  484: 28,
  485: 1,
  486: 17,
  487: 16,
  488: 58,
  500: 41,
  501: 79,
  502: 38,
  503: 41,
  504: 102,
  505: 127,
  513: 127,
  600: 17,
  603: 21,
  604: 1,
  606: 58,
};

export function causeForStatus(status: number): number {
  const mapped = STATUS_TO_CAUSE[status];
  if (mapped !== undefined) return mapped;
  if (status >= 500 && status < 600) return 41;
  return 21;
}

/** Q.850 normal call clearing: what a BYE means (RFC 3398 §8.2.6.1 / §7.2.6). */
export const CAUSE_NORMAL_CLEARING = 16;
/** What a CANCEL without a Reason header means: the caller gave up before the answer. */
export const CAUSE_CANCELLED = CAUSE_NORMAL_CLEARING;
/** The media could not be agreed on (488), or an answer in the ACK was unusable. */
export const CAUSE_BEARER_NOT_AVAILABLE = 58;
/** The 2xx was never acknowledged or a BYE went unanswered. */
export const CAUSE_RECOVERY_ON_TIMER_EXPIRY = 102;
/** A transport failure toward the peer. */
export const CAUSE_NETWORK_OUT_OF_ORDER = 38;
/** No circuit/channel available (503): the call's media leg could not be set up. */
export const CAUSE_NO_CIRCUIT_AVAILABLE = 34;

/**
 * The Q.850 cause of an RFC 3326 Reason header (`Q.850;cause=16;text="..."`), if it has one.
 * Several reasons may be listed; the first Q.850 one counts.
 */
export function causeFromReasonHeader(values: readonly string[]): number | undefined {
  for (const value of values) {
    const semi = value.indexOf(';');
    const protocol = (semi === -1 ? value : value.slice(0, semi)).trim().toUpperCase();
    if (protocol !== 'Q.850') continue;
    const match = /;\s*cause\s*=\s*(\d{1,3})/i.exec(value);
    if (match !== null) {
      const cause = Number(match[1]);
      if (cause > 0 && cause <= 127) return cause;
    }
  }
  return undefined;
}

/** An RFC 3326 Reason header value for a BYE we send. */
export function reasonHeaderForCause(cause: number): string {
  return `Q.850;cause=${cause}`;
}

/** Q.850 41: the call cannot be served now (503), e.g. a Replaces naming a call we cannot take over. */
export const CAUSE_TEMPORARY_FAILURE = 41;
