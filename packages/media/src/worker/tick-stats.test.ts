import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { LATE_THRESHOLD_MS, TickStats } from './tick-stats.js';

describe('TickStats', () => {
  it('percentiles of frame work time; overruns are long or late frames; reset starts a new window', () => {
    const stats = new TickStats(0);
    for (let i = 0; i < 98; i += 1) stats.record(1 + (i % 2), 1);
    stats.record(25, 0); // longer than the 20 ms budget
    stats.record(2, LATE_THRESHOLD_MS + 5); // started late
    stats.skip(3);
    const snap = stats.snapshot(4, 2000);
    assert.equal(snap.workerIndex, 4);
    assert.equal(snap.windowMs, 2000);
    assert.equal(snap.ticks, 100);
    assert.equal(snap.tickMsP50, 2);
    assert.equal(snap.tickMsP99, 25);
    assert.equal(snap.tickMsMax, 25);
    assert.deepEqual([snap.overruns, snap.longTicks, snap.lateTicks, snap.skippedFrames], [2, 1, 1, 3]);
    stats.reset(2000);
    const fresh = stats.snapshot(4, 2500);
    assert.deepEqual([fresh.ticks, fresh.overruns, fresh.tickMsMax, fresh.windowMs], [0, 0, 0, 500]);
  });

  it('keeps the newest frames when the window outgrows its capacity', () => {
    const stats = new TickStats(0, 10);
    for (let i = 0; i < 10; i += 1) stats.record(9, 0);
    for (let i = 0; i < 10; i += 1) stats.record(1, 0);
    const snap = stats.snapshot(0, 1);
    assert.equal(snap.ticks, 20);
    assert.equal(snap.tickMsP99, 1);
    assert.equal(snap.tickMsMax, 9, 'the maximum covers the whole window');
  });
});
