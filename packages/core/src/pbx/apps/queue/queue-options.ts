/**
 * Queue()'s option letters, as the original names them:
 *
 *   c   continue in the dialplan when the member hangs up (else the caller is hung up too)
 *   n   no retries: leave with TIMEOUT once every member has been tried
 *   r   the caller hears ringing instead of music on hold, while waiting and while a member rings
 *   h   the member may hang up by pressing *        H   the caller may hang up by pressing *
 *
 * Without `r` the caller keeps hearing the queue's music while a member rings, as in the
 * original. The transfer letters t and T need DTMF transfer features the server does not have;
 * they and any other letter are reported.
 */
export interface QueueOptions {
  continueAfterMember: boolean;
  noRetry: boolean;
  ringing: boolean;
  memberHangsUpWithStar: boolean;
  callerHangsUpWithStar: boolean;
  unsupported: string[];
}

export function parseQueueOptions(text: string): QueueOptions {
  const options: QueueOptions = {
    continueAfterMember: false,
    noRetry: false,
    ringing: false,
    memberHangsUpWithStar: false,
    callerHangsUpWithStar: false,
    unsupported: [],
  };
  for (const letter of text.replace(/\([^)]*\)/g, '')) {
    switch (letter) {
      case 'c':
        options.continueAfterMember = true;
        break;
      case 'n':
        options.noRetry = true;
        break;
      case 'r':
        options.ringing = true;
        break;
      case 'h':
        options.memberHangsUpWithStar = true;
        break;
      case 'H':
        options.callerHangsUpWithStar = true;
        break;
      case ' ':
        break;
      default:
        if (!options.unsupported.includes(letter)) options.unsupported.push(letter);
    }
  }
  return options;
}

/** Dial()'s options for ringing members: music on hold (class) unless the caller hears ringing; `g` for `c`. */
export function dialOptionsFor(options: QueueOptions, musicClass: string): string {
  let dial = options.ringing ? '' : `m(${musicClass || 'default'})`;
  if (options.continueAfterMember) dial += 'g';
  return dial;
}
