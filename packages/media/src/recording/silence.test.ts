import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { SilenceTracker, meanAbsolute } from './silence.js';

const loud = new Int16Array(160).fill(3000);
const quiet = new Int16Array(160).fill(20);

describe('SilenceTracker', () => {
  it('accounts talking and silence per 20 ms frame, and the current silence run', () => {
    const tracker = new SilenceTracker();
    for (let i = 0; i < 5; i += 1) tracker.feed(loud);
    for (let i = 0; i < 3; i += 1) tracker.feed(quiet);
    assert.equal(tracker.talkingMs, 100);
    assert.equal(tracker.silenceMs, 60);
    assert.equal(tracker.currentSilenceMs, 60);
    tracker.feed(loud);
    assert.equal(tracker.currentSilenceMs, 0, 'talking ends the silence run');
    assert.equal(tracker.talkingMs, 120);
    assert.equal(tracker.silenceMs, 60, 'totals keep the earlier silence');
  });

  it('uses the mean absolute amplitude', () => {
    assert.equal(meanAbsolute(Int16Array.from([-10, 10, -30, 30])), 20);
    assert.equal(meanAbsolute(new Int16Array(0)), 0);
  });
});
