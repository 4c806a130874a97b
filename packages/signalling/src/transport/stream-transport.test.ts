/**
 * TCP and TLS: framing by Content-Length, and the driver over real stream sockets on loopback —
 * answers on the request's connection, a phone registered over TCP called back on its own
 * connection, keep-alive pongs, malformed input, TLS with a self-signed certificate made by openssl.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import type { ChannelDriverHost, ChannelTechnologyEvents, SipConfig, SipEndpointConfig } from '@switchboard/core';
import { SipParseError } from '../errors.js';
import type { SipRequest } from '../message/sip-message.js';
import { SipDriver } from '../driver/sip-driver.js';
import { FakeClock } from '../test-support/fake-clock.js';
import { StreamPeer } from '../test-support/stream-peer.js';
import { StreamFramer } from './stream-framer.js';

const OPTIONS = (port: number, branch: string, extra = '') =>
  [
    'OPTIONS sip:127.0.0.1 SIP/2.0',
    `Via: SIP/2.0/TCP 127.0.0.1:${port};branch=${branch}`,
    'Max-Forwards: 70',
    'From: <sip:alice@127.0.0.1>;tag=o1',
    'To: <sip:127.0.0.1>',
    `Call-ID: ${branch}@127.0.0.1`,
    'CSeq: 1 OPTIONS',
    extra,
    'Content-Length: 0',
    '',
    '',
  ]
    .filter((line, i, all) => line !== '' || i >= all.length - 2)
    .join('\r\n');

describe('StreamFramer', () => {
  it('frames messages split across chunks and several in one chunk, and reports pings', () => {
    const framer = new StreamFramer(65535);
    const body = 'v=0\r\n';
    const one = `MESSAGE sip:a SIP/2.0\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
    const text = `\r\n\r\n${one}${one}`;
    const out = [
      ...framer.push(Buffer.from(text.slice(0, 30))),
      ...framer.push(Buffer.from(text.slice(30, 50))),
      ...framer.push(Buffer.from(text.slice(50))),
    ];
    assert.deepEqual(
      out.map((o) => (o.kind === 'ping' ? 'ping' : o.data.toString())),
      ['ping', one, one],
    );
    assert.equal(framer.buffered, 0);
    // Compact form and a body still to come.
    assert.deepEqual(framer.push(Buffer.from('SIP/2.0 200 OK\r\nl: 4\r\n\r\nab')), []);
    assert.equal(framer.push(Buffer.from('cd'))[0]?.kind, 'message');
  });

  it('refuses a header section or a body beyond the limit', () => {
    assert.throws(() => new StreamFramer(100).push(Buffer.from('A'.repeat(101))), SipParseError);
    assert.throws(() => new StreamFramer(100).push(Buffer.from('X sip:a SIP/2.0\r\nContent-Length: 1000\r\n\r\n')), SipParseError);
  });
});

const ALICE: SipEndpointConfig = {
  name: 'alice',
  context: 'default',
  codecs: ['PCMU'],
  aors: ['alice'],
  mailboxes: [],
  dtmfMode: 'rfc4733',
  forceRport: true,
  rewriteContact: true,
  rtpSymmetric: true,
  directMedia: false,
};

const host: ChannelDriverHost = {
  acceptInbound: (): ChannelTechnologyEvents => ({ answered: () => {}, ringing: () => {}, hungUp: () => {} }),
};

const media = {
  createLeg: async () => ({ legId: 'leg-1', localAddress: '127.0.0.1', localPort: 40000 }),
  setLegRemote: async () => {},
  destroyLeg: async () => {},
};

function config(transports: SipConfig['transports']): SipConfig {
  return {
    transports,
    endpoints: [ALICE],
    identifies: [{ name: 'local', endpoint: 'alice', match: ['127.0.0.1'] }],
    aors: [
      {
        name: 'alice',
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
}

describe('SipDriver over TCP', { timeout: 20_000 }, () => {
  let driver: SipDriver;
  let port: number;
  let peer: StreamPeer;

  before(async () => {
    driver = new SipDriver({
      config: config([{ name: 'tcp', protocol: 'tcp', bindAddress: '127.0.0.1', bindPort: 0 }]),
      host,
      media,
      clock: new FakeClock(),
    });
    await driver.start();
    const [listening] = driver.listening();
    assert.equal(listening.protocol, 'tcp');
    port = listening.port;
  });

  afterEach(() => peer?.close());
  after(async () => {
    await driver.close();
  });

  it('answers on the connection the request came in on, and pongs a keep-alive', async () => {
    peer = await StreamPeer.open(port);
    // The Via names a port nobody listens on: only the connection itself can carry the answer.
    peer.send(OPTIONS(9, 'z9hG4bKtcp1'));
    const ok = await peer.expect((m) => m.type === 'response' && m.status === 200, '200 to OPTIONS');
    assert.match(ok.getHeader('Allow') ?? '', /REGISTER/);
    peer.send('\r\n\r\n');
    const deadline = Date.now() + 2000;
    while (peer.pongs === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    assert.equal(peer.pongs, 1);
  });

  it('answers a malformed request with 400 on the connection', async () => {
    peer = await StreamPeer.open(port);
    peer.send(OPTIONS(9, 'z9hG4bKtcp2', 'Bad Header Line'));
    const bad = await peer.expect((m) => m.type === 'response' && m.status === 400, '400');
    assert.match(bad.getHeader('Warning') ?? '', /colon/);
  });

  it('calls a phone registered over TCP on its own connection', async () => {
    peer = await StreamPeer.open(port);
    peer.send(
      [
        'REGISTER sip:127.0.0.1 SIP/2.0',
        'Via: SIP/2.0/TCP 127.0.0.1:9;branch=z9hG4bKreg1',
        'Max-Forwards: 70',
        'From: <sip:alice@127.0.0.1>;tag=r1',
        'To: <sip:alice@127.0.0.1>',
        'Call-ID: tcp-reg@127.0.0.1',
        'CSeq: 1 REGISTER',
        'Contact: <sip:alice@127.0.0.1:9;transport=tcp>',
        'Content-Length: 0',
        '',
        '',
      ].join('\r\n'),
    );
    await peer.expect((m) => m.type === 'response' && m.status === 200, '200 to REGISTER');
    const call = driver.prepareOutbound({ resource: 'alice', caller: { name: '', number: '100' }, variables: {} });
    const answered: string[] = [];
    await call.dial({ answered: () => answered.push('answered'), ringing: () => {}, hungUp: () => {} }, { timeoutSeconds: 10 });
    const invite = (await peer.expect((m) => m.type === 'request' && m.method === 'INVITE', 'INVITE')) as SipRequest;
    assert.equal(invite.topVia.transport, 'TCP');
    assert.match(invite.getHeader('Contact') ?? '', /;transport=tcp>/);
    peer.send(
      [
        'SIP/2.0 200 OK',
        ...invite.getHeaderFields('Via').map((v) => `Via: ${v}`),
        `From: ${invite.getHeader('From')}`,
        `To: ${invite.getHeader('To')};tag=callee`,
        `Call-ID: ${invite.callId}`,
        `CSeq: ${invite.getHeader('CSeq')}`,
        'Contact: <sip:alice@127.0.0.1:9;transport=tcp>',
        'Content-Type: application/sdp',
        `Content-Length: ${Buffer.byteLength(SDP)}`,
        '',
        SDP,
      ].join('\r\n'),
    );
    await peer.expect((m) => m.type === 'request' && m.method === 'ACK', 'ACK');
    assert.deepEqual(answered, ['answered']);
    await call.tech.hangup(16);
    await peer.expect((m) => m.type === 'request' && m.method === 'BYE', 'BYE');
  });
});

const SDP = [
  'v=0',
  'o=- 1 1 IN IP4 127.0.0.1',
  's=-',
  'c=IN IP4 127.0.0.1',
  't=0 0',
  'm=audio 50000 RTP/AVP 0',
  'a=rtpmap:0 PCMU/8000',
  '',
].join('\r\n');

// The certificate is made with openssl (node:crypto cannot make an X.509 certificate);
// scripts/ensure-tools.mjs installs it before the tests run.
describe('SipDriver over TLS', { timeout: 20_000 }, () => {
  let dir: string;
  let driver: SipDriver;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sip-tls-'));
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
        '-days',
        '1',
        '-subj',
        '/CN=localhost',
      ],
      { stdio: 'ignore' },
    );
    driver = new SipDriver({
      config: config([
        {
          name: 'tls',
          protocol: 'tls',
          bindAddress: '127.0.0.1',
          bindPort: 0,
          certFile: join(dir, 'cert.pem'),
          privKeyFile: join(dir, 'key.pem'),
        },
      ]),
      host,
      media,
      clock: new FakeClock(),
    });
    await driver.start();
  });

  after(async () => {
    await driver.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers OPTIONS over TLS', async () => {
    const [listening] = driver.listening();
    assert.equal(listening.protocol, 'tls');
    const peer = await StreamPeer.open(listening.port, true);
    try {
      peer.send(OPTIONS(9, 'z9hG4bKtls1').replace('SIP/2.0/TCP', 'SIP/2.0/TLS'));
      await peer.expect((m) => m.type === 'response' && m.status === 200, '200 to OPTIONS');
    } finally {
      peer.close();
    }
  });

  it('refuses to start a TLS transport without its certificate', async () => {
    const broken = new SipDriver({
      config: config([{ name: 'tls', protocol: 'tls', bindAddress: '127.0.0.1', bindPort: 0 }]),
      host,
      media,
    });
    await assert.rejects(broken.start(), /cert_file/);
    await broken.close();
  });
});
