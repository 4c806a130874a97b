/**
 * A recording interrupted by `kill -9` keeps its audio: the header's lengths are rewritten while
 * recording, so a file left without finish() still declares (nearly) all the audio it holds.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { openSink } from './sinks.js';

const dir = mkdtempSync(join(tmpdir(), 'wav-crash-'));

describe('WAV recording without a finish', () => {
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('has a header that declares the audio written up to the last second', async () => {
    const path = join(dir, 'unfinished.wav');
    const sink = openSink('wav', path, false);
    const frame = new Int16Array(160).fill(1000);
    for (let i = 0; i < 150; i++) sink.write(frame); // 3 s of 20 ms frames
    // Let the queued writes reach the file, as they would before the process is killed.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const file = readFileSync(path);
    const declared = file.readUInt32LE(40);
    assert.ok(declared >= 2 * 16000, `data chunk declares ${declared} bytes`);
    assert.ok(declared <= file.length - 44);
    assert.equal(file.readUInt32LE(4), 36 + declared);
    await sink.discard();
  });
});
