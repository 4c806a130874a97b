import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { toneAmplitude } from '../dsp/goertzel.js';
import { type DtmfStep, DtmfSender } from './dtmf-sender.js';

function run(sender: DtmfSender, max = 100): DtmfStep[] {
  const steps: DtmfStep[] = [];
  for (let i = 0; i < max; i += 1) {
    const step = sender.step();
    steps.push(step.kind === 'tone' ? { kind: 'tone', frame: step.frame.slice() } : step);
    if (step.kind === 'done') break;
  }
  return steps;
}

describe('DtmfSender', () => {
  it('paces RFC 4733 packets one tick each: a new event per digit, a gap of audio between them', () => {
    const steps = run(new DtmfSender('1#', 100, 40, true));
    const kinds = steps.map((s) => s.kind);
    assert.equal(kinds.at(-1), 'done');
    const events = steps.flatMap((s) => (s.kind === 'events' ? s.packets : []));
    assert.deepEqual(
      events.filter((p) => p.newEvent).map((p) => p.event.event),
      [1, 11],
      'one new event per digit',
    );
    assert.equal(events.filter((p) => p.event.end).length, 6, 'three end packets per event');
    assert.ok(events.filter((p) => p.marker).length === 2);
    const firstGap = kinds.indexOf('pause');
    assert.ok(firstGap > 0 && kinds.slice(firstGap, firstGap + 2).every((k) => k === 'pause'), 'a 40 ms gap of normal audio');
  });

  it('plays in-band Q.23 tones when no telephone-event was negotiated', () => {
    const steps = run(new DtmfSender('5', 100, 40, false));
    const tones = steps.filter((s): s is Extract<DtmfStep, { kind: 'tone' }> => s.kind === 'tone');
    assert.equal(tones.length, 5);
    const audio = new Int16Array(tones.length * 160);
    for (const [i, t] of tones.entries()) audio.set(t.frame, i * 160);
    assert.ok(toneAmplitude(audio, 770, 8000) > 3000 && toneAmplitude(audio, 1336, 8000) > 3000);
    assert.ok(toneAmplitude(audio, 697, 8000) < 1000);
  });

  it('ignores characters that are not DTMF keys', () => {
    assert.equal(new DtmfSender('x', 100, 100, true).step().kind, 'done');
    assert.equal(new DtmfSender('x', 100, 100, false).step().kind, 'done');
  });
});
