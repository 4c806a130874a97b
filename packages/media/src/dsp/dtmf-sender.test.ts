import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { END_PACKETS, eventForDigit, planTelephoneEvents } from './dtmf-sender.js';

describe('planTelephoneEvents (RFC 4733 §2.5.1)', () => {
  it('starts with the marker, grows the duration every 20 ms, ends with three E packets', () => {
    const packets = planTelephoneEvents('5', { durationMs: 100 });
    assert.deepEqual(
      packets.map((p) => [p.offsetMs, p.marker, p.event.end, p.event.duration]),
      [
        [0, true, false, 160],
        [20, false, false, 320],
        [40, false, false, 480],
        [60, false, false, 640],
        [80, false, true, 800],
        [100, false, true, 800],
        [120, false, true, 800],
      ],
    );
    assert.ok(packets.every((p) => p.event.event === 5 && p.event.volume === 10 && p.digitIndex === 0));
  });

  it('separates digits by the gap after the last end packet, each a new event', () => {
    const packets = planTelephoneEvents('1#', { durationMs: 60, gapMs: 40 });
    const second = packets.filter((p) => p.digitIndex === 1);
    assert.equal(second[0].marker, true);
    assert.equal(second[0].event.event, 11);
    assert.equal(second[0].offsetMs, (3 - 1 + END_PACKETS) * 20 + 40);
    assert.equal(packets.filter((p) => p.marker).length, 2);
  });

  it('scales to the clock rate and refuses non-digits', () => {
    assert.equal(planTelephoneEvents('A', { clockRate: 48000, durationMs: 40 })[0].event.duration, 960);
    assert.equal(eventForDigit('d'), 15);
    assert.throws(() => planTelephoneEvents('1x'), /'x' is not a DTMF digit/);
  });
});
