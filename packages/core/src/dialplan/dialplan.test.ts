// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are dialplan text, where ${...} is the syntax under test
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseIni } from '../config/ini.js';
import { recordingLogger } from '../config/test-support.js';
import { Dialplan } from './dialplan.js';
import { parseDialplan } from './parse-extensions.js';

function dialplan(text: string, maxIncludeDepth?: number): Dialplan {
  return new Dialplan(parseDialplan(parseIni(text, '/conf/extensions.conf'), recordingLogger()), { maxIncludeDepth });
}

const PLAN = [
  '[globals]',
  'G = 1',
  '[from-internal]',
  'include => features',
  'include => outbound',
  'exten => 100,1,Answer()',
  ' same => n(play),Playback(hello-world)',
  ' same => n,Hangup()',
  'exten => _1XX,1,NoOp(pattern)',
  ' same => 2,NoOp(two)',
  ' same => 3,NoOp(three)',
  'exten => _X.,1,NoOp(catch-all)',
  ' same => 7,NoOp(seven)',
  '[features]',
  'exten => *97,1,VoiceMailMain()',
  'exten => _1XX,1,NoOp(never: own context first)',
  '[outbound]',
  'include => from-internal',
  'exten => _9.,1,Dial(SIP/trunk/${EXTEN:1})',
].join('\n');

describe('Dialplan', () => {
  const plan = dialplan(PLAN);

  it('knows its contexts and globals', () => {
    assert.equal(plan.hasContext('from-internal'), true);
    assert.equal(plan.hasContext('From-Internal'), false);
    assert.equal(plan.hasContext('nowhere'), false);
    assert.deepEqual(plan.contextNames(), ['from-internal', 'features', 'outbound']);
    assert.deepEqual(plan.globals, { G: '1' });
  });

  it('finds the most specific extension of the context itself first', () => {
    assert.equal(plan.findExtension('from-internal', '100')?.extension.pattern, '100');
    assert.equal(plan.findExtension('from-internal', '123')?.extension.pattern, '_1XX');
    assert.equal(plan.findExtension('from-internal', '555')?.extension.pattern, '_X.');
    assert.equal(plan.findExtension('from-internal', 'abc'), undefined);
    assert.equal(plan.findExtension('nowhere', '100'), undefined);
  });

  it('follows includes in order and reports where it found the extension', () => {
    const viaFeatures = plan.findExtension('from-internal', '*97');
    assert.equal(viaFeatures?.context, 'features');
    // `_X.` of from-internal would match 9123 too: the context's own extensions come first.
    assert.equal(plan.findExtension('from-internal', '9123')?.context, 'from-internal');
    assert.equal(plan.findExtension('outbound', '9123')?.extension.pattern, '_9.');
    // outbound includes from-internal, which includes outbound again: the cycle is harmless.
    assert.equal(plan.findExtension('outbound', '100')?.context, 'from-internal');
    assert.equal(plan.findExtension('outbound', '*97')?.context, 'features');
  });

  it('finds priorities, labels and the next priority', () => {
    const first = plan.findPriority('from-internal', '100', 1);
    assert.deepEqual([first?.priority.app, first?.priority.priority, first?.context], ['Answer', 1, 'from-internal']);
    assert.equal(plan.findLabel('from-internal', '100', 'play')?.priority.priority, 2);
    assert.equal(plan.findLabel('from-internal', '100', 'nope'), undefined);
    assert.equal(plan.findNextPriority('from-internal', '100', 2)?.priority.app, 'Hangup');
    assert.equal(plan.findNextPriority('from-internal', '100', 3), undefined);
  });

  it('falls back to a less specific extension that has the priority', () => {
    assert.equal(plan.findPriority('from-internal', '123', 3)?.priority.appData, 'three');
    assert.equal(plan.findPriority('from-internal', '123', 7)?.priority.appData, 'seven');
    // No skipping across a gap: after 3 comes 4, which no extension has.
    assert.equal(plan.findNextPriority('from-internal', '123', 3), undefined);
  });

  it('limits include depth', () => {
    const chain = ['[c0]', 'include => c1', '[c1]', 'include => c2', '[c2]', 'include => c3', '[c3]', 'exten => 1,1,NoOp()'].join('\n');
    assert.equal(dialplan(chain).findExtension('c0', '1')?.context, 'c3');
    assert.equal(dialplan(chain, 2).findExtension('c0', '1'), undefined);
  });

  it('survives a context that includes itself', () => {
    const selfish = dialplan('[a]\ninclude => a\nexten => 1,1,NoOp()\n');
    assert.equal(selfish.findExtension('a', '1')?.context, 'a');
    assert.equal(selfish.findExtension('a', '2'), undefined);
  });
});
