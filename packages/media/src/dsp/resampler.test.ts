import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { sine } from '../test-support/audio-fixtures.js';
import { toneAmplitude } from './goertzel.js';
import { type ResampleRate, Resampler } from './resampler.js';

function inFrames(resampler: Resampler, input: Int16Array, frameSamples: number): Int16Array {
  const parts: Int16Array[] = [];
  for (let offset = 0; offset < input.length; offset += frameSamples)
    parts.push(resampler.process(input.subarray(offset, offset + frameSamples)));
  const out = new Int16Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

const db = (ratio: number): number => 20 * Math.log10(ratio);

describe('Resampler', () => {
  it('gives exactly one output frame per 20 ms input frame for every rate pair', () => {
    const rates: ResampleRate[] = [8000, 16000, 48000];
    for (const from of rates) {
      for (const to of rates) {
        const resampler = new Resampler(from, to);
        for (let frame = 0; frame < 5; frame += 1)
          assert.equal(resampler.process(new Int16Array(from / 50)).length, to / 50, `${from}→${to}`);
      }
    }
  });

  it('keeps a 1 kHz tone through 8k→48k→8k at its frequency and level (±1 dB)', () => {
    const input = sine(1000, 8000, 1000, 10000);
    const up = inFrames(new Resampler(8000, 48000), input, 160);
    const back = inFrames(new Resampler(48000, 8000), up, 960);
    const level = toneAmplitude(back, 1000, 8000, 2000, 4000);
    assert.ok(Math.abs(db(level / 10000)) < 1, `level ${level}`);
    assert.ok(level > 100 * toneAmplitude(back, 2000, 8000, 2000, 4000));
    assert.ok(Math.abs(db(toneAmplitude(up, 1000, 48000, 12000, 24000) / 10000)) < 1);
  });

  it('attenuates a 6 kHz tone by more than 40 dB going 48k→8k (no aliasing to 2 kHz)', () => {
    const output = inFrames(new Resampler(48000, 8000), sine(6000, 48000, 1000, 10000), 960);
    const alias = toneAmplitude(output, 2000, 8000, 2000, 4000);
    assert.ok(db(alias / 10000) < -40, `alias at ${db(alias / 10000).toFixed(1)} dB`);
  });

  it('is continuous across frame boundaries (same output as one long call)', () => {
    const input = sine(440, 16000, 200, 12000);
    const whole = new Resampler(16000, 8000).process(input);
    const framed = inFrames(new Resampler(16000, 8000), input, 320);
    assert.deepEqual(framed, whole);
  });
});
