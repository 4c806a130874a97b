import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type SipAuthConfig, type SipEndpointConfig, silentLogger } from '@switchboard/core';
import { parseMessage } from '../../message/parser.js';
import type { SipRequest } from '../../message/sip-message.js';
import { FakeClock } from '../../test-support/fake-clock.js';
import { answerChallenge } from './digest.js';
import { DigestAuthenticator } from './digest-auth.js';
import { EndpointIdentifier } from './endpoint-identifier.js';
import type { AuthOutcome } from './identify.js';

function endpoint(name: string, extra: Partial<SipEndpointConfig> = {}): SipEndpointConfig {
  return {
    name,
    context: 'default',
    codecs: ['PCMU'],
    aors: [name],
    mailboxes: [],
    dtmfMode: 'rfc4733',
    forceRport: false,
    rewriteContact: false,
    rtpSymmetric: false,
    directMedia: false,
    ...extra,
  };
}

const LOCAL = endpoint('local-phone', { identifyBy: ['ip'] });
const ALICE = endpoint('1001', {
  auth: '1001-auth',
  acl: [
    { action: 'deny', range: '0.0.0.0/0' },
    { action: 'permit', range: '127.0.0.0/8' },
  ],
});
const TRUNK = endpoint('trunk', { identifyBy: ['header'] });
const NOPASS = endpoint('nopass');
const AUTHS: SipAuthConfig[] = [{ name: '1001-auth', authType: 'userpass', username: '1001', password: 'secret' }];

function request(fromUser: string, headers: string[] = []): SipRequest {
  const lines = [
    'REGISTER sip:127.0.0.1 SIP/2.0',
    'Via: SIP/2.0/UDP 127.0.0.1:5062;branch=z9hG4bKr1',
    `From: <sip:${fromUser}@127.0.0.1>;tag=a`,
    `To: <sip:${fromUser}@127.0.0.1>`,
    'Call-ID: reg1',
    'CSeq: 1 REGISTER',
    'Contact: <sip:x@127.0.0.1:5062>',
    ...headers,
    'Content-Length: 0',
    '',
    '',
  ];
  return parseMessage(Buffer.from(lines.join('\r\n'))) as SipRequest;
}

function identifier(order: ('ip' | 'username' | 'auth_username' | 'header' | 'anonymous')[]) {
  const endpoints = [LOCAL, ALICE, TRUNK, NOPASS];
  const digest = new DigestAuthenticator({ endpoints, auths: AUTHS, clock: new FakeClock(), logger: silentLogger });
  return new EndpointIdentifier({
    order,
    identifies: [
      { name: 'local', endpoint: 'local-phone', match: ['127.0.0.1', '::1'] },
      { name: 'trunk', endpoint: 'trunk', match: [], matchHeader: { name: 'X-Provider', value: 'acme' } },
    ],
    endpoints,
    digest,
    log: silentLogger,
  });
}

const FROM_HERE = { address: '127.0.0.1', port: 5062 };

function accepted(outcome: AuthOutcome): string | undefined {
  return outcome.kind === 'accept' ? outcome.endpoint.name : undefined;
}

describe('EndpointIdentifier', () => {
  it('with ip first, an address match wins even for a phone with credentials (the original default)', async () => {
    const id = identifier(['ip', 'username', 'anonymous']);
    assert.equal(accepted(await id.authenticate(request('1001'), FROM_HERE)), 'local-phone');
  });

  it('with username first, a phone registering from an identified address is challenged as itself and accepted with its password', async () => {
    const id = identifier(['username', 'ip', 'anonymous']);
    const challenge = await id.authenticate(request('1001'), FROM_HERE);
    assert.equal(challenge.kind, 'reject');
    assert.equal(challenge.kind === 'reject' && challenge.status, 401);
    const header = challenge.kind === 'reject' ? challenge.headers?.[0]?.[1] : undefined;
    assert.ok(header);
    const authorization = answerChallenge(header, { method: 'REGISTER', uri: 'sip:127.0.0.1' }, { username: '1001', password: 'secret' });
    assert.ok(authorization);
    assert.equal(accepted(await id.authenticate(request('1001', [`Authorization: ${authorization}`]), FROM_HERE)), '1001');
    // Someone else from the same address is still the local phone.
    assert.equal(accepted(await id.authenticate(request('sipp'), FROM_HERE)), 'local-phone');
  });

  it('never picks an endpoint without a password by the From user', async () => {
    const id = identifier(['username', 'ip']);
    const outcome = await id.authenticate(request('nopass'), { address: '192.0.2.9', port: 5060 });
    assert.equal(outcome.kind, 'reject');
  });

  it('refuses an address outside the endpoint ACL with 403', async () => {
    const id = identifier(['username', 'ip']);
    const outcome = await id.authenticate(request('1001'), { address: '192.0.2.9', port: 5060 });
    assert.deepEqual(outcome, { kind: 'reject', status: 403 });
  });

  it('identifies by header only for endpoints with identify_by = header, and anonymous only when such an endpoint exists', async () => {
    const id = identifier(['header', 'anonymous']);
    assert.equal(
      accepted(await id.authenticate(request('whoever', ['X-Provider: acme']), { address: '198.51.100.1', port: 5060 })),
      'trunk',
    );
    const stranger = await id.authenticate(request('whoever'), { address: '198.51.100.1', port: 5060 });
    assert.equal(stranger.kind, 'reject');
  });
});
