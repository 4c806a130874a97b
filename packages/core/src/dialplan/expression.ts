/**
 * `$[...]` expressions, evaluated after the `${...}` inside them have been expanded.
 *
 * Operators, lowest precedence first (as in Asterisk's expression parser):
 *   c ? a :: b a when c is neither empty nor 0, else b
 *   a | b      a if a is neither empty nor 0, else b
 *   a & b      a if both are neither empty nor 0, else 0
 *   = == != < > <= >=   1 or 0; numeric when both sides are integers, else string comparison
 *   + -        integer arithmetic
 *   * / %      arithmetic: integers stay integers (division truncates toward zero); a decimal
 *              operand gives a decimal result, as in Asterisk 1.6 and later
 *   a : re     regular expression match anchored at the start of a; a =~ re anywhere in it:
 *              the text of the first (group) when the pattern has one, else the number of
 *              characters matched (0 when it does not match)
 *   - !        unary minus, logical not
 *   ( )        grouping; "quoted strings" may hold spaces and operator characters
 */

export class ExpressionError extends Error {
  constructor(expression: string, reason: string) {
    super(`cannot evaluate $[${expression}]: ${reason}`);
    this.name = 'ExpressionError';
  }
}

type Token = { kind: 'value'; text: string } | { kind: 'op'; text: string };

const OPERATORS = ['::', '=~', '<=', '>=', '!=', '==', '=', '<', '>', '+', '-', '*', '/', '%', '&', '|', '!', '(', ')', '?', ':'];
const OPERATOR_START = new Set(OPERATORS.map((op) => op[0]));

function tokenize(expression: string): Token[] {
  const tokens: Token[] = [];
  let i = 0;
  while (i < expression.length) {
    const ch = expression[i];
    if (/\s/.test(ch)) {
      i++;
    } else if (ch === '"') {
      let text = '';
      i++;
      while (i < expression.length && expression[i] !== '"') {
        if (expression[i] === '\\' && i + 1 < expression.length) i++;
        text += expression[i++];
      }
      if (i >= expression.length) throw new ExpressionError(expression, 'unterminated string');
      i++;
      tokens.push({ kind: 'value', text });
    } else if (OPERATOR_START.has(ch)) {
      const op = OPERATORS.find((candidate) => expression.startsWith(candidate, i)) ?? ch;
      tokens.push({ kind: 'op', text: op });
      i += op.length;
    } else {
      let text = '';
      while (i < expression.length && !/\s/.test(expression[i]) && !OPERATOR_START.has(expression[i]) && expression[i] !== '"') {
        text += expression[i++];
      }
      tokens.push({ kind: 'value', text });
    }
  }
  return tokens;
}

const INTEGER = /^[+-]?\d+$/;
const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)$/;

function isTrue(value: string): boolean {
  return value !== '' && !(INTEGER.test(value) && Number(value) === 0);
}

/** Numeric order when both are integers, else string order; -1, 0 or 1. */
function compareValues(left: string, right: string): number {
  if (NUMBER.test(left) && NUMBER.test(right)) return Math.sign(Number(left) - Number(right));
  if (left === right) return 0;
  return left < right ? -1 : 1;
}

const COMPARISONS: Record<string, (order: number) => boolean> = {
  '=': (order) => order === 0,
  '==': (order) => order === 0,
  '!=': (order) => order !== 0,
  '<': (order) => order < 0,
  '>': (order) => order > 0,
  '<=': (order) => order <= 0,
  '>=': (order) => order >= 0,
};

class Parser {
  #pos = 0;
  constructor(
    private readonly tokens: Token[],
    private readonly source: string,
  ) {}

  parse(): string {
    if (this.tokens.length === 0) return '';
    const value = this.#ternary();
    if (this.#pos < this.tokens.length) this.#fail(`unexpected '${this.tokens[this.#pos].text}'`);
    return value;
  }

  #ternary(): string {
    const condition = this.#or();
    if (!this.#accept('?')) return condition;
    const whenTrue = this.#ternary();
    if (!this.#accept('::')) this.#fail("missing '::' in ?: expression");
    const whenFalse = this.#ternary();
    return isTrue(condition) ? whenTrue : whenFalse;
  }

  #or(): string {
    let left = this.#and();
    while (this.#accept('|')) {
      const right = this.#and();
      left = isTrue(left) ? left : right;
    }
    return left;
  }

  #and(): string {
    let left = this.#comparison();
    while (this.#accept('&')) {
      const right = this.#comparison();
      left = isTrue(left) && isTrue(right) ? left : '0';
    }
    return left;
  }

  #comparison(): string {
    let left = this.#additive();
    for (;;) {
      const op = this.#acceptAny(Object.keys(COMPARISONS));
      if (!op) return left;
      const right = this.#additive();
      left = COMPARISONS[op](compareValues(left, right)) ? '1' : '0';
    }
  }

  #additive(): string {
    let left = this.#multiplicative();
    for (;;) {
      const op = this.#acceptAny(['+', '-']);
      if (!op) return left;
      const right = this.#multiplicative();
      const [a, b] = [this.#number(left), this.#number(right)];
      left = formatNumber(op === '+' ? a + b : a - b, left, right);
    }
  }

  #multiplicative(): string {
    let left = this.#match();
    for (;;) {
      const op = this.#acceptAny(['*', '/', '%']);
      if (!op) return left;
      const right = this.#match();
      const [a, b] = [this.#number(left), this.#number(right)];
      if (op !== '*' && b === 0) this.#fail('division by zero');
      const integers = INTEGER.test(left) && INTEGER.test(right);
      const value = op === '*' ? a * b : op === '/' ? (integers ? Math.trunc(a / b) : a / b) : a % b;
      left = formatNumber(value, left, right);
    }
  }

  /** `a : re` (anchored) and `a =~ re` (anywhere), as Asterisk's regex operators. */
  #match(): string {
    let left = this.#unary();
    for (;;) {
      const op = this.#acceptAny([':', '=~']);
      if (!op) return left;
      const pattern = this.#unary();
      let regex: RegExp;
      try {
        regex = new RegExp(op === ':' ? `^(?:${pattern})` : pattern);
      } catch {
        this.#fail(`invalid regular expression '${pattern}'`);
      }
      const found = regex.exec(left);
      if (/\((?!\?)/.test(pattern)) left = found?.[1] ?? '';
      else left = String(found ? found[0].length : 0);
    }
  }

  #unary(): string {
    if (this.#accept('-')) return String(-this.#number(this.#unary()));
    if (this.#accept('!')) return isTrue(this.#unary()) ? '0' : '1';
    return this.#primary();
  }

  #primary(): string {
    const token = this.tokens[this.#pos];
    if (!token) this.#fail('unexpected end');
    if (token.kind === 'op') {
      if (token.text !== '(') this.#fail(`unexpected '${token.text}'`);
      this.#pos++;
      const value = this.#or();
      if (!this.#accept(')')) this.#fail("missing ')'");
      return value;
    }
    this.#pos++;
    return token.text;
  }

  #number(value: string): number {
    if (!NUMBER.test(value)) this.#fail(`'${value}' is not a number`);
    return Number(value);
  }

  #accept(op: string): boolean {
    const token = this.tokens[this.#pos];
    if (token?.kind === 'op' && token.text === op) {
      this.#pos++;
      return true;
    }
    return false;
  }

  #acceptAny(ops: string[]): string | undefined {
    const token = this.tokens[this.#pos];
    if (token?.kind === 'op' && ops.includes(token.text)) {
      this.#pos++;
      return token.text;
    }
    return undefined;
  }

  #fail(reason: string): never {
    throw new ExpressionError(this.source, reason);
  }
}

/** Integers print as integers; a result involving a decimal operand keeps up to 6 decimals. */
function formatNumber(value: number, left: string, right: string): string {
  if (INTEGER.test(left) && INTEGER.test(right)) return String(value);
  if (Number.isInteger(value)) return String(value);
  return value.toFixed(6).replace(/0+$/, '');
}

/** Evaluates an expression; throws ExpressionError on a syntax error, a non-number in arithmetic or division by zero. */
export function evaluateExpression(expression: string): string {
  return new Parser(tokenize(expression), expression).parse();
}
