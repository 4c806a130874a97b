import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ChannelNamer } from './channel-names.js';
import { causeForStatus, causeFromReasonHeader, statusForCause } from './calls/hangup-causes.js';
import { parseAddressRange, rangeContains } from './auth/ip-match.js';

describe('hangup causes (RFC 3398)', () => {
  it('maps Q.850 causes to final responses for unanswered inbound calls', () => {
    assert.equal(statusForCause(1), 404);
    assert.equal(statusForCause(16), 480);
    assert.equal(statusForCause(17), 486);
    assert.equal(statusForCause(18), 480);
    assert.equal(statusForCause(19), 480);
    assert.equal(statusForCause(21), 403);
    assert.equal(statusForCause(26), 480);
    assert.equal(statusForCause(34), 503);
    assert.equal(statusForCause(58), 488);
    assert.equal(statusForCause(999), 480);
  });

  it('maps SIP statuses back to causes', () => {
    assert.equal(causeForStatus(486), 17);
    assert.equal(causeForStatus(404), 1);
    assert.equal(causeForStatus(487), 16);
    assert.equal(causeForStatus(503), 41);
    assert.equal(causeForStatus(599), 41);
    assert.equal(causeForStatus(499), 21);
  });

  it('reads the Q.850 cause of a Reason header (RFC 3326)', () => {
    assert.equal(causeFromReasonHeader(['SIP;cause=200;text="Call completed elsewhere"', 'Q.850;cause=26;text="answered elsewhere"']), 26);
    assert.equal(causeFromReasonHeader(['q.850 ; cause = 17']), 17);
    assert.equal(causeFromReasonHeader(['SIP;cause=487']), undefined);
    assert.equal(causeFromReasonHeader(['Q.850;cause=999']), undefined);
  });
});

describe('identify match', () => {
  it('matches IPv4 addresses and CIDR ranges', () => {
    const range = parseAddressRange('192.0.2.0/24');
    assert.ok(range);
    assert.ok(rangeContains(range, '192.0.2.77'));
    assert.ok(rangeContains(range, '::ffff:192.0.2.1'));
    assert.ok(!rangeContains(range, '192.0.3.1'));
    const single = parseAddressRange('127.0.0.1');
    assert.ok(single && rangeContains(single, '127.0.0.1') && !rangeContains(single, '127.0.0.2'));
    const odd = parseAddressRange('10.0.0.0/9');
    assert.ok(odd && rangeContains(odd, '10.127.255.255') && !rangeContains(odd, '10.128.0.0'));
    assert.ok(rangeContains(parseAddressRange('0.0.0.0/0')!, '203.0.113.5'));
  });

  it('matches IPv6 addresses and ranges', () => {
    const range = parseAddressRange('2001:db8::/32');
    assert.ok(range);
    assert.ok(rangeContains(range, '2001:db8:ffff::1'));
    assert.ok(!rangeContains(range, '2001:db9::1'));
    assert.ok(!rangeContains(range, '192.0.2.1'));
    const loop = parseAddressRange('::1');
    assert.ok(loop && rangeContains(loop, '0:0:0:0:0:0:0:1'));
  });

  it('refuses what is not an address or range', () => {
    assert.equal(parseAddressRange('pbx.example.com'), undefined);
    assert.equal(parseAddressRange('192.0.2.0/33'), undefined);
    assert.equal(parseAddressRange('192.0.2.0/x'), undefined);
  });
});

describe('channel names', () => {
  it('are SIP/<endpoint>-<8 hex> and increment', () => {
    const namer = new ChannelNamer(0xfffffffe);
    assert.equal(namer.next('alice'), 'SIP/alice-fffffffe');
    assert.equal(namer.next('alice'), 'SIP/alice-ffffffff');
    assert.equal(namer.next('bob'), 'SIP/bob-00000000');
  });
});
