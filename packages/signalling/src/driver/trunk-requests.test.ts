/**
 * Requests to a trunk that challenges them (`outbound_auth`), over real UDP loopback sockets: a
 * MESSAGE answered 407 goes again with Proxy-Authorization, and the `number@trunk` dial form
 * reaches the trunk's contact with the number.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { ChannelDriverHost, CreateLegRequest, MediaLegInfo, SipConfig, SipEndpointConfig } from '@switchboard/core';
import type { SipRequest } from '../message/sip-message.js';
import { FakeClock } from '../test-support/fake-clock.js';
import { UdpPeer } from '../test-support/udp-peer.js';
import { computeDigestResponse, parseDigestCredentials } from './auth/digest.js';
import type { SipMediaEngine } from './calls/inbound-call.js';
import { SipDriver } from './sip-driver.js';

const media: SipMediaEngine = {
  createLeg: async (request: CreateLegRequest): Promise<MediaLegInfo> => ({
    legId: 'leg',
    localAddress: request.bindAddress,
    localPort: 40000,
  }),
  setLegRemote: async () => {},
  destroyLeg: async () => {},
};

const host: ChannelDriverHost = { acceptInbound: () => ({ answered: () => {}, ringing: () => {}, hungUp: () => {} }) };

const trunk: SipEndpointConfig = {
  name: 'trunk',
  context: 'default',
  codecs: ['PCMU'],
  aors: ['trunk'],
  mailboxes: [],
  dtmfMode: 'rfc4733',
  forceRport: false,
  rewriteContact: false,
  rtpSymmetric: false,
  directMedia: false,
  outboundAuth: 'trunk-auth',
};

describe('requests to a challenging trunk', { timeout: 20_000 }, () => {
  let clock: FakeClock;
  let provider: UdpPeer;
  let driver: SipDriver;
  let port = 0;

  beforeEach(async () => {
    clock = new FakeClock(Date.UTC(2026, 0, 1));
    provider = await UdpPeer.open();
    const aor = {
      maxContacts: 0,
      removeExisting: false,
      defaultExpiration: 3600,
      minimumExpiration: 60,
      maximumExpiration: 7200,
      qualifyFrequency: 0,
    };
    const config: SipConfig = {
      transports: [{ name: 'udp', protocol: 'udp', bindAddress: '127.0.0.1', bindPort: 0 }],
      endpoints: [trunk],
      identifies: [],
      aors: [{ name: 'trunk', ...aor, contacts: [`sip:127.0.0.1:${provider.port}`] }],
      auths: [{ name: 'trunk-auth', authType: 'userpass', username: 'acct', password: 'secret' }],
    };
    driver = new SipDriver({ config, host, media, clock });
    await driver.start();
    port = driver.listening()[0].port;
  });

  afterEach(async () => {
    const closing = driver.close();
    clock.advance(5000);
    await closing;
    await provider.close();
  });

  function respond(request: SipRequest, status: number, reason: string, headers: string[] = []): Promise<void> {
    return provider.send(
      [
        `SIP/2.0 ${status} ${reason}`,
        ...request.getHeaderFields('Via').map((v) => `Via: ${v}`),
        `From: ${request.getHeader('From')}`,
        `To: ${request.getHeader('To')};tag=prov`,
        `Call-ID: ${request.callId}`,
        `CSeq: ${request.getHeader('CSeq')}`,
        ...headers,
        'Content-Length: 0',
        '',
        '',
      ].join('\r\n'),
      port,
    );
  }

  it('answers a 407 to a MESSAGE with the outbound_auth credentials', async () => {
    const sending = driver.textMessageSender.send({
      technology: 'SIP',
      destination: 'trunk',
      to: 'pjsip:trunk',
      from: 'alice',
      body: 'hello',
      variables: {},
    });
    const first = (await provider.expect((m) => m.type === 'request' && m.method === 'MESSAGE', 'MESSAGE')) as SipRequest;
    await respond(first, 407, 'Proxy Authentication Required', [
      'Proxy-Authenticate: Digest realm="carrier", nonce="m1", algorithm=SHA-256, qop="auth"',
    ]);
    const second = (await provider.expect((m) => m.type === 'request' && m.method === 'MESSAGE', 'MESSAGE with credentials')) as SipRequest;
    assert.equal(second.callId, first.callId);
    assert.equal(second.cseq.seq, first.cseq.seq + 1);
    assert.equal(second.bodyText, 'hello');
    const credentials = parseDigestCredentials(second.getHeader('Proxy-Authorization') ?? '');
    assert.ok(credentials);
    assert.equal(credentials.algorithm, 'SHA-256');
    assert.equal(credentials.response, computeDigestResponse({ ...credentials, password: 'secret', method: 'MESSAGE' }));
    await respond(second, 202, 'Accepted');
    await sending;
  });

  it('dials number@trunk as trunk/number', async () => {
    const call = driver.prepareOutbound({ resource: '5551234@trunk', caller: { name: '', number: '200' }, variables: {} });
    assert.equal(call.endpoint, 'trunk');
    await call.dial({ answered: () => {}, ringing: () => {}, hungUp: () => {} }, { timeoutSeconds: 0 });
    const invite = (await provider.expect((m) => m.type === 'request' && m.method === 'INVITE', 'INVITE')) as SipRequest;
    assert.equal(invite.requestUri, `sip:5551234@127.0.0.1:${provider.port}`);
    await call.tech.hangup(16);
    assert.throws(
      () => driver.prepareOutbound({ resource: '5551234@nobody', caller: { name: '', number: '' }, variables: {} }),
      /does not exist/,
    );
  });
});
