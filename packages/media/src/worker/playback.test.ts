import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Playback, SAMPLES_PER_FRAME, SampleSource } from './playback.js';

function ramp(length: number): Int16Array {
  return Int16Array.from({ length }, (_, i) => i + 1);
}

function drain(playback: Playback, max = 1000): Int16Array[] {
  const frames: Int16Array[] = [];
  for (let i = 0; i < max; i += 1) {
    const frame = playback.nextFrame();
    if (frame === null) break;
    frames.push(frame.slice());
    if (playback.exhausted) break;
  }
  return frames;
}

describe('Playback', () => {
  it('pads a partial last frame with silence and reports exhaustion with the last frame', () => {
    const playback = new Playback('p');
    playback.begin(new SampleSource(ramp(400))); // two full frames and 80 samples
    const frames = drain(playback);
    assert.equal(frames.length, 3);
    assert.deepEqual(frames[0], ramp(160));
    assert.equal(frames[1][0], 161);
    assert.equal(frames[2].length, SAMPLES_PER_FRAME);
    assert.deepEqual(frames[2].subarray(0, 80), ramp(400).subarray(320));
    assert.ok(frames[2].subarray(80).every((sample) => sample === 0));
    assert.ok(playback.exhausted);
    assert.equal(playback.nextFrame(), null);
  });

  it('skips an offset on the first pass and loops from the start', () => {
    const playback = new Playback('p');
    playback.begin(new SampleSource(ramp(320), { loop: true, start: 160 }));
    assert.equal(playback.nextFrame()?.[0], 161);
    assert.equal(playback.nextFrame()?.[0], 1, 'the loop starts again from the beginning');
    assert.equal(playback.nextFrame()?.[0], 161);
    assert.equal(playback.exhausted, false);
  });

  it('hands out nothing while loading, and follows its state table', () => {
    const playback = new Playback('p');
    assert.equal(playback.state, 'loading');
    assert.equal(playback.nextFrame(), null);
    playback.begin(new SampleSource(new Int16Array(160)));
    assert.equal(playback.state, 'playing');
    playback.finish();
    assert.equal(playback.state, 'finished');
    assert.equal(playback.nextFrame(), null);
    assert.throws(() => playback.finish(), /illegal transition/);
    assert.throws(() => playback.begin(new SampleSource(new Int16Array(160))), /illegal transition/);
  });

  it('can finish straight from loading (stopped or failed before the file was read)', () => {
    const playback = new Playback('p');
    playback.finish();
    assert.equal(playback.state, 'finished');
  });
});
