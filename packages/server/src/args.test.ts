import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseArgs } from './args.js';

describe('switchboard command line', () => {
  it('defaults to ./conf and ./var', () => {
    assert.deepEqual(parseArgs([]), { confDir: 'conf', dataDir: 'var', help: false });
  });

  it('takes both spellings of the directory options', () => {
    assert.deepEqual(parseArgs(['--conf', '/etc/sb', '--data=/var/lib/sb']), { confDir: '/etc/sb', dataDir: '/var/lib/sb', help: false });
  });

  it('refuses an option without its directory and unknown arguments', () => {
    assert.throws(() => parseArgs(['--conf']), /--conf needs a directory/);
    assert.throws(() => parseArgs(['--conf', '--data', 'x']), /--conf needs a directory/);
    assert.throws(() => parseArgs(['--verbose']), /unknown argument/);
  });

  it('asks for help', () => {
    assert.equal(parseArgs(['--help']).help, true);
  });
});
