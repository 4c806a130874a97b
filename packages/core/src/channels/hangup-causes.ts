/**
 * Q.850 cause codes used by the object model and the `reason` values of the hangup operation
 * (reference channels.md, "Hangup reason → cause code").
 */
export const HANGUP_REASONS = {
  normal: 16,
  busy: 17,
  congestion: 34,
  no_answer: 19,
  timeout: 18,
  rejected: 21,
  unallocated: 1,
  normal_unspecified: 31,
  number_incomplete: 28,
  codec_mismatch: 58,
  interworking: 127,
  failure: 38,
  answered_elsewhere: 26,
} as const;

export type HangupReason = keyof typeof HANGUP_REASONS;

export const HANGUP_REASON_NAMES = Object.keys(HANGUP_REASONS) as HangupReason[];

const CAUSE_TEXT: Record<number, string> = {
  0: 'Unknown',
  1: 'Unallocated (unassigned) number',
  3: 'No route to destination',
  16: 'Normal Clearing',
  17: 'User busy',
  18: 'No user responding',
  19: 'User alerting, no answer',
  20: 'Subscriber absent',
  21: 'Call Rejected',
  26: 'Answered elsewhere',
  27: 'Destination out of order',
  28: 'Invalid number format (addressfull)',
  31: 'Normal, unspecified',
  34: 'Circuit/channel congestion',
  38: 'Network out of order',
  41: 'Temporary failure',
  42: 'Switching equipment congestion',
  44: 'Requested channel not available',
  58: 'Bearer capability not available',
  127: 'Interworking, unspecified',
};

export function causeText(cause: number): string {
  return CAUSE_TEXT[cause] ?? 'Unknown';
}

export const CAUSE_NORMAL_CLEARING = 16;
