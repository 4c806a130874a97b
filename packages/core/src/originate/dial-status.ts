/** The `dialstatus` of a Dial event that ends an unanswered call, from the Q.850 cause it ended with. */
export type FinalDialStatus = 'BUSY' | 'NOANSWER' | 'CONGESTION' | 'CHANUNAVAIL' | 'CANCEL';

export function dialStatusForCause(cause: number): FinalDialStatus {
  switch (cause) {
    case 17: // user busy
    case 21: // call rejected (SIP 603 Decline)
      return 'BUSY';
    case 18: // no user responding
    case 19: // no answer
      return 'NOANSWER';
    case 34: // circuit congestion
    case 38: // network out of order
    case 41: // temporary failure
    case 42: // switching equipment congestion
    case 44: // requested channel not available
      return 'CONGESTION';
    case 16: // normal clearing before an answer: the attempt was cancelled
    case 26: // answered elsewhere
      return 'CANCEL';
    default:
      return 'CHANUNAVAIL';
  }
}

/** Cause used when a driver cannot even start the call (Q.850 "subscriber absent"). */
export const CAUSE_CHANNEL_UNAVAILABLE = 20;
