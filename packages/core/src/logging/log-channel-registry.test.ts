import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { CoreError } from '../errors.js';
import { silentLogger } from '../util/logger.js';
import { LogChannelRegistry } from './log-channel-registry.js';
import { parseLevels } from './log-levels.js';
import { pinoStreamFor } from './log-sink.js';

const dirs: string[] = [];
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function logDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-log-'));
  dirs.push(dir);
  return join(dir, 'log');
}

const codeOf = (work: () => unknown) => {
  try {
    work();
    return 'ok';
  } catch (err) {
    assert.ok(err instanceof CoreError);
    return err.code;
  }
};

describe('LogChannelRegistry', () => {
  it('writes lines of the chosen levels to its file and rotates it to .1', () => {
    const dir = logDir();
    const channels = new LogChannelRegistry(dir, silentLogger);
    channels.add('errors.log', 'warning,error');
    channels.write('error', 'first\n');
    channels.write('notice', 'not for this file\n');
    assert.equal(readFileSync(join(dir, 'errors.log'), 'utf8'), 'first\n');
    channels.rotate('errors.log');
    channels.write('warning', 'second\n');
    assert.equal(readFileSync(join(dir, 'errors.log.1'), 'utf8'), 'first\n');
    assert.equal(readFileSync(join(dir, 'errors.log'), 'utf8'), 'second\n');
    assert.deepEqual(channels.list(), [
      { channel: join(dir, 'errors.log'), type: 'File', status: 'Enabled', configuration: 'WARNING ERROR ' },
    ]);
    channels.delete('errors.log');
    channels.write('error', 'gone\n');
    assert.equal(readFileSync(join(dir, 'errors.log'), 'utf8'), 'second\n');
    channels.close();
  });

  it('refuses names outside the directory, bad levels, duplicates and unknown channels', () => {
    const dir = logDir();
    const channels = new LogChannelRegistry(dir, silentLogger);
    assert.equal(
      codeOf(() => channels.add('../escape', 'error')),
      'invalid_argument',
    );
    assert.equal(
      codeOf(() => channels.add('a/b', 'error')),
      'invalid_argument',
    );
    assert.equal(
      codeOf(() => channels.add('..', 'error')),
      'invalid_argument',
    );
    assert.equal(
      codeOf(() => channels.add('x.log', '')),
      'invalid_argument',
    );
    assert.equal(
      codeOf(() => channels.add('x.log', 'loud')),
      'invalid_argument',
    );
    assert.equal(existsSync(join(dir, 'x.log')), false);
    channels.add('x.log', '*');
    assert.equal(
      codeOf(() => channels.add('x.log', 'error')),
      'conflict',
    );
    assert.equal(
      codeOf(() => channels.rotate('nothing')),
      'not_found',
    );
    assert.equal(
      codeOf(() => channels.delete('nothing')),
      'not_found',
    );
    channels.close();
  });

  it('takes pino JSON lines through the stream adapter by their level', () => {
    const dir = logDir();
    const channels = new LogChannelRegistry(dir, silentLogger);
    channels.add('notice.log', 'notice');
    const stream = pinoStreamFor(channels);
    stream.write('{"level":30,"msg":"hello"}\n');
    stream.write('{"level":20,"msg":"debugging"}\n');
    assert.equal(readFileSync(join(dir, 'notice.log'), 'utf8'), '{"level":30,"msg":"hello"}\n');
    channels.close();
  });

  it('parses level lists as operators write them', () => {
    assert.deepEqual(parseLevels('notice, WARNING ,error'), ['notice', 'warning', 'error']);
    assert.deepEqual(parseLevels('nope'), { unknown: 'nope' });
  });
});
