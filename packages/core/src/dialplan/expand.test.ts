// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are dialplan text, where ${...} is the syntax under test
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type ExpandLookup, expand, splitArgs } from './expand.js';
import { evaluateExpression, ExpressionError } from './expression.js';

const VARS: Record<string, string> = {
  EXTEN: '5551234',
  NAME: 'EXTEN',
  WHO: 'world',
  EMPTY: '',
  N: '7',
  TEMPLATE: '${WHO}',
};

const lookup: ExpandLookup = (name, args) => {
  if (args === undefined) return VARS[name];
  if (name === 'CALLERID' && args === 'num') return '1001';
  if (name === 'CALLERID' && args === 'name') return 'Alice';
  return undefined;
};

function run(text: string): { value: string; warnings: string[] } {
  const warnings: string[] = [];
  const value = expand(text, lookup, { warn: (m) => warnings.push(m) });
  return { value, warnings };
}

const x = (text: string) => run(text).value;

describe('expand', () => {
  it('expands variables and leaves other text alone', () => {
    assert.equal(x('hello ${WHO}!'), 'hello world!');
    assert.equal(x('${UNKNOWN}|${EMPTY}|'), '||');
    assert.equal(x('cost: $5, {braces}, [brackets]'), 'cost: $5, {braces}, [brackets]');
    assert.equal(x(''), '');
  });

  it('does not expand values again', () => {
    assert.equal(x('${TEMPLATE}'), '${WHO}');
  });

  it('expands nested references', () => {
    assert.equal(x('${${NAME}}'), '5551234');
    assert.equal(x('${EXTEN:${N}}'), '');
    assert.equal(x('${EXTEN:$[${N}-4]}'), '1234');
  });

  it('takes substrings', () => {
    const table: [string, string][] = [
      ['${EXTEN:1}', '551234'],
      ['${EXTEN:0:3}', '555'],
      ['${EXTEN:-4}', '1234'],
      ['${EXTEN:-4:2}', '12'],
      ['${EXTEN:1:-2}', '5512'],
      ['${EXTEN::3}', '555'],
      ['${EXTEN:20}', ''],
      ['${EXTEN:-20:3}', '555'],
      ['${EXTEN:3:0}', ''],
      ['${EXTEN:5:-4}', ''],
    ];
    for (const [text, expected] of table) assert.equal(x(text), expected, text);
  });

  it('calls functions through the lookup, then the built-ins', () => {
    assert.equal(x('${CALLERID(num)}'), '1001');
    assert.equal(x('"${CALLERID(name)}" <${CALLERID(num)}>'), '"Alice" <1001>');
    assert.equal(x('${CALLERID(num):0:2}'), '10');
    assert.equal(x('${LEN(${EXTEN})}'), '7');
    assert.equal(x('${LEN()}'), '0');
    assert.equal(x('${TOUPPER(${WHO})}'), 'WORLD');
    assert.equal(x('${IF($[${N} > 5]?big:small)}'), 'big');
    assert.equal(x('${IF($[${N} > 9]?big:small)}'), 'small');
    assert.equal(x('${ISNULL(${EMPTY})}${EXISTS(${WHO})}'), '11');
  });

  it('serves a lookup that keys whole function calls', () => {
    const whole: ExpandLookup = (name) => (name === 'CALLERID(num)' ? '2002' : undefined);
    assert.equal(expand('${CALLERID(num)}', whole), '2002');
  });

  it('warns about unknown functions and unbalanced brackets without throwing', () => {
    const unknown = run('a${NOPE(x)}b');
    assert.equal(unknown.value, 'ab');
    assert.match(unknown.warnings[0], /unknown function NOPE/);
    const open = run('x${WHO');
    assert.equal(open.value, 'x${WHO');
    assert.match(open.warnings[0], /missing '}'/);
    const bad = run('$[1 +]');
    assert.equal(bad.value, '');
    assert.match(bad.warnings[0], /cannot evaluate/);
  });

  it('evaluates $[...] with variables inside', () => {
    assert.equal(x('$[${N} * 6]'), '42');
    assert.equal(x('$[${N}+1]'), '8');
    assert.equal(x('$["${WHO}" = "world"]'), '1');
    assert.equal(x('$[${WHO} != world]'), '0');
    assert.equal(x('$[$[1+2]*$[3+4]]'), '21');
    assert.equal(x('n=$[${N}%4]'), 'n=3');
  });
});

describe('evaluateExpression', () => {
  it('follows the operator precedence', () => {
    const table: [string, string][] = [
      ['1 + 2 * 3', '7'],
      ['(1 + 2) * 3', '9'],
      ['7 / 2', '3'],
      ['-7 / 2', '-3'],
      ['-7 % 3', '-1'],
      ['10 - 2 - 3', '5'],
      ['2 < 10', '1'],
      ['"2" < "10"', '1'],
      ['abc < abd', '1'],
      ['b > abc', '1'],
      ['3 <= 3', '1'],
      ['3 >= 4', '0'],
      ['1 = 1 & 2 = 2', '1'],
      ['1 = 2 | 3 = 3', '1'],
      ['0 | fallback', 'fallback'],
      ['first | second', 'first'],
      ['x & 0', '0'],
      ['!0', '1'],
      ['!abc', '0'],
      ['- -3', '3'],
      ['1 + 2 = 3', '1'],
      ['1 == 1', '1'],
      ['"a b" = "a b"', '1'],
      ['', ''],
      ['word', 'word'],
    ];
    for (const [expression, expected] of table) assert.equal(evaluateExpression(expression), expected, expression);
  });

  it('rejects what it cannot evaluate', () => {
    for (const bad of ['1 / 0', '5 % 0', 'a + 1', '(1 + 2', '1 2', '"open', '* 3']) {
      assert.throws(() => evaluateExpression(bad), ExpressionError, bad);
    }
  });
});

describe('splitArgs', () => {
  it('splits on commas outside quotes, parentheses and escapes', () => {
    const table: [string, string[]][] = [
      ['', []],
      ['demo', ['demo']],
      ['demo,a\\,b,"c,d"', ['demo', 'a,b', 'c,d']],
      ['SIP/a,30,tT', ['SIP/a', '30', 'tT']],
      [',x', ['', 'x']],
      ['x,', ['x', '']],
      ['a,b(c,d),e', ['a', 'b(c,d)', 'e']],
      ['a,$[1,2],b', ['a', '$[1,2]', 'b']],
      ['"say \\"hi\\", ok",2', ['say "hi", ok', '2']],
      ['a\\\\,b', ['a\\', 'b']],
      [' spaced , kept ', [' spaced ', ' kept ']],
    ];
    for (const [text, expected] of table) assert.deepEqual(splitArgs(text), expected, text);
  });
});
