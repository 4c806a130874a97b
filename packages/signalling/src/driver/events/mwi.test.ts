/**
 * Unsolicited message waiting (RFC 3842 §5, as Asterisk sends it) over real UDP loopback sockets:
 * a phone whose endpoint has `mailboxes=` gets a message-summary NOTIFY when it registers and when a
 * mailbox changes, unless it holds a message-summary subscription.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { ChannelDriverHost, CreateLegRequest, MediaLegInfo, SipConfig } from '@switchboard/core';
import type { SipRequest } from '../../message/sip-message.js';
import { FakeClock } from '../../test-support/fake-clock.js';
import { UdpPeer } from '../../test-support/udp-peer.js';
import type { SipMediaEngine } from '../calls/inbound-call.js';
import { SipDriver } from '../sip-driver.js';
import type { MailboxCounts } from './subscriptions.js';

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

function config(): SipConfig {
  const endpoint = {
    context: 'default',
    codecs: ['PCMU' as const],
    dtmfMode: 'rfc4733' as const,
    forceRport: true,
    rewriteContact: true,
    rtpSymmetric: true,
    directMedia: false,
  };
  const aor = {
    maxContacts: 1,
    removeExisting: true,
    defaultExpiration: 600,
    minimumExpiration: 60,
    maximumExpiration: 7200,
    qualifyFrequency: 0,
    contacts: [],
  };
  return {
    transports: [{ name: 'udp', protocol: 'udp', bindAddress: '127.0.0.1', bindPort: 0 }],
    endpoints: [{ name: 'dave', aors: ['dave'], mailboxes: ['dave-vm', 'shared-vm'], ...endpoint }],
    identifies: [{ name: 'dave', endpoint: 'dave', match: ['127.0.0.1'] }],
    aors: [{ name: 'dave', ...aor }],
    auths: [],
  };
}

let sequence = 0;

function register(peer: UdpPeer, user: string): string {
  sequence++;
  return [
    'REGISTER sip:127.0.0.1 SIP/2.0',
    `Via: SIP/2.0/UDP 127.0.0.1:${peer.port};branch=z9hG4bKmwi${sequence};rport`,
    'Max-Forwards: 70',
    `From: <sip:${user}@127.0.0.1>;tag=r${sequence}`,
    `To: <sip:${user}@127.0.0.1>`,
    `Call-ID: mwi-reg-${sequence}@127.0.0.1`,
    `CSeq: ${sequence} REGISTER`,
    `Contact: <sip:${user}@127.0.0.1:${peer.port}>`,
    'Expires: 600',
    'Content-Length: 0',
    '',
    '',
  ].join('\r\n');
}

function subscribe(peer: UdpPeer): string {
  sequence++;
  return [
    'SUBSCRIBE sip:dave@127.0.0.1 SIP/2.0',
    `Via: SIP/2.0/UDP 127.0.0.1:${peer.port};branch=z9hG4bKmwis${sequence};rport`,
    'Max-Forwards: 70',
    `From: <sip:dave@127.0.0.1>;tag=s${sequence}`,
    'To: <sip:dave@127.0.0.1>',
    `Call-ID: mwi-sub-${sequence}@127.0.0.1`,
    'CSeq: 1 SUBSCRIBE',
    `Contact: <sip:dave@127.0.0.1:${peer.port}>`,
    'Event: message-summary',
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
      `To: ${request.getHeader('To')};tag=phone`,
      `Call-ID: ${request.callId}`,
      `CSeq: ${request.getHeader('CSeq')}`,
      'Content-Length: 0',
      '',
      '',
    ].join('\r\n'),
    serverPort,
  );
}

describe('unsolicited MWI', { timeout: 20_000 }, () => {
  let driver: SipDriver;
  let phone: UdpPeer;
  let port: number;
  let clock: FakeClock;
  const boxes = new Map<string, MailboxCounts>();
  let changed: (name: string) => void = () => {};

  const isNotify = (m: { type: string; method?: string }) => m.type === 'request' && m.method === 'NOTIFY';

  beforeEach(async () => {
    clock = new FakeClock(Date.UTC(2026, 0, 1));
    boxes.clear();
    boxes.set('dave-vm', { newMessages: 2, oldMessages: 5 });
    boxes.set('shared-vm', { newMessages: 1, oldMessages: 0 });
    driver = new SipDriver({
      config: config(),
      host,
      media,
      clock,
      presence: {
        mailboxes: {
          get: async (name) => boxes.get(name),
          onMailboxChanged: (listener) => {
            changed = listener;
            return () => {};
          },
        },
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

  it('sends the current counts to a phone that registers, and again when a mailbox changes', async () => {
    await phone.send(register(phone, 'dave'), port);
    await phone.expectResponse(200, 'REGISTER');
    const notify = (await phone.expect(isNotify, 'NOTIFY at registration')) as SipRequest;
    assert.equal(notify.getHeader('Event'), 'message-summary');
    assert.equal(notify.getHeader('Subscription-State'), 'active');
    assert.equal(notify.contentType, 'application/simple-message-summary');
    assert.match(notify.bodyText, /^Messages-Waiting: yes\r\n/);
    assert.match(notify.bodyText, /Voice-Message: 3\/5 \(0\/0\)/, 'both mailboxes counted');
    assert.equal(notify.requestUri, `sip:dave@127.0.0.1:${phone.port}`);
    await ok(phone, notify, port);

    // A refresh of the same binding is not a new contact: no NOTIFY.
    await phone.send(register(phone, 'dave'), port);
    await phone.expectResponse(200, 'REGISTER');
    await phone.expectNothing(isNotify, 200);

    boxes.set('dave-vm', { newMessages: 0, oldMessages: 7 });
    boxes.set('shared-vm', { newMessages: 0, oldMessages: 0 });
    changed('dave-vm');
    const update = (await phone.expect(isNotify, 'NOTIFY on change')) as SipRequest;
    assert.match(update.bodyText, /^Messages-Waiting: no\r\n/);
    assert.match(update.bodyText, /Voice-Message: 0\/7/);
    await ok(phone, update, port);
  });

  it('sends nothing at registration to a phone that holds a message-summary subscription', async () => {
    await phone.send(subscribe(phone), port);
    await phone.expectResponse(200, 'SUBSCRIBE');
    const initial = (await phone.expect(isNotify, 'the subscription NOTIFY')) as SipRequest;
    assert.match(initial.getHeader('Subscription-State') ?? '', /^active;expires=/);
    await ok(phone, initial, port);
    await phone.send(register(phone, 'dave'), port);
    await phone.expectResponse(200, 'REGISTER');
    await phone.expectNothing(isNotify, 200);
  });
});
