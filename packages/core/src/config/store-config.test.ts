import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { silentLogger } from '../util/logger.js';
import { readGeneralConfig } from './general-config.js';
import { parseIni } from './ini.js';

const read = (text: string) => readGeneralConfig(parseIni(text, 'switchboard.conf'), '/etc/switchboard', silentLogger).store;

describe('switchboard.conf [store]', () => {
  it('defaults to SQLite, with or without the section', () => {
    assert.deepEqual(readGeneralConfig(undefined, '/etc/switchboard', silentLogger).store, { backend: 'sqlite' });
    assert.deepEqual(read('[store]\nbackend = sqlite\n'), { backend: 'sqlite' });
  });

  it('reads a PostgreSQL backend and its URL', () => {
    assert.deepEqual(read('[store]\nbackend = postgres\nurl = postgres://sb:pw@127.0.0.1:5432/switchboard\n'), {
      backend: 'postgres',
      url: 'postgres://sb:pw@127.0.0.1:5432/switchboard',
    });
  });

  it('stops startup on an unknown backend, a bad URL or a missing one, naming the line', () => {
    assert.throws(() => read('[store]\nbackend = redis\n'), /switchboard.conf:2: backend = redis: expected sqlite or postgres/);
    assert.throws(() => read('[store]\nbackend = postgres\nurl = mysql://x\n'), /switchboard.conf:3: .*postgres:\/\//);
    assert.throws(() => read('[store]\nbackend = postgres\n'), /switchboard.conf:1: \[store\] backend = postgres needs url/);
  });
});
