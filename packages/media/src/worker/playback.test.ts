import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Playback, SAMPLES_PER_FRAME } from './playback.js';

function ramp(length: number): Int16Array {
  return Int16Array.from({ length }, (_, i) => i + 1);
}

describe('Playback', () => {
  it('pads a partial last frame with silence', () => {
    const playback = new Playback('p');
    playback.begin(ramp(400), 0); // two full frames and 80 samples
    assert.equal(playback.totalFrames, 3);
    assert.equal(playback.due(40), 3);
    assert.deepEqual(playback.frame(0), ramp(160));
    assert.equal(playback.frame(1)[0], 161);
    const last = playback.frame(2);
    assert.equal(last.length, SAMPLES_PER_FRAME);
    assert.deepEqual(last.subarray(0, 80), ramp(400).subarray(320));
    assert.ok(last.subarray(80).every((sample) => sample === 0));
    assert.ok(playback.exhausted);
  });

  it('pads again correctly when the padded frame is reused', () => {
    const playback = new Playback('p');
    playback.begin(new Int16Array(170).fill(9), 0);
    playback.frame(1).fill(123); // a caller scribbling on the scratch frame must not leak into the next call
    const again = playback.frame(1);
    assert.deepEqual([...again.subarray(0, 10)], new Array(10).fill(9));
    assert.ok(again.subarray(10).every((sample) => sample === 0));
  });

  it('schedules frames from the time the audio was loaded', () => {
    const playback = new Playback('p');
    playback.begin(new Int16Array(160 * 10), 500);
    assert.equal(playback.due(499), 0);
    assert.equal(playback.due(500), 1);
    assert.equal(playback.due(561), 3);
    assert.equal(playback.nextFrameIndex, 4);
    assert.equal(playback.dueAt(3), 560);
  });

  it('follows its state table: loading → playing → finished, and no further', () => {
    const playback = new Playback('p');
    assert.equal(playback.state, 'loading');
    assert.equal(playback.due(1000), 0, 'nothing is due while loading');
    playback.begin(new Int16Array(160), 0);
    assert.equal(playback.state, 'playing');
    playback.finish();
    assert.equal(playback.state, 'finished');
    assert.equal(playback.due(1000), 0);
    assert.throws(() => playback.finish(), /illegal transition/);
    assert.throws(() => playback.begin(new Int16Array(160), 0), /illegal transition/);
  });

  it('can finish straight from loading (stopped or failed before the file was read)', () => {
    const playback = new Playback('p');
    playback.finish();
    assert.equal(playback.state, 'finished');
  });
});
