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

const BUILTINS: Record<string, (args: string) => string> = {
  LEN: (args) => String(args.length),
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
