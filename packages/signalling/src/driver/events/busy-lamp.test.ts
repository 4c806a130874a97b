/**
 * Busy lamps through dialplan hints over real UDP loopback sockets: a dialog or presence SUBSCRIBE
 * for an extension with a hint follows the combined state of the hint's devices; without a hint an
 * endpoint name still means its own device.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { ChannelDriverHost, CreateLegRequest, MediaLegInfo, SipConfig, SipEndpointConfig } from '@switchboard/core';
import type { SipRequest } from '../../message/sip-message.js';
import { FakeClock } from '../../test-support/fake-clock.js';
import { UdpPeer } from '../../test-support/udp-peer.js';
import type { SipMediaEngine } from '../calls/inbound-call.js';
import { computeDigestResponse, parseDigestCredentials } from '../auth/digest.js';
import { SipDriver } from '../sip-driver.js';

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

function endpoint(name: string): SipEndpointConfig {
  return {
    name,
    context: 'phones',
    codecs: ['PCMU'],
    aors: [],
    mailboxes: [],
    dtmfMode: 'rfc4733',
    forceRport: true,
    rewriteContact: true,
    rtpSymmetric: true,
    directMedia: false,
  };
}

function config(): SipConfig {
  return {
    transports: [{ name: 'udp', protocol: 'udp', bindAddress: '127.0.0.1', bindPort: 0 }],
    endpoints: [endpoint('alice'), { ...endpoint('bob'), context: 'from-bob', subscribeContext: 'phones', outboundAuth: 'bob-out' }],
    identifies: [{ name: 'bob', endpoint: 'bob', match: ['127.0.0.1'] }],
    aors: [],
    auths: [{ name: 'bob-out', authType: 'userpass', username: 'pbx', password: 'lamp-secret' }],
  };
}

let sequence = 0;

function subscribe(peer: UdpPeer, exten: string, event: 'dialog' | 'presence'): string {
  sequence++;
  return [
    `SUBSCRIBE sip:${exten}@127.0.0.1 SIP/2.0`,
    `Via: SIP/2.0/UDP 127.0.0.1:${peer.port};branch=z9hG4bKblf${sequence};rport`,
    'Max-Forwards: 70',
    `From: <sip:bob@127.0.0.1>;tag=b${sequence}`,
    `To: <sip:${exten}@127.0.0.1>`,
    `Call-ID: blf-${sequence}@127.0.0.1`,
    'CSeq: 1 SUBSCRIBE',
    `Contact: <sip:bob@127.0.0.1:${peer.port}>`,
    `Event: ${event}`,
    'Expires: 600',
    'Content-Length: 0',
    '',
    '',
  ].join('\r\n');
}

function ok(peer: UdpPeer, request: SipRequest, serverPort: number): Promise<void> {
  return peer.send(
    [
      'SIP/2.0 200 OK',
      ...request.getHeaderFields('Via').map((v) => `Via: ${v}`),
      `From: ${request.getHeader('From')}`,
      `To: ${request.getHeader('To')}`,
      `Call-ID: ${request.callId}`,
      `CSeq: ${request.getHeader('CSeq')}`,
      'Content-Length: 0',
      '',
      '',
    ].join('\r\n'),
    serverPort,
  );
}

describe('busy lamps through dialplan hints', { timeout: 20_000 }, () => {
  let driver: SipDriver;
  let phone: UdpPeer;
  let port: number;
  let clock: FakeClock;
  const states = new Map<string, string>();
  let changed: (device: string, state: string) => void = () => {};
  const hints: Record<string, string[]> = { '101': ['PJSIP/alice', 'App:desk'] };

  const nextNotify = async (what: string): Promise<SipRequest> => {
    const notify = (await phone.expect((m) => m.type === 'request' && m.method === 'NOTIFY', what)) as SipRequest;
    await ok(phone, notify, port);
    return notify;
  };
  const set = (device: string, state: string) => {
    states.set(device, state);
    changed(device, state);
  };

  beforeEach(async () => {
    clock = new FakeClock(Date.UTC(2026, 0, 1));
    states.clear();
    states.set('SIP/alice', 'NOT_INUSE');
    states.set('App:desk', 'NOT_INUSE');
    states.set('SIP/bob', 'INUSE');
    driver = new SipDriver({
      config: config(),
      host,
      media,
      clock,
      presence: {
        deviceStates: {
          get: async (device) => states.get(device),
          onChange: (listener) => {
            changed = listener;
            return () => {};
          },
        },
        hints: { devicesFor: (context, exten) => (context === 'phones' ? hints[exten] : undefined) },
      },
    });
    await driver.start();
    port = driver.listening()[0].port;
    phone = await UdpPeer.open();
  });

  afterEach(async () => {
    const closing = driver.close();
    clock.advance(5000);
    await closing;
    await phone.close();
  });

  it('a dialog subscription to a hinted extension follows the combined state of its devices', async () => {
    await phone.send(subscribe(phone, '101', 'dialog'), port);
    await phone.expectResponse(200, 'SUBSCRIBE');
    const idle = await nextNotify('the initial NOTIFY');
    assert.equal(idle.getHeader('Event'), 'dialog');
    assert.doesNotMatch(idle.bodyText, /<dialog /, 'both devices idle: no dialog');
    assert.match(idle.bodyText, /entity="sip:101@127\.0\.0\.1"/);

    set('App:desk', 'INUSE');
    assert.match((await nextNotify('in use')).bodyText, /<state>confirmed<\/state>/);
    // alice rings while the desk is in use: RINGINUSE, shown as early (ringing) on the lamp.
    set('SIP/alice', 'RINGING');
    assert.match((await nextNotify('ringing in use')).bodyText, /<state>early<\/state>/);
    set('App:desk', 'NOT_INUSE');
    set('SIP/alice', 'NOT_INUSE');
    await nextNotify('desk free');
    assert.doesNotMatch((await nextNotify('all free')).bodyText, /<dialog /);
    // A device outside the hint changes nothing.
    set('SIP/bob', 'NOT_INUSE');
    await phone.expectNothing((m) => m.type === 'request' && m.method === 'NOTIFY', 150);
  });

  it('answers a phone that challenges a NOTIFY with its outbound_auth, in the next NOTIFY of the dialog', async () => {
    await phone.send(subscribe(phone, '101', 'dialog'), port);
    await phone.expectResponse(200, 'SUBSCRIBE');
    const notify = (await phone.expect((m) => m.type === 'request' && m.method === 'NOTIFY', 'NOTIFY')) as SipRequest;
    await phone.send(
      [
        'SIP/2.0 401 Unauthorized',
        ...notify.getHeaderFields('Via').map((v) => `Via: ${v}`),
        `From: ${notify.getHeader('From')}`,
        `To: ${notify.getHeader('To')}`,
        `Call-ID: ${notify.callId}`,
        `CSeq: ${notify.getHeader('CSeq')}`,
        'WWW-Authenticate: Digest realm="phone", nonce="p1", algorithm=MD5',
        'Content-Length: 0',
        '',
        '',
      ].join('\r\n'),
      port,
    );
    const again = await nextNotify('the NOTIFY with credentials');
    assert.equal(again.callId, notify.callId);
    assert.equal(again.cseq.seq, notify.cseq.seq + 1);
    const credentials = parseDigestCredentials(again.getHeader('Authorization') ?? '');
    assert.ok(credentials);
    assert.equal(credentials.response, computeDigestResponse({ ...credentials, password: 'lamp-secret', method: 'NOTIFY' }));
  });

  it('presence for a hinted extension, and an endpoint without a hint as before', async () => {
    set('App:desk', 'UNAVAILABLE');
    set('SIP/alice', 'UNAVAILABLE');
    await phone.send(subscribe(phone, '101', 'presence'), port);
    await phone.expectResponse(200, 'SUBSCRIBE');
    assert.match((await nextNotify('presence')).bodyText, /<basic>closed<\/basic>/);

    await phone.send(subscribe(phone, 'bob', 'dialog'), port);
    await phone.expectResponse(200, 'SUBSCRIBE');
    assert.match((await nextNotify('bob')).bodyText, /<state>confirmed<\/state>/);

    await phone.send(subscribe(phone, '102', 'dialog'), port);
    await phone.expectResponse(404, 'SUBSCRIBE');
  });
});
