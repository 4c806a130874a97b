import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { silentLogger } from '../util/logger.js';
import { readGeneralConfig } from './general-config.js';
import { parseIni } from './ini.js';

const STORE = '[store]\nbackend = postgres\nurl = postgres://sb@127.0.0.1/sb\n';
const read = (text: string) => readGeneralConfig(parseIni(text, 'switchboard.conf'), '/etc/switchboard', silentLogger).cluster;

describe('switchboard.conf [cluster]', () => {
  it('is absent on a node of its own', () => {
    assert.equal(read(STORE), undefined);
    assert.equal(readGeneralConfig(undefined, '/etc/switchboard', silentLogger).cluster, undefined);
  });

  it('reads the shared secret and every node with its API root', () => {
    assert.deepEqual(
      read(
        `${STORE}[cluster]\nsecret = 0123456789abcdef0123\nnode = node1, http://127.0.0.11:8088/ari\nnode = node2,http://10.0.0.2:8088/sb/ari/\n`,
      ),
      {
        secret: '0123456789abcdef0123',
        nodes: [
          { name: 'node1', ari: 'http://127.0.0.11:8088/ari' },
          { name: 'node2', ari: 'http://10.0.0.2:8088/sb/ari' },
        ],
        nodeTimeoutMs: 10_000,
      },
    );
  });

  it('stops startup on a short or missing secret, a bad node line, a repeated node or a store of one node', () => {
    assert.throws(() => read(`${STORE}[cluster]\nsecret = short\n`), /switchboard.conf:5: .*at least 16 characters/);
    assert.throws(() => read(`${STORE}[cluster]\nnode = n1, http://h:1/ari\n`), /needs secret/);
    const secret = 'secret = 0123456789abcdef0123\n';
    assert.throws(() => read(`${STORE}[cluster]\n${secret}node = http://h:1/ari\n`), /expected <name>, http:\/\/host:port\/ari/);
    assert.throws(() => read(`${STORE}[cluster]\n${secret}node = n1, ftp://h/ari\n`), /expected <name>/);
    assert.throws(() => read(`${STORE}[cluster]\n${secret}node = n1, http://a:1/ari\nnode = n1, http://b:1/ari\n`), /listed twice/);
    assert.throws(() => read(`[cluster]\n${secret}`), /needs \[store\] backend = postgres/);
    assert.throws(() => read(`${STORE}[cluster]\n${secret}node_timeout = 1\n`), /from 2 to 3600/);
    assert.throws(() => read(`${STORE}[cluster]\n${secret}node_timeout = 2.5\n`), /whole number/);
  });

  it('reads node_timeout in seconds', () => {
    assert.equal(read(`${STORE}[cluster]\nsecret = 0123456789abcdef0123\nnode_timeout = 4\n`)?.nodeTimeoutMs, 4000);
  });
});
