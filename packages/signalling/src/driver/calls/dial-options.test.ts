import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseDialOptions } from './dial-options.js';

describe('parseDialOptions', () => {
  it('reads the option letters and their arguments as the original writes them', () => {
    const options = parseDialOptions('grm(jazz)L(60000:10000:5000)D(12#:34)A(hello-world)U(sub^a^b)b(pre^s^1(x^y))S(30)tkj');
    assert.equal(options.continueAfterCallee, true);
    assert.equal(options.ringing, true);
    assert.equal(options.music, 'jazz');
    assert.equal(options.limitMs, 30_000, 'S(30) is shorter than L(60000)');
    assert.equal(options.warningMs, 10_000);
    assert.equal(options.repeatWarningMs, 5000);
    assert.deepEqual(options.sendDigits, { called: '12#', calling: '34' });
    assert.equal(options.announcement, 'hello-world');
    assert.equal(options.calleeGosub, 'sub,s,1(a,b)');
    assert.equal(options.predialGosub, 'pre,s,1(x,y)');
    assert.deepEqual(options.unsupported, ['j']);
    assert.deepEqual([...options.features.callee].sort(), ['atxfer', 'blindxfer', 'parkcall']);
    assert.equal(options.features.caller.size, 0);
  });

  it('enables features for the callee with lower-case letters and for the caller with upper-case ones', () => {
    const options = parseDialOptions('hHWx');
    assert.deepEqual([...options.features.callee].sort(), ['automixmon', 'disconnect']);
    assert.deepEqual([...options.features.caller].sort(), ['automixmon', 'disconnect']);
    assert.deepEqual(options.unsupported, []);
  });

  it('gives m the default class and ignores empty arguments', () => {
    const options = parseDialOptions('mS()');
    assert.equal(options.music, 'default');
    assert.equal(options.limitMs, undefined);
  });
});
