import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { aclPermits } from '../security/address-acl.js';
import { silentLogger } from '../util/logger.js';
import { readAclConfig } from './acl-config.js';
import { readAriConfig } from './ari-config.js';
import { parseIni } from './ini.js';

describe('acl.conf and ari.conf user ACLs', () => {
  it('resolves acl names and permit/deny lines in order; the last matching rule decides', () => {
    const acls = readAclConfig(parseIni('[office]\ndeny = 0.0.0.0/0.0.0.0\npermit = 10.1.0.0/16\n', 'acl.conf'), silentLogger);
    const ari = readAriConfig(
      parseIni('[boss]\ntype = user\npassword = x\nacl = office\ndeny = 10.1.2.3\n\n[any]\ntype = user\npassword = y\n', 'ari.conf'),
      silentLogger,
      acls,
    );
    const boss = ari.users.find((u) => u.name === 'boss');
    assert.ok(boss?.acl !== undefined);
    assert.equal(aclPermits(boss.acl, '10.1.9.9'), true);
    assert.equal(aclPermits(boss.acl, '::ffff:10.1.9.9'), true);
    assert.equal(aclPermits(boss.acl, '10.1.2.3'), false);
    assert.equal(aclPermits(boss.acl, '192.0.2.1'), false);
    assert.equal(ari.users.find((u) => u.name === 'any')?.acl, undefined);
    assert.throws(
      () => readAriConfig(parseIni('[u]\ntype = user\npassword = x\nacl = nowhere\n', 'ari.conf'), silentLogger, acls),
      /nowhere/,
    );
    assert.throws(() => readAclConfig(parseIni('[bad]\npermit = not-an-address\n', 'acl.conf'), silentLogger), /IPv4 or IPv6/);
  });
});
