import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatSecurityLine } from './security-log.js';

// fail2ban's `asterisk` filter: its prefix and the PJSIP request / SecurityEvent rules.
const PREFIX = String.raw`^\[[\d-]+ [\d:]+\] (?:NOTICE|SECURITY|WARNING)(?:\[\d+\])?:?(?:\[C-[\da-f]*\])? [^:]+:\d*(?:(?: in)? \w+:)?`;
const RULES = [
  new RegExp(
    `${PREFIX} Request (?:'[^']*' )?from '(?:[^']*|.*?)' failed for '(?<host>[^']+?)(?::\\d+)?'\\s\\(callid: [^\\)]*\\) - (?:No matching endpoint found|Not match Endpoint(?: Contact)? ACL|(?:Failed|Error) to authenticate)\\s*$`,
  ),
  new RegExp(
    `${PREFIX} SecurityEvent="(?:FailedACL|InvalidAccountID|ChallengeResponseFailed|InvalidPassword)"(?:(?:,(?!RemoteAddress=)\\w+="[^"]*")*|.*?),RemoteAddress="IPV[46]/[^/"]+/(?<host>[^/"]+)/\\d+"(?:,(?!RemoteAddress=)\\w+="[^"]*")*$`,
  ),
];
const bannedHost = (line: string) => RULES.map((rule) => rule.exec(line.trimEnd())?.groups?.host).find((h) => h !== undefined);
const known = (name: string) => name === 'alice';
const time = new Date(2026, 10, 24, 3, 50, 7).getTime();

describe('security log lines', () => {
  it('writes a failed authentication as the original does, for fail2ban', () => {
    const line = formatSecurityLine(
      { securityEvent: 'auth_failed', address: '192.0.2.7', port: 5062, method: 'REGISTER', username: 'alice', time },
      known,
      42,
    );
    assert.equal(
      line,
      "[2026-11-24 03:50:07] SECURITY[42] res_pjsip: Request 'REGISTER' from '<sip:alice@192.0.2.7>' failed for '192.0.2.7:5062' (callid: ) - Failed to authenticate\n",
    );
    assert.equal(bannedHost(line ?? ''), '192.0.2.7');
  });

  it('names an unknown user as no matching endpoint', () => {
    const line =
      formatSecurityLine(
        { securityEvent: 'auth_failed', address: '192.0.2.8', port: 5060, method: 'INVITE', username: 'mallory', time },
        known,
      ) ?? '';
    assert.ok(line.endsWith('- No matching endpoint found\n'));
    assert.equal(bannedHost(line), '192.0.2.8');
  });

  it('writes a locked-out address as a FailedACL security event, IPv6 too', () => {
    const v4 = formatSecurityLine({ securityEvent: 'auth_blocked', address: '198.51.100.9', time }, known) ?? '';
    assert.match(v4, /SecurityEvent="FailedACL",.*RemoteAddress="IPV4\/UDP\/198\.51\.100\.9\/0",ACLName="auth_failure_lockout"\n$/);
    assert.equal(bannedHost(v4), '198.51.100.9');
    const v6 = formatSecurityLine({ securityEvent: 'auth_blocked', address: '2001:db8::5', port: 5060, time }, known) ?? '';
    assert.equal(bannedHost(v6), '2001:db8::5');
  });

  it('writes nothing for events without an address or of other kinds', () => {
    assert.equal(formatSecurityLine({ securityEvent: 'auth_failed', time }, known), undefined);
    assert.equal(formatSecurityLine({ securityEvent: 'auth_failed', address: 'not-an-ip', time }, known), undefined);
    assert.equal(formatSecurityLine({ securityEvent: 'something_else', address: '192.0.2.1', time }, known), undefined);
  });
});
