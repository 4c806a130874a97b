import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { rms, sine, wav16, wavBytes } from '../test-support/audio-fixtures.js';
import { loadPlaybackAudio, playbackSamplesFromWav } from './playback-audio.js';

describe('playbackSamplesFromWav', () => {
  it('returns 8 kHz files as they are', () => {
    const samples = sine(440, 8000, 100);
    assert.deepEqual(playbackSamplesFromWav(wav16(samples, 8000), 0), samples);
  });

  it('skips offsetMs of audio', () => {
    const samples = sine(440, 8000, 100);
    assert.deepEqual(playbackSamplesFromWav(wav16(samples, 8000), 30), samples.subarray(240));
  });

  it('returns nothing when the offset is at or past the end', () => {
    assert.equal(playbackSamplesFromWav(wav16(sine(440, 8000, 100), 8000), 100).length, 0);
    assert.equal(playbackSamplesFromWav(wav16(sine(440, 8000, 100), 8000), 5000).length, 0);
  });

  it('decimates 16 kHz and 48 kHz files to 8 kHz, offset measured in output time', () => {
    for (const rate of [16000, 48000]) {
      const out = playbackSamplesFromWav(wav16(sine(500, rate, 1000), rate), 250);
      assert.equal(out.length, 6000, `${rate} Hz`);
      assert.ok(rms(out, 40) > 6500, `${rate} Hz keeps the tone`);
    }
  });

  const unsupported: Array<[string, Uint8Array, RegExp]> = [
    ['stereo', wav16(new Int16Array(16), 8000, 2), /2 channel\(s\)/],
    ['44.1 kHz', wav16(new Int16Array(16), 44100), /44100 Hz/],
    ['8-bit', wavBytes(new Uint8Array(16), { sampleRate: 8000, bitsPerSample: 8 }), /8-bit/],
    ['µ-law WAV (format 7)', wavBytes(new Uint8Array(16), { sampleRate: 8000, bitsPerSample: 8, formatTag: 7 }), /format 0x7/],
    ['float WAV (format 3)', wavBytes(new Uint8Array(16), { sampleRate: 8000, bitsPerSample: 32, formatTag: 3 }), /format 0x3/],
  ];
  for (const [name, bytes, message] of unsupported) {
    it(`refuses ${name} with a message naming the format and what is playable`, () => {
      assert.throws(
        () => playbackSamplesFromWav(bytes, 0),
        (error: unknown) => error instanceof Error && message.test(error.message) && /playable: 16-bit PCM mono/.test(error.message),
      );
    });
  }
});

describe('loadPlaybackAudio', () => {
  let dir = '';
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'switchboard-media-audio-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('reads a file from disk', async () => {
    const file = join(dir, 'tone.wav');
    await writeFile(file, wav16(sine(440, 8000, 40), 8000));
    assert.equal((await loadPlaybackAudio(file, 0)).length, 320);
  });

  it('names the file and the reason when it cannot be read', async () => {
    await assert.rejects(loadPlaybackAudio(join(dir, 'missing.wav'), 0), /cannot read .*missing\.wav: .*ENOENT/);
    await assert.rejects(loadPlaybackAudio(dir, 0), /not a regular file/);
  });

  it('names the file when its content is not playable', async () => {
    const file = join(dir, 'text.wav');
    await writeFile(file, 'not audio');
    await assert.rejects(loadPlaybackAudio(file, 0), /text\.wav: not a WAV file/);
  });
});
