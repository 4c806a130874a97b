import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { comparePatterns, compilePattern, matchesPattern, PatternSyntaxError } from './pattern.js';

const matches = (pattern: string, exten: string) => matchesPattern(compilePattern(pattern), exten);

/** The winner among all patterns that match `exten`. */
function best(patterns: string[], exten: string): string | undefined {
  return patterns
    .map(compilePattern)
    .filter((p) => matchesPattern(p, exten))
    .sort(comparePatterns)[0]?.text;
}

describe('extension patterns', () => {
  it('matches literals exactly and case-sensitively', () => {
    assert.equal(matches('100', '100'), true);
    assert.equal(matches('100', '1000'), false);
    assert.equal(matches('s', 's'), true);
    assert.equal(matches('Alice', 'alice'), false);
  });

  it('matches character classes', () => {
    const table: [string, string, boolean][] = [
      ['_XXX', '123', true],
      ['_XXX', '12', false],
      ['_XXX', '1234', false],
      ['_XXX', '12a', false],
      ['_ZXX', '023', false],
      ['_ZXX', '923', true],
      ['_NXX', '123', false],
      ['_NXX', '223', true],
      ['_nxx', '223', true],
      ['_[1-5a]X', 'a0', true],
      ['_[1-5a]X', '60', false],
      ['_[15-7]', '6', true],
      ['_[15-7]', '4', false],
      ['_[-x]', '-', true],
      ['_555-XXXX', '5551234', true],
      ['_*X#', '*5#', true],
      ['_9.', '9', false],
      ['_9.', '91', true],
      ['_9.', '9123456', true],
      ['_9!', '9', true],
      ['_9!', '9123', true],
      ['_9!', '8', false],
      ['_X.', 'abc', false],
      ['_X.', '1abc', true],
    ];
    for (const [pattern, exten, expected] of table) assert.equal(matches(pattern, exten), expected, `${pattern} vs ${exten}`);
  });

  it('rejects malformed patterns', () => {
    assert.throws(() => compilePattern('_1[23'), PatternSyntaxError);
    assert.throws(() => compilePattern('_'), PatternSyntaxError);
    assert.throws(() => compilePattern('_[]'), PatternSyntaxError);
    assert.throws(() => compilePattern(''), PatternSyntaxError);
  });

  it('picks the most specific match', () => {
    const table: [string[], string, string][] = [
      [['_X.', '_1XX', '123'], '123', '123'],
      [['_X.', '_1XX', '_12X'], '123', '_12X'],
      [['_X.', '_1XX'], '123', '_1XX'],
      [['_X.', '_XXX'], '123', '_XXX'],
      [['_X!', '_X.'], '123', '_X.'],
      [['_NXX', '_ZXX', '_XXX'], '523', '_NXX'],
      [['_ZXX', '_XXX'], '123', '_ZXX'],
      [['_[1-3]XX', '_ZXX'], '123', '_[1-3]XX'],
      [['_[12]XX', '_[13]XX'], '123', '_[12]XX'],
      [['_1.', '_1X'], '12', '_1X'],
      [['_.', '_X.'], '12', '_X.'],
      [['_9!', '_9'], '9', '_9!'],
    ];
    for (const [patterns, exten, expected] of table) assert.equal(best(patterns, exten), expected, `${patterns.join(' ')} for ${exten}`);
  });

  it('orders a whole context deterministically regardless of input order', () => {
    const patterns = ['_X.', '_1XX', '100', '_1!', '_10X', '_[1-2]XX', '_1.'];
    const sorted = [...patterns]
      .map(compilePattern)
      .sort(comparePatterns)
      .map((p) => p.text);
    const reversed = [...patterns]
      .reverse()
      .map(compilePattern)
      .sort(comparePatterns)
      .map((p) => p.text);
    assert.deepEqual(sorted, reversed);
    assert.deepEqual(sorted, ['100', '_10X', '_1XX', '_1.', '_1!', '_[1-2]XX', '_X.']);
  });
});
