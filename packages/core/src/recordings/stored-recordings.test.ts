import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { CoreError } from '../errors.js';
import { StoredRecordings, recordingContentType } from './stored-recordings.js';

function store() {
  const base = mkdtempSync(join(tmpdir(), 'stored-'));
  const root = join(base, 'recordings');
  mkdirSync(join(root, 'calls', '2024'), { recursive: true });
  writeFileSync(join(root, 'greeting.wav'), 'RIFF');
  writeFileSync(join(root, 'calls', '2024', 'one.ulaw'), 'u');
  writeFileSync(join(root, 'notes.txt'), 'not a recording');
  mkdirSync(join(base, 'outside'));
  writeFileSync(join(base, 'outside', 'secret.wav'), 'secret');
  symlinkSync(join(base, 'outside'), join(root, 'escape'));
  symlinkSync(root, join(root, 'calls', 'loop'));
  return { root, stored: new StoredRecordings(root) };
}

describe('StoredRecordings', () => {
  it('lists recursively with names relative to the directory, skipping escaping and looping links', () => {
    const { stored } = store();
    assert.deepEqual(stored.list(), [
      { name: 'calls/2024/one', format: 'ulaw' },
      { name: 'greeting', format: 'wav' },
    ]);
  });

  it('gets, copies and deletes; a name that would escape is not found', () => {
    const { root, stored } = store();
    assert.deepEqual(stored.get('calls/2024/one'), { name: 'calls/2024/one', format: 'ulaw' });
    assert.throws(
      () => stored.get('escape/secret'),
      (e: CoreError) => e.code === 'not_found',
    );
    assert.throws(
      () => stored.get('../outside/secret'),
      (e: CoreError) => e.code === 'not_found',
    );

    assert.deepEqual(stored.copy('greeting', 'copies/greeting2'), { name: 'copies/greeting2', format: 'wav' });
    assert.equal(readFileSync(join(root, 'copies', 'greeting2.wav'), 'utf8'), 'RIFF');
    assert.throws(
      () => stored.copy('greeting', 'copies/greeting2'),
      (e: CoreError) => e.code === 'conflict',
    );
    assert.throws(
      () => stored.copy('greeting', '../stolen'),
      (e: CoreError) => e.code === 'invalid_argument',
    );
    assert.throws(
      () => stored.copy('missing', 'x'),
      (e: CoreError) => e.code === 'not_found',
    );

    stored.delete('greeting');
    assert.ok(!existsSync(join(root, 'greeting.wav')));
    assert.throws(
      () => stored.delete('greeting'),
      (e: CoreError) => e.code === 'not_found',
    );
  });

  it('names content types after the format and finds playable WAV files', () => {
    const { root, stored } = store();
    assert.equal(recordingContentType('wav'), 'audio/wav');
    assert.equal(stored.playableFile('greeting'), join(root, 'greeting.wav'));
    assert.equal(stored.playableFile('calls/2024/one'), undefined);
    assert.equal(stored.playableFile('escape/secret'), undefined);
  });
});
