/** Files the server writes for log channels and recordings, against names and links an outsider chose. */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { CoreError } from '../errors.js';
import { recordingFile, recordingNameProblem } from '../recordings/recording-paths.js';
import { silentLogger } from '../util/logger.js';
import { LogChannelRegistry } from './log-channel-registry.js';

const root = mkdtempSync(join(tmpdir(), 'log-files-'));

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    return err instanceof CoreError ? err.code : `not a CoreError: ${String(err)}`;
  }
  return undefined;
}

describe('files written for remote requests', () => {
  after(() => rmSync(root, { recursive: true, force: true }));

  it('does not follow a symlink planted in the log directory', () => {
    const dir = join(root, 'log');
    mkdirSync(dir, { recursive: true });
    const target = join(root, 'precious.txt');
    writeFileSync(target, 'keep me\n');
    symlinkSync(target, join(dir, 'evil.log'));
    const channels = new LogChannelRegistry(dir, silentLogger);
    assert.equal(
      codeOf(() => channels.add('evil.log', '*')),
      'invalid_argument',
    );
    channels.close();
    assert.equal(readFileSync(target, 'utf8'), 'keep me\n');
  });

  it('refuses a 300-character log channel name as invalid, not as a failure', () => {
    const channels = new LogChannelRegistry(join(root, 'log2'), silentLogger);
    assert.equal(
      codeOf(() => channels.add('a'.repeat(300), 'error')),
      'invalid_argument',
    );
    channels.close();
  });

  it('refuses recording names with CR, LF or other control characters', () => {
    for (const name of ['line\r\nforged', 'tab\there', 'bell\x07', 'del\x7f']) {
      assert.ok(recordingNameProblem(name) !== undefined, JSON.stringify(name));
      assert.equal(
        codeOf(() => recordingFile(root, name, 'wav')),
        'invalid_argument',
      );
    }
    assert.equal(recordingNameProblem('plain-name_1'), undefined);
  });
});
