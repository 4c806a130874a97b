/**
 * A recorder format fixes the rate and quantisation a bridge's mix is captured at before the file
 * format encodes it: μ-law capture leaves only G.711 code values in a linear file; slin16 capture
 * into a G.722 file keeps a 6 kHz tone that a μ-law (8 kHz) capture cannot.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createCodec, isCodecSupported } from '../codecs/index.js';
import { linearToUlaw, ulawToLinear } from '../codecs/g711.js';
import { toneAmplitude } from '../dsp/goertzel.js';
import type { ChannelFormat, RecordingFormat } from '@switchboard/media-control';
import { Recorder } from './recorder.js';

/** 16 kHz frames of 1 kHz + 6 kHz, as a wideband bridge's mix. */
function wideFrames(count: number): Int16Array[] {
  const frames: Int16Array[] = [];
  let n = 0;
  for (let f = 0; f < count; f += 1) {
    const frame = new Int16Array(320);
    for (let i = 0; i < 320; i += 1, n += 1)
      frame[i] = Math.round(3000 * Math.sin((2 * Math.PI * 1000 * n) / 16000) + 3000 * Math.sin((2 * Math.PI * 6000 * n) / 16000));
    frames.push(frame);
  }
  return frames;
}

describe('recorder format', () => {
  let dir = '';
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'switchboard-recorder-format-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function record(format: RecordingFormat, recorderFormat: ChannelFormat | undefined, name: string): Promise<Buffer> {
    const file = join(dir, name);
    const request = { recordingId: name, file, format, ...(recorderFormat === undefined ? {} : { recorderFormat }) };
    const recorder = new Recorder(request, () => {});
    assert.equal(recorder.failure, null);
    for (const frame of wideFrames(50)) recorder.feed(frame);
    const done = await recorder.finish('stopped', { discard: false });
    assert.equal(done.reason, 'stopped');
    assert.equal(done.durationMs, 1000);
    return readFile(file);
  }

  it('ulaw capture into a linear file leaves only G.711 values; slin16 capture does not', async () => {
    const samplesOf = (bytes: Buffer): Int16Array => new Int16Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.length));
    const ulaw = samplesOf(await record('sln', 'ulaw', 'u.sln'));
    const slin = samplesOf(await record('sln', 'slin16', 's.sln'));
    assert.equal(ulaw.length, 8000, 'one second at the file rate (8 kHz)');
    assert.equal(slin.length, 8000);
    const onGrid = (s: number): boolean => ulawToLinear(linearToUlaw(s)) === s;
    assert.ok(ulaw.every(onGrid), 'every sample of the μ-law capture is a μ-law code value');
    assert.ok(slin.filter((s) => !onGrid(s)).length > 4000, 'the slin16 capture is finer than μ-law');
    assert.ok(toneAmplitude(ulaw, 1000, 8000, 800) > 2500 && toneAmplitude(slin, 1000, 8000, 800) > 2500, 'both carry the 1 kHz tone');
  });

  it('into a G.722 file, slin16 capture keeps 6 kHz and ulaw capture (8 kHz) cannot', { skip: !isCodecSupported('G722') }, async () => {
    const decode = (bytes: Buffer): Int16Array => {
      const decoder = createCodec('G722');
      const out = new Int16Array(bytes.length * 2);
      for (let offset = 0; offset + 160 <= bytes.length; offset += 160)
        out.set(decoder.decode(bytes.subarray(offset, offset + 160)), offset * 2);
      return out;
    };
    const wide = decode(await record('g722', 'slin16', 'w.g722'));
    const narrow = decode(await record('g722', 'ulaw', 'n.g722'));
    const defaulted = decode(await record('g722', undefined, 'd.g722'));
    assert.ok(toneAmplitude(wide, 6000, 16000, 3200) > 2000, `slin16: 6 kHz kept (${toneAmplitude(wide, 6000, 16000, 3200).toFixed(0)})`);
    assert.ok(toneAmplitude(defaulted, 6000, 16000, 3200) > 2000, 'default (the format, g722): 16 kHz capture');
    assert.ok(toneAmplitude(narrow, 6000, 16000, 3200) < 150, `ulaw: 6 kHz gone (${toneAmplitude(narrow, 6000, 16000, 3200).toFixed(0)})`);
    assert.ok(toneAmplitude(narrow, 1000, 16000, 3200) > 2000, 'ulaw: 1 kHz kept');
  });
});
