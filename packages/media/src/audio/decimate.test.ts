import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { rms, sine } from '../test-support/audio-fixtures.js';
import { decimate, designLowPass } from './decimate.js';

describe('designLowPass', () => {
  it('has unity gain at DC and is symmetric (linear phase)', () => {
    const filter = designLowPass(65, 0.225);
    assert.ok(Math.abs(filter.reduce((sum, c) => sum + c, 0) - 1) < 1e-12);
    for (let i = 0; i < filter.length; i += 1) assert.ok(Math.abs(filter[i] - filter[filter.length - 1 - i]) < 1e-15);
  });

  it('refuses an even length or a cut-off outside (0, 0.5)', () => {
    assert.throws(() => designLowPass(64, 0.2), RangeError);
    assert.throws(() => designLowPass(65, 0.5), RangeError);
  });
});

describe('decimate', () => {
  for (const rate of [16000, 48000]) {
    const factor = rate / 8000;

    it(`keeps a 1 kHz tone at ${rate} Hz → 8 kHz`, () => {
      const input = sine(1000, rate, 200);
      const output = decimate(input, rate, factor);
      assert.equal(output.length, Math.ceil(input.length / factor));
      const expected = sine(1000, 8000, 200);
      assert.ok(Math.abs(rms(output, 40) - rms(expected, 40)) / rms(expected, 40) < 0.02, 'pass-band level within 2%');
      for (let i = 40; i < output.length - 40; i += 1) assert.ok(Math.abs(output[i] - expected[i]) < 300, `sample ${i}`);
    });

    it(`removes a tone above 4 kHz at ${rate} Hz instead of folding it into the audio band`, () => {
      const output = decimate(sine(5000, rate, 200), rate, factor);
      assert.ok(rms(output, 40) < 10000 * 0.01, `alias level ${rms(output, 40)}`);
    });
  }

  it('returns a copy for factor 1 and refuses other non-integer factors', () => {
    const input = new Int16Array([1, 2, 3]);
    const output = decimate(input, 8000, 1);
    assert.deepEqual(output, input);
    assert.notEqual(output, input);
    assert.throws(() => decimate(input, 8000, 1.5), RangeError);
  });

  it('clamps instead of wrapping when the filter overshoots a full-scale square wave', () => {
    const input = new Int16Array(1600);
    for (let i = 0; i < input.length; i += 1) input[i] = Math.floor(i / 20) % 2 === 0 ? 32767 : -32768;
    const output = decimate(input, 16000, 2);
    // Ringing after each edge overshoots full scale; wrapped, it would flip sign.
    for (let k = 0; k < output.length; k += 1) {
      const phase = (k * 2) % 40;
      if (phase >= 2 && phase <= 17) assert.ok(output[k] > 0, `sample ${k}: ${output[k]}`);
      if (phase >= 22 && phase <= 37) assert.ok(output[k] < 0, `sample ${k}: ${output[k]}`);
    }
    assert.ok(output.includes(32767), 'the overshoot is clamped to full scale');
  });
});
