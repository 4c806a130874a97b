/**
 * Splits an allowMultiple parameter value the way the reference does (SPEC §4.0.4): commas separate
 * values except inside double quotes, parentheses or square brackets; double quotes are removed and
 * a backslash makes the next character literal. `a,"b,c",d(1,2)` → `a`, `b,c`, `d(1,2)`.
 */
export function splitArgs(input: string, delimiter = ','): string[] {
  const values: string[] = [];
  let current = '';
  let quoted = false;
  let parens = 0;
  let brackets = 0;
  for (let i = 0; i < input.length; i++) {
    const ch = input[i] as string;
    if (ch === '\\') {
      i += 1;
      if (i < input.length) current += input[i];
    } else if (ch === '"') {
      quoted = !quoted;
    } else if (ch === delimiter && !quoted && parens === 0 && brackets === 0) {
      values.push(current);
      current = '';
    } else {
      if (ch === '(') parens += 1;
      else if (ch === ')' && parens > 0) parens -= 1;
      else if (ch === '[') brackets += 1;
      else if (ch === ']' && brackets > 0) brackets -= 1;
      current += ch;
    }
  }
  values.push(current);
  return values;
}
