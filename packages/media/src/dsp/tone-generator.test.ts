import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { toneAmplitude } from './goertzel.js';
import { ToneGenerator, type ToneStep, parseTonePattern } from './tone-generator.js';

function collect(generator: ToneGenerator, frames: number): Int16Array {
  const out = new Int16Array(frames * 160);
  for (let f = 0; f < frames; f += 1) {
    const frame = generator.next();
    if (frame === null) return out.subarray(0, f * 160);
    out.set(frame, f * 160);
  }
  return out;
}

describe('parseTonePattern (indications.conf)', () => {
  it('parses sums, silence, once and forever steps', () => {
    assert.deepEqual(parseTonePattern('!350+440/100,!0/100,350+440'), [
      { frequencies: [350, 440], durationMs: 100, once: true },
      { frequencies: [], durationMs: 100, once: true },
      { frequencies: [350, 440], durationMs: 0 },
    ]);
    assert.deepEqual(parseTonePattern('425/500,0/500'), [
      { frequencies: [425], durationMs: 500 },
      { frequencies: [], durationMs: 500 },
    ]);
    assert.deepEqual(parseTonePattern('480*620/250'), [{ frequencies: [480, 620], modulated: true, durationMs: 250 }]);
    assert.equal(Math.round(parseTonePattern('M69/10')[0].frequencies[0]), 440);
  });

  it('explains what is wrong', () => {
    assert.throws(() => parseTonePattern(''), /is empty/);
    assert.throws(() => parseTonePattern('425/abc'), /'abc' in step '425\/abc' is not a duration/);
    assert.throws(() => parseTonePattern('4x5/100'), /'4x5' is not a frequency/);
    assert.throws(() => parseTonePattern('425,,0'), /step 2 is empty/);
    assert.throws(() => parseTonePattern('1+2*3/5'), /mixes/);
  });
});

describe('ToneGenerator', () => {
  it('produces the pattern’s frequencies (Goertzel) and its cadence at 8 kHz', () => {
    const audio = collect(new ToneGenerator(parseTonePattern('425/500,0/500'), { sampleRate: 8000, repeat: true }), 100);
    assert.ok(toneAmplitude(audio, 425, 8000, 0, 4000) > 7000);
    assert.ok(toneAmplitude(audio, 425, 8000, 4000, 4000) < 10);
    assert.ok(toneAmplitude(audio, 425, 8000, 8000, 4000) > 7000);
    assert.ok(toneAmplitude(audio, 600, 8000, 0, 4000) < 200);
  });

  it('sums two frequencies at 16 kHz with continuous phase across frames', () => {
    const generator = new ToneGenerator([{ frequencies: [350, 440], durationMs: 0 }], { sampleRate: 16000, repeat: false });
    const frames = [generator.next(), generator.next()];
    assert.ok(frames[0] !== null && frames[1] !== null && frames[0].length === 320);
    if (frames[0] === null || frames[1] === null) return;
    const joined = new Int16Array([...frames[0], ...frames[1]]);
    assert.ok(toneAmplitude(joined, 350, 16000) > 7000 && toneAmplitude(joined, 440, 16000) > 7000);
    // No jump at the boundary larger than the steepest slope of the signal.
    const maxStep = (2 * Math.PI * (350 + 440) * 8000) / 16000;
    assert.ok(Math.abs(joined[320] - joined[319]) <= maxStep);
  });

  it('plays once-steps only on the first pass, and ends a non-repeating pattern', () => {
    const steps: ToneStep[] = [
      { frequencies: [1000], durationMs: 40, once: true },
      { frequencies: [500], durationMs: 40 },
    ];
    const looping = collect(new ToneGenerator(steps, { sampleRate: 8000, repeat: true }), 10);
    assert.ok(toneAmplitude(looping, 1000, 8000, 0, 320) > 7000);
    assert.ok(toneAmplitude(looping, 1000, 8000, 640, 640) < 300);
    assert.ok(toneAmplitude(looping, 500, 8000, 640, 640) > 7000);
    const once = new ToneGenerator(steps, { sampleRate: 8000, repeat: false });
    assert.equal(collect(once, 10).length, 640);
    assert.equal(once.done, true);
    const modulated = collect(new ToneGenerator(parseTonePattern('480*20/0'), { sampleRate: 8000, repeat: false }), 25);
    assert.ok(toneAmplitude(modulated, 480, 8000) > 2000);
  });
});
