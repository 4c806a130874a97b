/**
 * SIP over WebSocket (RFC 7118) through the driver on loopback: the `sip` subprotocol is required,
 * one SIP message per WebSocket message, and a client registered over WebSocket is called on the
 * connection it opened (its Contact host is `.invalid`).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { ChannelDriverHost, ChannelTechnologyEvents, SipConfig } from '@switchboard/core';
import WebSocket from 'ws';
import { SipDriver } from '../driver/sip-driver.js';
import { parseMessage } from '../message/parser.js';
import type { SipMessage, SipRequest } from '../message/sip-message.js';
import { FakeClock } from '../test-support/fake-clock.js';

const host: ChannelDriverHost = {
  acceptInbound: (): ChannelTechnologyEvents => ({ answered: () => {}, ringing: () => {}, hungUp: () => {} }),
};
const media = {
  createLeg: async () => ({ legId: 'leg-1', localAddress: '127.0.0.1', localPort: 40000 }),
  setLegRemote: async () => {},
  destroyLeg: async () => {},
};

const CONFIG: SipConfig = {
  transports: [{ name: 'ws', protocol: 'ws', bindAddress: '127.0.0.1', bindPort: 0 }],
  endpoints: [
    {
      name: 'webphone',
      context: 'default',
      codecs: ['PCMU'],
      aors: ['webphone'],
      mailboxes: [],
      dtmfMode: 'rfc4733',
      forceRport: false,
      rewriteContact: false,
      rtpSymmetric: true,
      directMedia: false,
    },
  ],
  identifies: [{ name: 'local', endpoint: 'webphone', match: ['127.0.0.1'] }],
  aors: [
    {
      name: 'webphone',
      maxContacts: 1,
      removeExisting: true,
      defaultExpiration: 600,
      minimumExpiration: 60,
      maximumExpiration: 3600,
      qualifyFrequency: 0,
      contacts: [],
    },
  ],
  auths: [],
};

class WsPeer {
  readonly socket: WebSocket;
  readonly inbox: SipMessage[] = [];
  constructor(socket: WebSocket) {
    this.socket = socket;
    socket.on('message', (data) => this.inbox.push(parseMessage(Buffer.from(data.toString()))));
  }
  static open(port: number, protocol = 'sip'): Promise<WsPeer> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(`ws://127.0.0.1:${port}`, protocol);
      socket.once('open', () => resolve(new WsPeer(socket)));
      socket.once('error', reject);
    });
  }
  async expect(match: (m: SipMessage) => boolean, what: string): Promise<SipMessage> {
    const deadline = Date.now() + 2000;
    for (;;) {
      const index = this.inbox.findIndex(match);
      if (index !== -1) return this.inbox.splice(index, 1)[0];
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 5));
    }
  }
}

describe('SipDriver over WebSocket', { timeout: 20_000 }, () => {
  let driver: SipDriver;
  let port: number;

  before(async () => {
    driver = new SipDriver({ config: CONFIG, host, media, clock: new FakeClock() });
    await driver.start();
    const [listening] = driver.listening();
    assert.equal(listening.protocol, 'ws');
    port = listening.port;
  });
  after(async () => {
    await driver.close();
  });

  it('refuses a handshake without the sip subprotocol', async () => {
    await assert.rejects(WsPeer.open(port, 'chat'));
  });

  it('registers over WebSocket and is called on that connection', async () => {
    const peer = await WsPeer.open(port);
    try {
      peer.socket.send(
        [
          'REGISTER sip:127.0.0.1 SIP/2.0',
          'Via: SIP/2.0/WS df7jal23ls0d.invalid;branch=z9hG4bKws1',
          'Max-Forwards: 70',
          'From: <sip:webphone@127.0.0.1>;tag=w1',
          'To: <sip:webphone@127.0.0.1>',
          'Call-ID: ws-reg@127.0.0.1',
          'CSeq: 1 REGISTER',
          'Contact: <sip:h7kjh12s@df7jal23ls0d.invalid;transport=ws>',
          'Content-Length: 0',
          '',
          '',
        ].join('\r\n'),
      );
      const ok = await peer.expect((m) => m.type === 'response' && m.status === 200, '200 to REGISTER');
      assert.match(ok.getHeader('Contact') ?? '', /\.invalid;transport=ws>;expires=600/);
      const call = driver.prepareOutbound({ resource: 'webphone', caller: { name: '', number: '100' }, variables: {} });
      await call.dial({ answered: () => {}, ringing: () => {}, hungUp: () => {} }, { timeoutSeconds: 10 });
      const invite = (await peer.expect((m) => m.type === 'request' && m.method === 'INVITE', 'INVITE')) as SipRequest;
      assert.equal(invite.requestUri, 'sip:h7kjh12s@df7jal23ls0d.invalid;transport=ws');
      assert.equal(invite.topVia.transport, 'WS');
      assert.match(invite.getHeader('Contact') ?? '', /;transport=ws>/);
      await call.tech.hangup(16);
    } finally {
      peer.socket.close();
    }
  });
});
