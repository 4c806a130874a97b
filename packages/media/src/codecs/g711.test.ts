import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  ALAW_SILENCE,
  ULAW_SILENCE,
  alawToLinear,
  decodeAlaw,
  decodeUlaw,
  encodeAlaw,
  encodeUlaw,
  linearToAlaw,
  linearToUlaw,
  ulawToLinear,
} from './g711.js';

describe('G.711 µ-law', () => {
  it('decodes every code and re-encodes it to itself (0x7F, "negative zero", becomes 0xFF)', () => {
    for (let code = 0; code < 256; code += 1) {
      const expected = code === 0x7f ? 0xff : code; // both zero codes decode to 0, which encodes to 0xFF
      assert.equal(linearToUlaw(ulawToLinear(code)), expected, `code 0x${code.toString(16)}`);
    }
  });

  it('keeps the quantisation error within half a step for every 16-bit sample', () => {
    for (let sample = -32768; sample <= 32767; sample += 1) {
      const error = Math.abs(ulawToLinear(linearToUlaw(sample)) - sample);
      const magnitude = Math.abs(sample);
      if (magnitude <= 32635) {
        // Segment steps are 2^(e+3) and the biased magnitude is at least 2^(e+7): half a step ≤ (|x|+132)/32.
        assert.ok(error <= (magnitude + 0x84) / 32, `sample ${sample}: error ${error}`);
      } else {
        assert.ok(error <= magnitude - 32124, `clipped sample ${sample}: error ${error}`);
      }
    }
  });

  it('matches known values of the G.711 tables', () => {
    assert.equal(linearToUlaw(0), ULAW_SILENCE);
    assert.equal(ulawToLinear(0x00), -32124);
    assert.equal(ulawToLinear(0x80), 32124);
    assert.equal(ulawToLinear(0xff), 0);
    assert.equal(linearToUlaw(32767), 0x80);
    assert.equal(linearToUlaw(-32768), 0x00);
  });

  it('is monotonic: a larger sample never encodes to a smaller decoded value', () => {
    let previous = -Infinity;
    for (let sample = -32768; sample <= 32767; sample += 1) {
      const decoded = ulawToLinear(linearToUlaw(sample));
      assert.ok(decoded >= previous, `sample ${sample}`);
      previous = decoded;
    }
  });
});

describe('G.711 A-law', () => {
  it('decodes every code and re-encodes it to itself', () => {
    for (let code = 0; code < 256; code += 1) {
      assert.equal(linearToAlaw(alawToLinear(code)), code, `code 0x${code.toString(16)}`);
    }
  });

  it('keeps the quantisation error within half a step for every 16-bit sample', () => {
    for (let sample = -32768; sample <= 32767; sample += 1) {
      const error = Math.abs(alawToLinear(linearToAlaw(sample)) - sample);
      // Segments 0 and 1 step by 16 (half: 8); segment s ≥ 1 starts at 2^(s+8) with step 2^(s+4), so
      // half a step ≤ |x|/16 + 8 everywhere (the +8 also covers the one's-complement offset of negatives).
      assert.ok(error <= Math.abs(sample) / 16 + 8, `sample ${sample}: error ${error}`);
    }
  });

  it('matches known values of the G.711 tables', () => {
    assert.equal(linearToAlaw(0), ALAW_SILENCE);
    assert.equal(alawToLinear(0xd5), 8);
    assert.equal(alawToLinear(0x55), -8);
    assert.equal(alawToLinear(0xaa), 32256);
    assert.equal(alawToLinear(0x2a), -32256);
    assert.equal(linearToAlaw(32767), 0xaa);
    assert.equal(linearToAlaw(-32768), 0x2a);
  });
});

describe('G.711 frame helpers', () => {
  it('encode and decode whole frames in place at an offset', () => {
    const samples = new Int16Array(160);
    for (let i = 0; i < samples.length; i += 1) samples[i] = Math.round(8000 * Math.sin((2 * Math.PI * 400 * i) / 8000));
    for (const [encode, decode] of [
      [encodeUlaw, decodeUlaw],
      [encodeAlaw, decodeAlaw],
    ] as const) {
      const packet = new Uint8Array(12 + 160).fill(0xee);
      encode(samples, packet, 12);
      assert.deepEqual([...packet.subarray(0, 12)], new Array(12).fill(0xee), 'bytes before the offset are untouched');
      const decoded = new Int16Array(160);
      decode(packet.subarray(12), decoded);
      for (let i = 0; i < 160; i += 1) assert.ok(Math.abs(decoded[i] - samples[i]) <= Math.abs(samples[i]) / 16 + 8);
    }
  });

  it('refuses an output that is too small rather than writing past it', () => {
    assert.throws(() => encodeUlaw(new Int16Array(160), new Uint8Array(100)), RangeError);
    assert.throws(() => decodeAlaw(new Uint8Array(160), new Int16Array(160), 1), RangeError);
  });
});
