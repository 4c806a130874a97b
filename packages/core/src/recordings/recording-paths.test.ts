import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { CoreError } from '../errors.js';
import { recordingFile, recordingNameProblem, resolvesWithin } from './recording-paths.js';

function recordingDir() {
  const base = mkdtempSync(join(tmpdir(), 'recpaths-'));
  const root = join(base, 'recordings');
  const outside = join(base, 'outside');
  mkdirSync(join(root, 'calls'), { recursive: true });
  mkdirSync(outside);
  writeFileSync(join(outside, 'secret.wav'), 'x');
  return { root, outside };
}

describe('recording paths', () => {
  it('accepts plain names and names in sub-directories', () => {
    const { root } = recordingDir();
    assert.equal(recordingFile(root, 'greeting', 'wav'), join(root, 'greeting.wav'));
    assert.equal(recordingFile(root, 'calls/2024/a-b_c', 'ulaw'), join(root, 'calls/2024/a-b_c.ulaw'));
    assert.equal(recordingFile(root, '..hidden', 'wav'), join(root, '..hidden.wav'));
  });

  it('refuses every lexical escape', () => {
    const escapes = [
      '../outside/secret',
      'calls/../../outside/secret',
      '/etc/passwd',
      'calls\\..\\..\\x',
      'a\0b',
      '..%2Foutside%2Fsecret',
      '%2e%2e/x',
      'calls//x',
      './x',
      'calls/.',
      '',
      'x'.repeat(300),
    ];
    for (const name of escapes) assert.ok(recordingNameProblem(name), JSON.stringify(name));
    const { root } = recordingDir();
    for (const name of escapes) {
      assert.throws(
        () => recordingFile(root, name, 'wav'),
        (e: CoreError) => e.code === 'invalid_argument',
        JSON.stringify(name),
      );
      assert.throws(
        () => recordingFile(root, name, 'wav', 'not_found'),
        (e: CoreError) => e.code === 'not_found',
      );
    }
    assert.throws(
      () => recordingFile(root, 'ok', '../wav'),
      (e: CoreError) => e.code === 'invalid_argument',
    );
  });

  it('refuses a symlink inside the directory that leads outside it, for files and directories', () => {
    const { root, outside } = recordingDir();
    symlinkSync(outside, join(root, 'escape'));
    symlinkSync(join(outside, 'secret.wav'), join(root, 'linked.wav'));
    symlinkSync(join(outside, 'not-yet.wav'), join(root, 'dangling.wav'));
    assert.throws(
      () => recordingFile(root, 'escape/secret', 'wav'),
      (e: CoreError) => e.code === 'invalid_argument',
    );
    assert.throws(
      () => recordingFile(root, 'escape/new/deeper', 'wav'),
      (e: CoreError) => e.code === 'invalid_argument',
    );
    assert.throws(
      () => recordingFile(root, 'linked', 'wav'),
      (e: CoreError) => e.code === 'invalid_argument',
    );
    assert.throws(
      () => recordingFile(root, 'dangling', 'wav'),
      (e: CoreError) => e.code === 'invalid_argument',
    );
  });

  it('follows a symlink that stays inside the directory', () => {
    const { root } = recordingDir();
    symlinkSync(join(root, 'calls'), join(root, 'alias'));
    assert.ok(resolvesWithin(root, join(root, 'alias', 'x.wav')));
    assert.equal(recordingFile(root, 'alias/x', 'wav'), join(root, 'alias/x.wav'));
  });
});
