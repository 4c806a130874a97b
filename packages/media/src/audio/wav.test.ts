import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import wavefile from 'wavefile';
import { sine, wav16, wavBytes } from '../test-support/audio-fixtures.js';
import { WavFormatError, parseWav, pcm16Samples } from './wav.js';

describe('parseWav', () => {
  it('reads the format and samples of a canonical 16-bit mono file', () => {
    const samples = sine(440, 8000, 100);
    const wav = parseWav(wav16(samples, 8000));
    assert.equal(wav.formatTag, 1);
    assert.equal(wav.channels, 1);
    assert.equal(wav.sampleRate, 8000);
    assert.equal(wav.bitsPerSample, 16);
    assert.equal(wav.truncated, false);
    assert.deepEqual(pcm16Samples(wav.data), samples);
  });

  it('reads a file written by another implementation (wavefile)', () => {
    const samples = sine(1000, 16000, 50);
    const file = new wavefile.WaveFile();
    file.fromScratch(1, 16000, '16', Array.from(samples));
    const wav = parseWav(file.toBuffer());
    assert.equal(wav.sampleRate, 16000);
    assert.deepEqual(pcm16Samples(wav.data), samples);
  });

  it('skips unknown chunks, including an odd-sized one with its pad byte', () => {
    const samples = new Int16Array([1, -2, 3, -4]);
    const data = new Uint8Array(samples.buffer.slice(0));
    const bytes = wavBytes(data, {
      sampleRate: 8000,
      extraChunks: [
        ['LIST', new Uint8Array(5).fill(65)],
        ['fact', new Uint8Array(4)],
      ],
    });
    assert.deepEqual(pcm16Samples(parseWav(bytes).data), samples);
  });

  it('plays what a file truncated inside its data chunk holds, in whole samples', () => {
    const full = wav16(sine(440, 8000, 100), 8000);
    const cut = full.subarray(0, full.length - 101); // leaves an odd number of data bytes
    const wav = parseWav(cut);
    assert.equal(wav.truncated, true);
    assert.equal(wav.data.length, 800 * 2 - 102);
    assert.equal(wav.data.length % 2, 0);
  });

  it('reads to the end of the file when the data size was never filled in (0xFFFFFFFF)', () => {
    const bytes = wav16(new Int16Array([7, 8, 9]), 8000);
    new DataView(bytes.buffer).setUint32(40, 0xffffffff, true);
    const wav = parseWav(bytes);
    assert.equal(wav.truncated, false);
    assert.deepEqual(pcm16Samples(wav.data), new Int16Array([7, 8, 9]));
  });

  const broken: Array<[string, Uint8Array, RegExp]> = [
    ['an empty file', new Uint8Array(0), /shorter than a RIFF header/],
    ['a text file', new TextEncoder().encode('hello, this is not audio at all'), /no RIFF\/WAVE header/],
    ['a file cut inside its fmt chunk', wav16(new Int16Array(10), 8000).subarray(0, 30), /truncated inside its fmt chunk/],
    ['a file cut right after the RIFF header', wav16(new Int16Array(10), 8000).subarray(0, 12), /no fmt chunk/],
    ['a file cut before its data chunk', wav16(new Int16Array(10), 8000).subarray(0, 36), /no data chunk/],
    [
      'a big-endian RIFX file',
      (() => {
        const b = wav16(new Int16Array(2), 8000);
        b[3] = 0x58;
        return b;
      })(),
      /RIFX/,
    ],
    [
      'a fmt chunk that is too small',
      (() => {
        const b = wav16(new Int16Array(2), 8000);
        new DataView(b.buffer).setUint32(16, 12, true);
        return b;
      })(),
      /needs at least 16/,
    ],
  ];
  for (const [name, bytes, message] of broken) {
    it(`refuses ${name}`, () => {
      assert.throws(
        () => parseWav(bytes),
        (error: unknown) => error instanceof WavFormatError && message.test(error.message),
      );
    });
  }
});
