/**
 * Dialplan functions that need nothing but their argument text. Functions that read a channel
 * (CALLERID, CHANNEL, ...) are answered by the caller's lookup before these are tried.
 */

function isTrue(value: string): boolean {
  const trimmed = value.trim();
  return trimmed !== '' && !(/^[+-]?\d+$/.test(trimmed) && Number(trimmed) === 0);
}

/** `IF(cond?then:else)`: either branch may be empty or omitted. */
function ifFunction(args: string): string {
  const question = args.indexOf('?');
  if (question < 0) return '';
  const branches = args.slice(question + 1);
  const colon = branches.indexOf(':');
  const whenTrue = colon < 0 ? branches : branches.slice(0, colon);
  const whenFalse = colon < 0 ? '' : branches.slice(colon + 1);
  return isTrue(args.slice(0, question)) ? whenTrue : whenFalse;
}

/** `CUT(varname-value,delimiter,fields)`: here the first argument is the text itself (see cutFunction). */
function splitFirstArgs(args: string, count: number): string[] {
  const parts = args.split(',');
  if (parts.length <= count) return parts;
  return [...parts.slice(0, count - 1), parts.slice(count - 1).join(',')];
}

/**
 * `CUT(text,delimiter,fields)`: fields are 1-based, `2`, `2-4`, `2-` or `-3`, several joined by `&`.
 * (The original names a variable; channel-functions.ts resolves it before calling this.)
 */
export function cutText(text: string, delimiter: string, fields: string): string {
  const delim = delimiter === '' ? '-' : delimiter.replace(/^\\/, '');
  const pieces = text.split(delim);
  const out: string[] = [];
  for (const spec of fields.split('&')) {
    const range = /^(\d*)(-?)(\d*)$/.exec(spec.trim());
    if (!range) continue;
    const from = range[1] === '' ? 1 : Number(range[1]);
    const to = range[2] === '' ? from : range[3] === '' ? pieces.length : Number(range[3]);
    for (let i = from; i <= to && i <= pieces.length; i++) out.push(pieces[i - 1]);
  }
  return out.join(delim);
}

/** `REGEX("pattern" text)`: 1 when the extended regular expression matches anywhere in the text. */
function regexFunction(args: string): string {
  const match = /^\s*"((?:[^"\\]|\\.)*)"\s?(.*)$/s.exec(args);
  if (!match) return '0';
  try {
    return new RegExp(match[1]).test(match[2]) ? '1' : '0';
  } catch {
    return '0';
  }
}

/** `RAND([min][,max])`: an integer from min (default 0) to max (default 2147483647), inclusive. */
function randFunction(args: string): string {
  const [minText, maxText] = args.split(',');
  let min = Number.parseInt(minText ?? '', 10);
  let max = Number.parseInt(maxText ?? '', 10);
  if (Number.isNaN(min)) min = 0;
  if (Number.isNaN(max)) max = 2147483647;
  if (max < min) [min, max] = [max, min];
  return String(min + Math.floor(Math.random() * (max - min + 1)));
}

/**
 * `MATH(expression[,type])`: one binary operation (+ - * / % ^ << >> and comparisons), as the
 * original; `type` is `f`/`float` (default), `i`/`int`, `h`/`hex` or `c`/`char`.
 */
function mathFunction(args: string): string {
  const [expression, typeText] = splitFirstArgs(args, 2);
  const match = /^\s*(-?[0-9.]+)\s*(<<|>>|<=|>=|==|!=|[-+*/%^<>])\s*(-?[0-9.]+)\s*$/.exec(expression ?? '');
  const single = /^\s*(-?[0-9.]+)\s*$/.exec(expression ?? '');
  let value: number;
  if (match) {
    const [a, op, b] = [Number(match[1]), match[2], Number(match[3])];
    const ops: Record<string, () => number> = {
      '+': () => a + b,
      '-': () => a - b,
      '*': () => a * b,
      '/': () => a / b,
      '%': () => a % b,
      '^': () => a ** b,
      '<<': () => a * 2 ** b,
      '>>': () => Math.trunc(a / 2 ** b),
      '<': () => Number(a < b),
      '>': () => Number(a > b),
      '<=': () => Number(a <= b),
      '>=': () => Number(a >= b),
      '==': () => Number(a === b),
      '!=': () => Number(a !== b),
    };
    value = ops[op]();
  } else if (single) {
    value = Number(single[1]);
  } else {
    return '';
  }
  if (!Number.isFinite(value)) return '';
  switch ((typeText ?? 'f').trim().toLowerCase()) {
    case 'i':
    case 'int':
      return String(Math.trunc(value));
    case 'h':
    case 'hex':
      return Math.trunc(value).toString(16);
    case 'c':
    case 'char':
      return String.fromCharCode(Math.trunc(value) & 0xff);
    default:
      return Number.isInteger(value) ? String(value) : value.toFixed(6).replace(/0+$/, '');
  }
}

const BUILTINS: Record<string, (args: string) => string> = {
  LEN: (args) => String(args.length),
  REGEX: regexFunction,
  RAND: randFunction,
  MATH: mathFunction,
  QUOTE: (args) => `"${args.replace(/(["\\])/g, '\\$1')}"`,
  ISNULL: (args) => (args === '' ? '1' : '0'),
  EXISTS: (args) => (args === '' ? '0' : '1'),
  IF: ifFunction,
  TOUPPER: (args) => args.toUpperCase(),
  TOLOWER: (args) => args.toLowerCase(),
};

/** The built-in's result, or undefined when `name` is not one of them. Names are case-insensitive. */
export function callBuiltinFunction(name: string, args: string): string | undefined {
  const fn = BUILTINS[name.toUpperCase()];
  return fn ? fn(args) : undefined;
}
