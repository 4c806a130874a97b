import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AclError, aclAllows, parseAclRule } from './acl.js';
import { EventFilters } from './filters.js';
import { Permissions } from './permissions.js';

describe('manager ACL', () => {
  it('lets the last matching rule decide and allows what no rule matches', () => {
    const rules = [parseAclRule('deny', '0.0.0.0/0.0.0.0'), parseAclRule('permit', '127.0.0.1/255.255.255.255')];
    assert.equal(aclAllows(rules, '127.0.0.1'), true);
    assert.equal(aclAllows(rules, '::ffff:127.0.0.1'), true, 'a v4 peer on a dual-stack socket');
    assert.equal(aclAllows(rules, '10.1.2.3'), false);
    assert.equal(aclAllows([parseAclRule('permit', '10.0.0.0/8')], '192.0.2.1'), true);
    assert.equal(aclAllows([parseAclRule('deny', '::1/128')], '::1'), false);
  });

  it('refuses bad addresses and masks', () => {
    assert.throws(() => parseAclRule('deny', 'not-an-ip'), AclError);
    assert.throws(() => parseAclRule('deny', '10.0.0.0/255.0.255.0'), AclError);
    assert.throws(() => parseAclRule('deny', '10.0.0.0/33'), AclError);
  });
});

describe('manager event filters', () => {
  const event = (name: string, channel: string) => `Event: ${name}\r\nChannel: ${channel}\r\n\r\n`;

  it('passes everything without filters, includes only matches, and excludes after including', () => {
    assert.equal(new EventFilters().passes(event('Newchannel', 'SIP/a')), true);
    const include = new EventFilters(['Event: Newchannel']);
    assert.equal(include.passes(event('Newchannel', 'SIP/a')), true);
    assert.equal(include.passes(event('Hangup', 'SIP/a')), false);
    const exclude = new EventFilters(['!Channel: Local/']);
    assert.equal(exclude.passes(event('Hangup', 'Local/1@x;1')), false);
    assert.equal(exclude.passes(event('Hangup', 'SIP/a')), true);
    const both = new EventFilters(['Event: (Newchannel|Hangup)', '!Channel: Local/']);
    assert.equal(both.passes(event('Hangup', 'SIP/a')), true);
    assert.equal(both.passes(event('Hangup', 'Local/1@x;1')), false);
    assert.equal(both.passes(event('Newstate', 'SIP/a')), false);
  });
});

describe('manager permissions', () => {
  it('parses classes, expands all, and reports unknown names', () => {
    const { permissions, unknown } = Permissions.parse('call, Originate ,bogus');
    assert.equal(permissions.has('call'), true);
    assert.equal(permissions.has('originate'), true);
    assert.equal(permissions.has('system'), false);
    assert.deepEqual(unknown, ['bogus']);
    assert.equal(Permissions.parse('all').permissions.hasAny(['security']), true);
    assert.equal(permissions.intersect(Permissions.parse('call,system').permissions).has('originate'), false);
  });
});
