/**
 * Dial()'s third argument, the original's option letters:
 *
 *   g           continue in the dialplan when the callee hangs up
 *   r           the caller hears ringing (180) at once, before any callee rings
 *   m[(class)]  the caller hears music on hold instead of ringing until a callee answers
 *   L(x[:y[:z]]) the call lasts at most x ms; y ms before the end the caller hears a beep (every z ms after)
 *   S(n)        the call is hung up n seconds after the answer
 *   D(called[:calling])  DTMF sent to the callee, then the caller, once answered
 *   A(file)     an announcement played to the callee when it answers, before the bridge
 *   U(context[^arg…])  a Gosub to context,s,1 on the callee once it answers (GOSUB_RESULT ABORT ends the call)
 *   b(context^exten^priority[(arg^…)])  a Gosub run on each new callee before it is called
 *
 * In-call features (features.conf `[featuremap]` codes typed during the call, dial-features.ts);
 * the lower-case letter enables it for the callee, the upper-case one for the caller:
 *
 *   t / T       blindxfer (and atxfer, which is not built: its code is refused with a warning)
 *   h / H       disconnect
 *   w / W, x / X  automixmon (one-touch MixMonitor of the call)
 *   k / K       parkcall (parking is not built: its code is refused with a warning)
 *
 * As in the original, t/T govern only transfers by DTMF; a phone's own transfer (SIP REFER) is
 * not subject to them. Letters the server does not implement are reported once per call.
 */
import type { FeatureName } from '@switchboard/core';

export interface DialOptions {
  continueAfterCallee: boolean;
  ringing: boolean;
  music?: string;
  limitMs?: number;
  warningMs?: number;
  repeatWarningMs?: number;
  sendDigits?: { called: string; calling: string };
  announcement?: string;
  calleeGosub?: string;
  predialGosub?: string;
  /** Features each party may invoke by DTMF during the call. */
  features: { caller: Set<FeatureName>; callee: Set<FeatureName> };
  unsupported: string[];
}

/** Option letter (lower case) → the features it enables. */
const FEATURE_LETTERS: Record<string, readonly FeatureName[]> = {
  t: ['blindxfer', 'atxfer'],
  h: ['disconnect'],
  w: ['automixmon'],
  x: ['automixmon'],
  k: ['parkcall'],
};

/** U(context[^arg1[^arg2…]]): the subroutine starts at `s`,1 of the context. */
export function calleeGosubTarget(spec: string): string {
  const [context, ...args] = spec.split('^');
  return args.length > 0 ? `${context},s,1(${args.join(',')})` : `${context},s,1`;
}

/** b(context^exten^priority[(arg1[^arg2…])]) */
export function predialGosubTarget(spec: string): string {
  const open = spec.indexOf('(');
  const head = open < 0 ? spec : spec.slice(0, open);
  const args = open < 0 ? '' : spec.slice(open + 1, spec.endsWith(')') ? -1 : undefined);
  const target = head.split('^').join(',');
  return args === '' ? target : `${target}(${args.split('^').join(',')})`;
}

/** Index of the `)` closing the `(` at `open` (nesting counted); -1 when it is missing. */
function matchingParen(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === '(') depth++;
    else if (text[i] === ')' && --depth === 0) return i;
  }
  return -1;
}

export function parseDialOptions(text: string): DialOptions {
  const options: DialOptions = {
    continueAfterCallee: false,
    ringing: false,
    features: { caller: new Set(), callee: new Set() },
    unsupported: [],
  };
  let i = 0;
  while (i < text.length) {
    const letter = text[i++];
    let arg: string | undefined;
    if (text[i] === '(') {
      const close = matchingParen(text, i);
      arg = close < 0 ? text.slice(i + 1) : text.slice(i + 1, close);
      i = close < 0 ? text.length : close + 1;
    }
    switch (letter) {
      case 'g':
        options.continueAfterCallee = true;
        break;
      case 'r':
        options.ringing = true;
        break;
      case 'm':
        options.music = arg && arg.length > 0 ? arg : 'default';
        break;
      case 'L': {
        const [x, y, z] = (arg ?? '').split(':').map((n) => Number.parseInt(n, 10));
        if (x > 0) options.limitMs = x;
        if (y > 0) options.warningMs = y;
        if (z > 0) options.repeatWarningMs = z;
        break;
      }
      case 'S': {
        const seconds = Number.parseInt(arg ?? '', 10);
        if (seconds > 0) options.limitMs = Math.min(options.limitMs ?? Number.POSITIVE_INFINITY, seconds * 1000);
        break;
      }
      case 'D': {
        const [called = '', calling = ''] = (arg ?? '').split(':');
        options.sendDigits = { called, calling };
        break;
      }
      case 'A':
        if (arg) options.announcement = arg;
        break;
      case 'U':
        if (arg) options.calleeGosub = calleeGosubTarget(arg);
        break;
      case 'b':
        if (arg) options.predialGosub = predialGosubTarget(arg);
        break;
      case ' ':
        break;
      default: {
        const features = FEATURE_LETTERS[letter.toLowerCase()];
        if (features === undefined) {
          options.unsupported.push(letter);
          break;
        }
        const party = letter === letter.toLowerCase() ? options.features.callee : options.features.caller;
        for (const feature of features) party.add(feature);
      }
    }
  }
  return options;
}
