/**
 * `$[...]` expressions, evaluated after the `${...}` inside them have been expanded.
 *
 * Operators, lowest precedence first (as in Asterisk's expression parser):
 *   a | b      a if a is neither empty nor 0, else b
 *   a & b      a if both are neither empty nor 0, else 0
 *   = == != < > <= >=   1 or 0; numeric when both sides are integers, else string comparison
 *   + -        integer arithmetic
 *   * / %      integer arithmetic (division truncates toward zero)
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

const OPERATORS = ['<=', '>=', '!=', '==', '=', '<', '>', '+', '-', '*', '/', '%', '&', '|', '!', '(', ')'];
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

function isTrue(value: string): boolean {
  return value !== '' && !(INTEGER.test(value) && Number(value) === 0);
}

/** Numeric order when both are integers, else string order; -1, 0 or 1. */
function compareValues(left: string, right: string): number {
  if (INTEGER.test(left) && INTEGER.test(right)) return Math.sign(Number(left) - Number(right));
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
    const value = this.#or();
    if (this.#pos < this.tokens.length) this.#fail(`unexpected '${this.tokens[this.#pos].text}'`);
    return value;
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
      left = String(op === '+' ? a + b : a - b);
    }
  }

  #multiplicative(): string {
    let left = this.#unary();
    for (;;) {
      const op = this.#acceptAny(['*', '/', '%']);
      if (!op) return left;
      const right = this.#unary();
      const [a, b] = [this.#number(left), this.#number(right)];
      if (op !== '*' && b === 0) this.#fail('division by zero');
      left = String(op === '*' ? a * b : op === '/' ? Math.trunc(a / b) : a % b);
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
    if (!INTEGER.test(value)) this.#fail(`'${value}' is not a number`);
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

/** Evaluates an expression; throws ExpressionError on a syntax error, a non-number in arithmetic or division by zero. */
export function evaluateExpression(expression: string): string {
  return new Parser(tokenize(expression), expression).parse();
}
