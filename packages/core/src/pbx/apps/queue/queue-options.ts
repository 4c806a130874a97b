/**
 * Queue()'s option letters, as the original names them:
 *
 *   c   continue in the dialplan when the member hangs up (else the caller is hung up too)
 *   n   no retries: leave with TIMEOUT once every member has been tried
 *   r   the caller hears ringing instead of music on hold, while waiting and while a member rings
 *   h H t T w W x X k K   the in-call features of Dial() with the same letters (features.conf
 *       codes: h/H hang up, t/T blind transfer, w/W and x/X recording, k/K parking), the lower-case
 *       letter for the member, the upper-case one for the caller
 *
 * Without `r` the caller keeps hearing the queue's music while a member rings, as in the
 * original. Any other letter is reported.
 */
export interface QueueOptions {
  continueAfterMember: boolean;
  noRetry: boolean;
  ringing: boolean;
  /** The feature letters handed to Dial() as they were written. */
  dialFeatures: string;
  unsupported: string[];
}

const DIAL_FEATURE_LETTERS = 'hHtTwWxXkK';

export function parseQueueOptions(text: string): QueueOptions {
  const options: QueueOptions = {
    continueAfterMember: false,
    noRetry: false,
    ringing: false,
    dialFeatures: '',
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
      case ' ':
        break;
      default:
        if (DIAL_FEATURE_LETTERS.includes(letter)) {
          if (!options.dialFeatures.includes(letter)) options.dialFeatures += letter;
        } else if (!options.unsupported.includes(letter)) options.unsupported.push(letter);
    }
  }
  return options;
}

/**
 * Dial()'s options for ringing members: music on hold (class) unless the caller hears ringing; `g`
 * for `c`; the feature letters as given.
 */
export function dialOptionsFor(options: QueueOptions, musicClass: string): string {
  let dial = options.ringing ? '' : `m(${musicClass || 'default'})`;
  if (options.continueAfterMember) dial += 'g';
  return dial + options.dialFeatures;
}
