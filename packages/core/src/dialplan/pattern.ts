/**
 * Extension patterns, as operators write them in extensions.conf.
 *
 * A literal extension (`100`, `s`, `alice`) matches only itself, case-sensitively. A pattern starts
 * with `_` and is read position by position:
 *   X = 0-9   Z = 1-9   N = 2-9   (also in lower case, as in Asterisk)
 *   [15-7a]   one character from the set (ranges allowed)
 *   .         one or more characters of anything; ends the pattern
 *   !         zero or more characters of anything; ends the pattern
 *   -         ignored (for readability: `_555-XXXX`)
 *   anything else matches itself.
 *
 * When several extensions match, the most specific wins: a literal before any pattern; patterns are
 * compared position by position by the size of the set each position accepts (then its lowest
 * character), so `_12X` beats `_1XX` beats `_1.` beats `_1!`.
 */

export class PatternSyntaxError extends Error {
  constructor(pattern: string, reason: string) {
    super(`invalid extension pattern '${pattern}': ${reason}`);
    this.name = 'PatternSyntaxError';
  }
}

type PatternElement = { kind: 'set'; chars: ReadonlySet<string>; lowest: string } | { kind: 'oneOrMore' } | { kind: 'zeroOrMore' };

export interface CompiledPattern {
  /** As written, including a leading `_` for patterns. */
  readonly text: string;
  readonly isPattern: boolean;
  /** Position elements for patterns; empty for literals. */
  readonly elements: readonly PatternElement[];
}

const DIGITS = '0123456789';
const NAMED_SETS: Record<string, string> = { X: DIGITS, Z: DIGITS.slice(1), N: DIGITS.slice(2) };

export function compilePattern(text: string): CompiledPattern {
  if (text === '') throw new PatternSyntaxError(text, 'empty');
  if (!text.startsWith('_')) return { text, isPattern: false, elements: [] };
  const elements: PatternElement[] = [];
  const body = text.slice(1);
  for (let i = 0; i < body.length; i++) {
    const ch = body[i];
    if (ch === '-') continue;
    if (ch === '.' || ch === '!') {
      elements.push({ kind: ch === '.' ? 'oneOrMore' : 'zeroOrMore' });
      // Anything after a wildcard could never be reached: the wildcard consumes the rest.
      break;
    }
    const named = NAMED_SETS[ch.toUpperCase()];
    if (named) {
      elements.push(setElement(named.split('')));
    } else if (ch === '[') {
      const close = body.indexOf(']', i + 1);
      if (close < 0) throw new PatternSyntaxError(text, "'[' without ']'");
      const chars = expandClass(body.slice(i + 1, close));
      if (chars.length === 0) throw new PatternSyntaxError(text, 'empty character class');
      elements.push(setElement(chars));
      i = close;
    } else {
      elements.push(setElement([ch]));
    }
  }
  if (elements.length === 0) throw new PatternSyntaxError(text, 'no characters after _');
  return { text, isPattern: true, elements };
}

function setElement(chars: string[]): PatternElement {
  const set = new Set(chars);
  const lowest = [...set].sort()[0];
  return { kind: 'set', chars: set, lowest };
}

/** `1-3a` → ['1','2','3','a']; a `-` at either end is literal. */
function expandClass(body: string): string[] {
  const chars: string[] = [];
  for (let i = 0; i < body.length; i++) {
    const from = body[i];
    if (body[i + 1] === '-' && i + 2 < body.length) {
      const to = body[i + 2];
      const [lo, hi] = from <= to ? [from, to] : [to, from];
      for (let code = lo.charCodeAt(0); code <= hi.charCodeAt(0); code++) chars.push(String.fromCharCode(code));
      i += 2;
    } else {
      chars.push(from);
    }
  }
  return chars;
}

export function matchesPattern(pattern: CompiledPattern, exten: string): boolean {
  if (!pattern.isPattern) return pattern.text === exten;
  let pos = 0;
  for (const element of pattern.elements) {
    if (element.kind === 'oneOrMore') return pos < exten.length;
    if (element.kind === 'zeroOrMore') return true;
    if (pos >= exten.length || !element.chars.has(exten[pos])) return false;
    pos++;
  }
  return pos === exten.length;
}

/**
 * Whether an extension matching `pattern` (given as written) could begin with `prefix` and be
 * longer than it: the caller may still be dialling (WaitExten's "can match more").
 */
export function canExtend(pattern: CompiledPattern, prefix: string): boolean {
  if (!pattern.isPattern) return pattern.text.length > prefix.length && pattern.text.startsWith(prefix);
  let pos = 0;
  for (const element of pattern.elements) {
    if (element.kind !== 'set') return true;
    if (pos >= prefix.length) return true;
    if (!element.chars.has(prefix[pos])) return false;
    pos++;
  }
  return false;
}

/**
 * Orders two extensions by specificity: negative when `a` is more specific (wins). A literal beats
 * any pattern; the end of a pattern weighs most, so a pattern that ends early yields to one that
 * continues with a wildcard (Asterisk's ordering).
 */
export function comparePatterns(a: CompiledPattern, b: CompiledPattern): number {
  if (a.isPattern !== b.isPattern) return a.isPattern ? 1 : -1;
  if (!a.isPattern) return a.text < b.text ? -1 : a.text > b.text ? 1 : 0;
  const length = Math.max(a.elements.length, b.elements.length);
  for (let i = 0; i <= length; i++) {
    const ea = a.elements[i];
    const eb = b.elements[i];
    const diff = weight(ea) - weight(eb);
    if (diff !== 0) return diff;
    if (ea?.kind === 'set' && eb?.kind === 'set') {
      const setDiff = compareSets(ea.chars, eb.chars);
      if (setDiff !== 0) return setDiff;
    }
    if (!ea || !eb) break;
  }
  return a.text < b.text ? -1 : a.text > b.text ? 1 : 0;
}

const WEIGHT_ONE_OR_MORE = 0x18000;
const WEIGHT_ZERO_OR_MORE = 0x28000;
const WEIGHT_END = 0x30000;

/** Set size first, lowest character second; wildcards and the end of the pattern come after any set. */
function weight(element: PatternElement | undefined): number {
  if (!element) return WEIGHT_END;
  if (element.kind === 'oneOrMore') return WEIGHT_ONE_OR_MORE;
  if (element.kind === 'zeroOrMore') return WEIGHT_ZERO_OR_MORE;
  return (element.chars.size << 8) | (element.lowest.charCodeAt(0) & 0xff);
}

/** Two sets of equal size and lowest character: decide by their sorted members, for a stable order. */
function compareSets(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  const sa = [...a].sort().join('');
  const sb = [...b].sort().join('');
  return sa < sb ? -1 : sa > sb ? 1 : 0;
}
