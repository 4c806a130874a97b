import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseArgs } from './args.js';

describe('switchboard command line', () => {
  it('defaults to serving ./conf and ./var', () => {
    assert.deepEqual(parseArgs([]), {
      mode: 'serve',
      confDir: 'conf',
      dataDir: 'var',
      json: false,
      verbose: 0,
      highPriority: false,
    });
    assert.equal(parseArgs(['-f']).mode, 'serve');
  });

  it('takes both spellings of the directory options', () => {
    const line = parseArgs(['--conf', '/etc/sb', '--data=/var/lib/sb']);
    assert.equal(line.confDir, '/etc/sb');
    assert.equal(line.dataDir, '/var/lib/sb');
  });

  it('refuses an option without its directory and unknown arguments', () => {
    assert.throws(() => parseArgs(['--conf']), /--conf needs a directory/);
    assert.throws(() => parseArgs(['--conf', '--data', 'x']), /--conf needs a directory/);
    assert.throws(() => parseArgs(['--verbose']), /unknown argument/);
    assert.throws(() => parseArgs(['-rx']), /needs a command/);
    assert.throws(() => parseArgs(['-rx', '  ']), /needs a command/);
  });

  it('reads the remote console forms as the original spells them', () => {
    assert.deepEqual(parseArgs(['-rx', 'core show channels', '--data', 'd']), {
      mode: 'execute',
      confDir: 'conf',
      dataDir: 'd',
      json: false,
      verbose: 0,
      highPriority: false,
      command: 'core show channels',
    });
    assert.equal(parseArgs(['-r', '-x', 'core show uptime']).command, 'core show uptime');
    assert.equal(parseArgs(['-r']).mode, 'remote');
    assert.equal(parseArgs(['-rvvv']).verbose, 3);
    assert.equal(parseArgs(['-vvv', '--json']).json, true);
  });

  it('takes -p for realtime priority, alone or with other short flags', () => {
    assert.equal(parseArgs(['-p']).highPriority, true);
    assert.equal(parseArgs(['--high-priority']).highPriority, true);
    const combined = parseArgs(['-vvvp']);
    assert.equal(combined.highPriority, true);
    assert.equal(combined.verbose, 3);
    assert.equal(combined.mode, 'serve');
  });

  it('asks for help and the version', () => {
    assert.equal(parseArgs(['--help']).mode, 'help');
    assert.equal(parseArgs(['-V']).mode, 'version');
    assert.equal(parseArgs(['--version']).mode, 'version');
  });
});
