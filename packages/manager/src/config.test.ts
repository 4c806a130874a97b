import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { ConfigError, silentLogger } from '@switchboard/core';
import { loadManagerConfig, MANAGER_DEFAULTS } from './config.js';

function confDir(text?: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'manager-conf-'));
  if (text !== undefined) writeFileSync(join(dir, 'manager.conf'), text);
  return dir;
}

describe('manager.conf', () => {
  it('is disabled on the loopback address when the file is missing', () => {
    const config = loadManagerConfig(confDir(), silentLogger);
    assert.equal(config.enabled, false);
    assert.equal(config.bindAddress, '127.0.0.1');
    assert.equal(config.port, 5038);
    assert.equal(config.users.size, 0);
  });

  it('reads the listener, limits, TLS and users with classes, ACL, filters and writetimeout', () => {
    const config = loadManagerConfig(
      confDir(`[general]
enabled = yes
port = 15038
bindaddr = 0.0.0.0
tlsenable = yes
tlsbindaddr = 127.0.0.1:15039
tlscertfile = /etc/cert.pem
authtimeout = 5
actionlimit = 7
maxsessionsperaddress = 3

[Admin]
secret = s3cret
deny = 0.0.0.0/0.0.0.0
permit = 127.0.0.1/32
read = call,user
write = all
eventfilter = !Channel: Local/
writetimeout = 250
`),
      silentLogger,
    );
    assert.equal(config.enabled, true);
    assert.equal(config.port, 15038);
    assert.equal(config.bindAddress, '0.0.0.0');
    assert.deepEqual(config.tls, { bindAddress: '127.0.0.1', port: 15039, certFile: '/etc/cert.pem', keyFile: '/etc/cert.pem' });
    assert.equal(config.authTimeoutMs, 5000);
    assert.equal(config.actionsPerSecond, 7);
    assert.equal(config.maxSessionsPerAddress, 3);
    assert.equal(config.maxSessions, MANAGER_DEFAULTS.maxSessions);
    const admin = config.users.get('admin');
    assert.equal(admin?.name, 'Admin');
    assert.equal(admin?.secret, 's3cret');
    assert.equal(admin?.acl.length, 2);
    assert.equal(admin?.read.has('user'), true);
    assert.equal(admin?.read.has('system'), false);
    assert.equal(admin?.write.has('originate'), true);
    assert.deepEqual(admin?.eventFilters, ['!Channel: Local/']);
    assert.equal(admin?.writeTimeoutMs, 250);
  });

  it('stops at an invalid value with the file and line', () => {
    for (const [text, line] of [
      ['[general]\nenabled = maybe\n', 2],
      ['[general]\nport = 70000\n', 2],
      ['[u]\nsecret = x\nread = call,nonsense\n', 3],
      ['[u]\nsecret = x\npermit = 10.0.0.0/99\n', 3],
      ['[u]\nsecret = x\neventfilter = ([\n', 3],
    ] as const) {
      assert.throws(
        () => loadManagerConfig(confDir(text), silentLogger),
        (err: unknown) => err instanceof ConfigError && err.line === line,
        text,
      );
    }
    assert.throws(() => loadManagerConfig(confDir('[u]\nread = all\n'), silentLogger), /has no secret/);
    assert.throws(() => loadManagerConfig(confDir('[general]\ntlsenable = yes\n'), silentLogger), /tlscertfile/);
  });
});
