import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { rms, toneAmplitude } from '../dsp/goertzel.js';
import { sine } from '../test-support/audio-fixtures.js';
import { G722Decoder, G722Encoder } from './g722.js';
import { createCodec } from './index.js';

function roundTrip(input: Int16Array): Int16Array {
  const codec = createCodec('G722');
  const out = new Int16Array(input.length);
  for (let offset = 0; offset + codec.frameSamples <= input.length; offset += codec.frameSamples) {
    const payload = codec.encode(input.subarray(offset, offset + codec.frameSamples));
    assert.equal(payload.length, 160);
    out.set(codec.decode(payload), offset);
  }
  return out;
}

/** SNR in dB of `output` against `input` delayed by `delay` samples, over the settled part. */
function snr(input: Int16Array, output: Int16Array, delay: number): number {
  let signal = 0;
  let noise = 0;
  for (let i = 1600; i < input.length - delay; i += 1) {
    signal += input[i] * input[i];
    const error = output[i + delay] - input[i];
    noise += error * error;
  }
  return 10 * Math.log10(signal / Math.max(noise, 1));
}

describe('G.722', () => {
  it('describes itself per RFC 3551 §4.5.2 (8000 Hz clock, 16 kHz audio, 320-sample frames)', () => {
    const codec = createCodec('G722');
    assert.deepEqual([codec.clockRate, codec.sampleRate, codec.frameSamples], [8000, 16000, 320]);
  });

  it('keeps a 1 kHz sine: frequency dominant and SNR above 20 dB once the codec delay is aligned', () => {
    const input = sine(1000, 16000, 1000, 8000);
    const output = roundTrip(input);
    let best = Number.NEGATIVE_INFINITY;
    for (let delay = 0; delay < 64; delay += 1) best = Math.max(best, snr(input, output, delay));
    assert.ok(best > 20, `SNR ${best.toFixed(1)} dB`);
    const at1k = toneAmplitude(output, 1000, 16000, 3200, 6400);
    for (const other of [300, 2000, 3000, 5000, 7000]) {
      assert.ok(at1k > 20 * toneAmplitude(output, other, 16000, 3200, 6400), `1 kHz vs ${other} Hz`);
    }
    assert.ok(Math.abs(20 * Math.log10(at1k / 8000)) < 1, `level ${at1k}`);
  });

  it('keeps a 6 kHz tone (the upper sub-band) at its frequency', () => {
    const output = roundTrip(sine(6000, 16000, 500, 6000));
    const at6k = toneAmplitude(output, 6000, 16000, 1600, 3200);
    assert.ok(at6k > 3000, `6 kHz amplitude ${at6k}`);
    assert.ok(at6k > 10 * toneAmplitude(output, 2000, 16000, 1600, 3200));
  });

  it('keeps silence near silence', () => {
    const output = roundTrip(new Int16Array(16000));
    assert.ok(rms(output) < 20, `rms ${rms(output)}`);
  });

  it('decodes random octets without throwing, and conceals a lost frame', () => {
    const codec = createCodec('G722');
    let seed = 12345;
    for (let frame = 0; frame < 200; frame += 1) {
      const payload = new Uint8Array(160);
      for (let i = 0; i < payload.length; i += 1) {
        seed = (seed * 1103515245 + 12345) >>> 0;
        payload[i] = seed >>> 24;
      }
      assert.equal(codec.decode(payload).length, 320);
    }
    assert.equal(codec.conceal().length, 320);
  });

  it('is bit-exact with an independent implementation (FFmpeg 5.1 libavcodec g722) both ways', () => {
    // The fixture: one second of a 440 Hz tone, a modulated 5.2 kHz tone and noise. The hashes are
    // of FFmpeg's encoding of it and of FFmpeg's decoding of that (s16le), recorded once with
    // `ffmpeg -f s16le -ar 16000 -i in.raw -c:a g722 -f g722 out.g722` and the reverse.
    const pcm = new Int16Array(16000);
    let seed = 1;
    for (let i = 0; i < pcm.length; i += 1) {
      seed = (seed * 1103515245 + 12345) >>> 0;
      const noise = (seed / 4294967296) * 2 - 1;
      const tone = 7000 * Math.sin((2 * Math.PI * 440 * i) / 16000);
      const high = 5000 * Math.sin((2 * Math.PI * 5200 * i) / 16000) * Math.sin((2 * Math.PI * 3 * i) / 16000);
      pcm[i] = Math.round(tone + high + 1500 * noise);
    }
    const encoded = new G722Encoder().encode(pcm);
    const sha = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');
    assert.equal(sha(encoded), 'ad59019daef591ef83c9840bf5de2efea0f855513ae5786533d06ed418c2585a');
    const decoded = new G722Decoder().decode(encoded);
    assert.equal(sha(new Uint8Array(decoded.buffer)), '3c353ad3f2975966ed48f2f1aad81aa57c799b9ddd1ede5e82023d25561d33ba');
  });
});
