import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DtmfSender } from './dtmf-sender.js';

describe('DtmfSender', () => {
  it('sends each digit as one RFC 4733 event with growing duration, a start and an end, then a gap', () => {
    const sender = new DtmfSender('1#', 100, 40, true);
    const steps = Array.from({ length: 14 }, () => sender.step());
    const events = steps.filter((s) => s.kind === 'event');
    assert.equal(events.length, 10);
    assert.deepEqual(steps[0], { kind: 'event', code: 1, start: true, end: false, durationSamples: 160 });
    assert.deepEqual(steps[4], { kind: 'event', code: 1, start: false, end: true, durationSamples: 800 });
    assert.deepEqual(steps[5], { kind: 'pause' });
    assert.deepEqual(steps[7], { kind: 'event', code: 11, start: true, end: false, durationSamples: 160 });
    assert.equal(steps[12].kind, 'done');
  });

  it('plays in-band tones when no telephone-event was negotiated', () => {
    const sender = new DtmfSender('5', 40, 40, false);
    const first = sender.step();
    assert.equal(first.kind, 'tone');
    assert.ok(first.kind === 'tone' && first.frame.some((sample) => Math.abs(sample) > 1000));
    assert.equal(sender.step().kind, 'tone');
    assert.equal(sender.step().kind, 'done');
  });

  it('ignores characters that are not DTMF keys', () => {
    assert.equal(new DtmfSender('x', 100, 100, true).step().kind, 'done');
  });
});
