import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { parseWav, pcm16Samples } from '../audio/wav.js';
import { wav16 } from '../test-support/audio-fixtures.js';
import { openSink } from './sinks.js';
import { WavAppendError, locateWavData, wavHeader, wavLengthFields } from './wav-header.js';

const frame = (value: number): Int16Array => new Int16Array(160).fill(value);

describe('WAV recording header', () => {
  let dir = '';
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'switchboard-wav-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('writes a canonical 44-byte header that our reader accepts', () => {
    const header = wavHeader(320);
    const file = new Uint8Array(44 + 320);
    file.set(header);
    const wav = parseWav(file);
    assert.equal(wav.sampleRate, 8000);
    assert.equal(wav.channels, 1);
    assert.equal(wav.bitsPerSample, 16);
    assert.equal(wav.data.length, 320);
    assert.equal(new DataView(header.buffer).getUint32(4, true), 36 + 320);
  });

  it('locates the data of a file to append to, and trusts the file length when the header was never fixed', () => {
    const existing = wav16(new Int16Array(100), 8000);
    assert.deepEqual(locateWavData(existing, existing.length), { dataOffset: 44, dataBytes: 200 });
    const unfixed = new Uint8Array(44 + 400);
    unfixed.set(wavHeader(0));
    assert.deepEqual(locateWavData(unfixed, unfixed.length), { dataOffset: 44, dataBytes: 400 });
    assert.deepEqual(wavLengthFields({ dataOffset: 44, dataBytes: 400 }), [
      [4, 436],
      [40, 400],
    ]);
  });

  it('refuses to append to another format', () => {
    const stereo = wav16(new Int16Array(100), 8000, 2);
    assert.throws(() => locateWavData(stereo, stereo.length), WavAppendError);
    assert.throws(() => locateWavData(new Uint8Array(20), 20), /not a WAV file/);
    const trailing = new Uint8Array([...wav16(new Int16Array(10), 8000), ...new TextEncoder().encode('LIST'), 0, 0, 0, 0]);
    assert.throws(() => locateWavData(trailing, trailing.length), /not the last chunk/);
  });

  it('streams frames to a file, fixes the header at the end, and extends the data chunk on append', async () => {
    const path = join(dir, 'rec.wav');
    const sink = openSink('wav', path, false);
    sink.write(frame(1));
    sink.write(frame(2));
    await sink.finish();
    let wav = parseWav(await readFile(path));
    assert.equal(wav.data.length, 640);
    assert.equal(wav.truncated, false);

    const again = openSink('wav', path, true);
    again.write(frame(3));
    await again.finish();
    const bytes = await readFile(path);
    wav = parseWav(bytes);
    assert.equal(wav.data.length, 960);
    assert.equal(new DataView(bytes.buffer, bytes.byteOffset).getUint32(4, true), bytes.length - 8, 'RIFF size covers the file');
    const samples = pcm16Samples(wav.data);
    assert.deepEqual([samples[0], samples[160], samples[320]], [1, 2, 3]);
  });

  it('appends to a missing file as a new recording, and discards by deleting', async () => {
    const path = join(dir, 'new.wav');
    const sink = openSink('wav', path, true);
    sink.write(frame(5));
    await sink.finish();
    assert.equal(parseWav(await readFile(path)).data.length, 320);
    const doomed = openSink('sln', join(dir, 'gone.sln'), false);
    doomed.write(frame(1));
    await doomed.discard();
    await assert.rejects(readFile(join(dir, 'gone.sln')), /ENOENT/);
  });

  it('writes raw G.711 and 16-bit formats byte for byte', async () => {
    const ulaw = join(dir, 'r.ulaw');
    const sln = join(dir, 'r.sln');
    for (const [format, path] of [
      ['ulaw', ulaw],
      ['sln', sln],
    ] as const) {
      const sink = openSink(format, path, false);
      sink.write(frame(0));
      await sink.finish();
    }
    const ulawBytes = await readFile(ulaw);
    assert.equal(ulawBytes.length, 160);
    assert.ok(
      ulawBytes.every((b) => b === 0xff),
      'µ-law silence is 0xFF',
    );
    assert.equal((await readFile(sln)).length, 320);
  });
  it('writes G.722 at 64 kbit/s (160 bytes per 20 ms) when the codec is registered', async () => {
    const path = join(dir, 'r.g722');
    const sink = openSink('g722', path, false);
    sink.write(frame(1000));
    sink.write(frame(-1000));
    await sink.finish();
    assert.equal((await readFile(path)).length, 320);
  });
});
