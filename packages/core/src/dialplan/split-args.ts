/**
 * Splits application arguments the way dialplan applications read them: on commas, except commas
 * inside "double quotes", inside (parentheses) or [brackets], or escaped with a backslash.
 * Quotes and escaping backslashes are removed: `demo,a\,b,"c,d"` → ['demo', 'a,b', 'c,d'].
 * Arguments are not trimmed (applications that want that trim themselves); an empty text is no
 * arguments at all, while `,x` is two (the first empty). Expand `${...}` before splitting, as
 * Asterisk does, so values containing commas are split too unless quoted.
 */
export function splitArgs(text: string): string[] {
  if (text === '') return [];
  const args: string[] = [];
  let current = '';
  let quoted = false;
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    if (ch === '\\' && i + 1 < text.length) {
      current += text[++i];
    } else if (ch === '"') {
      quoted = !quoted;
    } else if (quoted) {
      current += ch;
    } else if (ch === '(' || ch === '[') {
      depth++;
      current += ch;
    } else if ((ch === ')' || ch === ']') && depth > 0) {
      depth--;
      current += ch;
    } else if (ch === ',' && depth === 0) {
      args.push(current);
      current = '';
    } else {
      current += ch;
    }
  }
  args.push(current);
  return args;
}
