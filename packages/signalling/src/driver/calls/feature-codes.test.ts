import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FeatureCodeMatcher } from './feature-codes.js';

describe('FeatureCodeMatcher', () => {
  it('fires a code at once when no longer code starts with it', () => {
    const matcher = new FeatureCodeMatcher([['blindxfer', '#']]);
    assert.deepEqual(matcher.push('1'), { kind: 'none' });
    assert.deepEqual(matcher.push('#'), { kind: 'fired', feature: 'blindxfer' });
  });

  it('waits on a prefix of a longer code, then fires the longer one or the short one on timeout', () => {
    const matcher = new FeatureCodeMatcher([
      ['disconnect', '*'],
      ['automixmon', '*1'],
    ]);
    assert.deepEqual(matcher.push('*'), { kind: 'waiting' });
    assert.deepEqual(matcher.push('1'), { kind: 'fired', feature: 'automixmon' });
    assert.deepEqual(matcher.push('*'), { kind: 'waiting' });
    assert.equal(matcher.timeout(), 'disconnect');
    assert.equal(matcher.timeout(), undefined, 'nothing typed since');
  });

  it('restarts from a digit that breaks a sequence and drops typing that is no code', () => {
    const matcher = new FeatureCodeMatcher([['automixmon', '*1']]);
    assert.deepEqual(matcher.push('*'), { kind: 'waiting' });
    assert.deepEqual(matcher.push('*'), { kind: 'waiting' }, 'the second * starts the code again');
    assert.deepEqual(matcher.push('1'), { kind: 'fired', feature: 'automixmon' });
    assert.deepEqual(matcher.push('*'), { kind: 'waiting' });
    assert.deepEqual(matcher.push('5'), { kind: 'none' });
    assert.equal(matcher.timeout(), undefined);
  });

  it('ignores features without a code', () => {
    const matcher = new FeatureCodeMatcher([['parkcall', '']]);
    assert.equal(matcher.enabled, false);
    assert.deepEqual(matcher.push('#'), { kind: 'none' });
  });
});
