/**
 * Variable expansion in application arguments, as operators write it in extensions.conf:
 *
 *   ${VAR}                 a variable (channel, global, or built-in such as ${EXTEN})
 *   ${${X}}                nested: the inner expansion names the variable
 *   ${VAR:offset:length}   substring; a negative offset counts from the end, a negative length
 *                          leaves that many characters off the end
 *   ${FUNC(args)}          a function (${CALLERID(num)}, ${LEN(x)}); a substring may follow it
 *   $[expr]                an expression (see expression.ts)
 *
 * Values are not expanded again (a variable holding "${X}" yields that text), so expansion always
 * ends. Malformed input is kept or expands to nothing, with a warning, never an exception: this
 * runs while a call is in progress.
 */
import { ExpressionError, evaluateExpression } from './expression.js';
import { callBuiltinFunction } from './functions.js';

// Callers that expand and then split arguments find both here.
export { splitArgs } from './split-args.js';

/**
 * Resolves `${NAME}` (args undefined) or `${FUNC(args)}` (name `FUNC`, args already expanded).
 * Return undefined for an unknown name: a variable then expands to '', a function falls back to the
 * built-ins (LEN, IF, ...). A lookup that keys whole calls is also served: when `('CALLERID', 'num')`
 * finds nothing, it is asked for `('CALLERID(num)')` before the built-ins.
 */
export type ExpandLookup = (name: string, args?: string) => string | undefined;

export interface ExpandOptions {
  warn?: (message: string) => void;
}

export function expand(text: string, lookup: ExpandLookup, options: ExpandOptions = {}): string {
  const warn = options.warn ?? (() => {});
  let out = '';
  let i = 0;
  while (i < text.length) {
    const ch = text[i];
    const next = text[i + 1];
    if (ch === '$' && (next === '{' || next === '[')) {
      const end = findClosing(text, i + 2, next);
      if (end < 0) {
        warn(`missing '${next === '{' ? '}' : ']'}' in '${text}'`);
        out += text.slice(i);
        break;
      }
      const inner = expand(text.slice(i + 2, end), lookup, options);
      out += next === '{' ? resolveReference(inner, lookup, warn) : evaluate(inner, warn);
      i = end + 1;
    } else {
      out += ch;
      i++;
    }
  }
  return out;
}

/** Index of the bracket closing one opened just before `start`; nested `${`/`$[` and `[` count. */
function findClosing(text: string, start: number, open: '{' | '['): number {
  const close = open === '{' ? '}' : ']';
  let depth = 1;
  for (let i = start; i < text.length; i++) {
    const ch = text[i];
    // Braces only nest as `${`; a lone `{` is ordinary text. Square brackets nest as written.
    if (ch === open && (open === '[' || text[i - 1] === '$')) depth++;
    else if (ch === close && --depth === 0) return i;
  }
  return -1;
}

function evaluate(expression: string, warn: (message: string) => void): string {
  try {
    return evaluateExpression(expression);
  } catch (err) {
    if (!(err instanceof ExpressionError)) throw err;
    warn(err.message);
    return '';
  }
}

/** `NAME`, `NAME:off:len`, `FUNC(args)`, `FUNC(args):off:len`. */
function resolveReference(reference: string, lookup: ExpandLookup, warn: (message: string) => void): string {
  const colon = firstTopLevelColon(reference);
  const name = colon < 0 ? reference : reference.slice(0, colon);
  const value = resolveName(name, lookup, warn);
  if (colon < 0) return value;
  const [offsetText, lengthText] = reference.slice(colon + 1).split(':');
  return substring(value, offsetText, lengthText);
}

function resolveName(name: string, lookup: ExpandLookup, warn: (message: string) => void): string {
  const open = name.indexOf('(');
  if (open < 0) return lookup(name) ?? '';
  const close = name.lastIndexOf(')');
  if (close < open) {
    warn(`missing ')' in function call '${name}'`);
    return '';
  }
  const fn = name.slice(0, open);
  const args = name.slice(open + 1, close);
  const value = lookup(fn, args) ?? lookup(`${fn}(${args})`) ?? callBuiltinFunction(fn, args);
  if (value === undefined) {
    warn(`unknown function ${fn}()`);
    return '';
  }
  return value;
}

function firstTopLevelColon(text: string): number {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === '(') depth++;
    else if (ch === ')' && depth > 0) depth--;
    else if (ch === ':' && depth === 0) return i;
  }
  return -1;
}

/** Asterisk's substring rules; a field that is not a number counts as 0 (as atoi would). */
function substring(value: string, offsetText: string | undefined, lengthText: string | undefined): string {
  const toInt = (text: string | undefined) => {
    const n = Number.parseInt(text ?? '', 10);
    return Number.isNaN(n) ? 0 : n;
  };
  let offset = toInt(offsetText);
  if (offset < 0) offset = Math.max(0, value.length + offset);
  if (offset >= value.length) return '';
  if (lengthText === undefined || lengthText.trim() === '') return value.slice(offset);
  const length = toInt(lengthText);
  if (length < 0) return value.slice(offset, Math.max(offset, value.length + length));
  return value.slice(offset, offset + length);
}
