import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { toneAmplitude } from '../dsp/goertzel.js';
import { sine } from '../test-support/audio-fixtures.js';
import { createCodec, createL16Codec, isCodecSupported, opusAvailable, opusLoadError } from './index.js';

describe('L16 (RFC 3551 §4.5.11)', () => {
  it('is registered at 8000 Hz: 160 samples ↔ 320 big-endian octets', () => {
    const codec = createCodec('L16');
    assert.deepEqual([codec.clockRate, codec.sampleRate, codec.frameSamples], [8000, 8000, 160]);
    const pcm = new Int16Array(160);
    pcm[0] = 0x1234;
    pcm[1] = -2;
    const payload = codec.encode(pcm);
    assert.equal(payload.length, 320);
    assert.deepEqual([...payload.subarray(0, 4)], [0x12, 0x34, 0xff, 0xfe]);
    assert.deepEqual(codec.decode(payload), pcm);
  });

  it('offers 16 kHz through createL16Codec(16000) and ignores a trailing odd octet', () => {
    const codec = createL16Codec(16000);
    assert.deepEqual([codec.clockRate, codec.frameSamples], [16000, 320]);
    assert.equal(codec.decode(new Uint8Array(5)).length, 2);
  });
});

describe('Opus (RFC 7587)', () => {
  it('is registered exactly when the native binding loads', () => {
    assert.equal(isCodecSupported('opus'), opusAvailable());
    assert.equal(opusLoadError() === null, opusAvailable());
  });

  it('round-trips a 1 kHz tone at 48 kHz in 20 ms frames and survives garbage', () => {
    assert.ok(opusAvailable(), 'the @discordjs/opus binding must load');
    const codec = createCodec('opus');
    assert.deepEqual([codec.clockRate, codec.sampleRate, codec.frameSamples], [48000, 48000, 960]);
    const input = sine(1000, 48000, 400, 8000);
    const output = new Int16Array(input.length);
    for (let offset = 0; offset < input.length; offset += 960) {
      const payload = codec.encode(input.subarray(offset, offset + 960));
      assert.ok(payload.length > 0 && payload.length < 400);
      output.set(codec.decode(payload), offset);
    }
    const level = toneAmplitude(output, 1000, 48000, 9600, 9600);
    assert.ok(level > 5000, `amplitude ${level}`);
    assert.ok(level > 20 * toneAmplitude(output, 3000, 48000, 9600, 9600));
    assert.equal(codec.decode(new Uint8Array([0xff, 0xff, 0xff, 1, 2, 3])).length, 960);
    assert.equal(codec.conceal().length, 960);
  });
});
