/**
 * Outbound registration (`type=registration`) against a registrar on a real UDP loopback socket,
 * timers on a fake clock: challenge, refresh, 423, retry after failure, removal on shutdown.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { ChannelDriverHost, CreateLegRequest, InboundCall, MediaLegInfo, SipConfig, SipRegistrationConfig } from '@switchboard/core';
import type { SipRequest } from '../../message/sip-message.js';
import { FakeClock } from '../../test-support/fake-clock.js';
import { UdpPeer, waitFor } from '../../test-support/udp-peer.js';
import { computeDigestResponse, parseDigestCredentials } from '../auth/digest.js';
import type { SipMediaEngine } from '../calls/inbound-call.js';
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

const accepted: InboundCall[] = [];
const host: ChannelDriverHost = {
  acceptInbound: (call) => {
    accepted.push(call);
    return { answered: () => {}, ringing: () => {}, hungUp: () => {} };
  },
};

describe('outbound registration', { timeout: 20_000 }, () => {
  let clock: FakeClock;
  let registrar: UdpPeer;
  let driver: SipDriver | undefined;
  let serverPort = 0;

  function start(registration: Partial<SipRegistrationConfig>): Promise<void> {
    const config: SipConfig = {
      transports: [{ name: 'udp', protocol: 'udp', bindAddress: '127.0.0.1', bindPort: 0 }],
      endpoints: [
        {
          name: 'provider-trunk',
          context: 'from-provider',
          codecs: ['PCMU'],
          aors: [],
          mailboxes: [],
          dtmfMode: 'rfc4733',
          forceRport: false,
          rewriteContact: false,
          rtpSymmetric: false,
          directMedia: false,
        },
      ],
      identifies: [],
      aors: [],
      auths: [{ name: 'provider-auth', authType: 'userpass', username: 'acct', password: 'secret' }],
      registrations: [
        {
          name: 'provider',
          serverUri: `sip:127.0.0.1:${registrar.port}`,
          clientUri: 'sip:acct@provider.example',
          contactUser: '5551000',
          outboundAuth: 'provider-auth',
          expiration: 600,
          retryInterval: 30,
          forbiddenRetryInterval: 0,
          maxRetries: 10,
          ...registration,
        },
      ],
    };
    driver = new SipDriver({ config, host, media, clock });
    return driver.start().then(() => {
      serverPort = driver?.listening()[0].port ?? 0;
    });
  }

  const nextRegister = () => registrar.expect((m) => m.type === 'request' && m.method === 'REGISTER', 'REGISTER') as Promise<SipRequest>;

  /** Answers, then lets the driver read the answer before the test moves the fake clock on. */
  async function answer(request: SipRequest, status: number, reason: string, headers: string[] = []): Promise<void> {
    await registrar.send(
      [
        `SIP/2.0 ${status} ${reason}`,
        ...request.getHeaderFields('Via').map((v) => `Via: ${v}`),
        `From: ${request.getHeader('From')}`,
        `To: ${request.getHeader('To')};tag=reg`,
        `Call-ID: ${request.callId}`,
        `CSeq: ${request.getHeader('CSeq')}`,
        ...headers,
        'Content-Length: 0',
        '',
        '',
      ].join('\r\n'),
      serverPort,
    );
    await new Promise((resolve) => setTimeout(resolve, 30));
  }

  beforeEach(async () => {
    clock = new FakeClock(Date.UTC(2026, 0, 1));
    registrar = await UdpPeer.open();
  });

  afterEach(async () => {
    if (driver !== undefined) {
      const closing = driver.close();
      clock.advance(5000);
      await closing;
      driver = undefined;
    }
    await registrar.close();
  });

  it('registers with credentials, refreshes before expiry, heeds 423, retries after a failure and unregisters on close', async () => {
    await start({});
    const first = await nextRegister();
    assert.equal(first.requestUri, `sip:127.0.0.1:${registrar.port}`);
    assert.equal(first.getHeader('To'), '<sip:acct@provider.example>');
    assert.match(first.getHeader('From') ?? '', /^<sip:acct@provider\.example>;tag=/);
    assert.equal(first.getHeader('Contact'), `<sip:5551000@127.0.0.1:${serverPort}>`);
    assert.equal(first.getHeader('Expires'), '600');
    await answer(first, 401, 'Unauthorized', ['WWW-Authenticate: Digest realm="provider", nonce="abc", qop="auth", algorithm=MD5']);

    const authorized = await nextRegister();
    assert.equal(authorized.callId, first.callId);
    assert.equal(authorized.cseq.seq, first.cseq.seq + 1);
    const credentials = parseDigestCredentials(authorized.getHeader('Authorization') ?? '');
    assert.ok(credentials);
    assert.equal(credentials.username, 'acct');
    assert.equal(credentials.response, computeDigestResponse({ ...credentials, password: 'secret', method: 'REGISTER' }));
    await answer(authorized, 200, 'OK', [`Contact: <sip:5551000@127.0.0.1:${serverPort}>;expires=100`]);

    // Refreshed at 90% of the granted 100 s, in the same Call-ID with the next CSeq.
    clock.advance(89_000);
    await registrar.expectNothing((m) => m.type === 'request' && m.method === 'REGISTER', 50);
    clock.advance(1000);
    const refresh = await nextRegister();
    assert.equal(refresh.callId, first.callId);
    assert.equal(refresh.cseq.seq, authorized.cseq.seq + 1);
    await answer(refresh, 423, 'Interval Too Brief', ['Min-Expires: 900']);
    const longer = await nextRegister();
    assert.equal(longer.getHeader('Expires'), '900');
    await answer(longer, 503, 'Service Unavailable');

    clock.advance(29_000);
    await registrar.expectNothing((m) => m.type === 'request' && m.method === 'REGISTER', 50);
    clock.advance(1000);
    const retry = await nextRegister();
    await answer(retry, 200, 'OK', ['Expires: 900']);

    const closing = driver?.close();
    const removal = await nextRegister();
    assert.equal(removal.getHeader('Expires'), '0');
    await answer(removal, 200, 'OK');
    clock.advance(5000);
    await closing;
    driver = undefined;
  });

  it('line = yes: the Contact carries a line token, and an INVITE to it belongs to the registration endpoint', async () => {
    accepted.length = 0;
    await start({ line: true, endpoint: 'provider-trunk' });
    const first = await nextRegister();
    const contact = first.contacts[0]?.uri;
    assert.ok(contact !== undefined && contact.kind === 'sip');
    const token = contact.params.get('line');
    assert.ok(typeof token === 'string' && token.length >= 8, 'a line token');
    await answer(first, 200, 'OK', ['Expires: 600']);
    const offer =
      'v=0\r\no=- 1 1 IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\nm=audio 50000 RTP/AVP 0\r\na=rtpmap:0 PCMU/8000\r\n';
    const invite = (uri: string, callId: string) =>
      [
        `INVITE ${uri} SIP/2.0`,
        `Via: SIP/2.0/UDP 127.0.0.1:${registrar.port};branch=z9hG4bK${callId};rport`,
        'Max-Forwards: 70',
        'From: <sip:+15550100@provider.example>;tag=p1',
        'To: <sip:5551000@provider.example>',
        `Call-ID: ${callId}`,
        'CSeq: 1 INVITE',
        `Contact: <sip:provider@127.0.0.1:${registrar.port}>`,
        'Content-Type: application/sdp',
        `Content-Length: ${Buffer.byteLength(offer)}`,
        '',
        offer,
      ].join('\r\n');
    await registrar.send(invite(contact.toString(), 'line-call-1'), serverPort);
    await waitFor(() => accepted.length === 1, 'the call presented');
    assert.equal(accepted[0].endpoint, 'provider-trunk');
    assert.equal(accepted[0].context, 'from-provider');
    assert.equal(accepted[0].exten, '5551000');
    // Without the token (and with no identify) the provider is a stranger.
    await registrar.send(invite(`sip:5551000@127.0.0.1:${serverPort}`, 'line-call-2'), serverPort);
    await registrar.expectResponse(403, 'INVITE');
  });

  it('gives up after a 403 when forbidden_retry_interval is 0, and on wrong credentials answers only once per nonce', async () => {
    await start({});
    const first = await nextRegister();
    await answer(first, 401, 'Unauthorized', ['WWW-Authenticate: Digest realm="provider", nonce="n1", algorithm=MD5']);
    const second = await nextRegister();
    // The same nonce again: the credentials were refused; the attempt fails and waits retry_interval.
    await answer(second, 401, 'Unauthorized', ['WWW-Authenticate: Digest realm="provider", nonce="n1", algorithm=MD5']);
    await registrar.expectNothing((m) => m.type === 'request' && m.method === 'REGISTER', 100);
    clock.advance(30_000);
    const third = await nextRegister();
    await answer(third, 403, 'Forbidden');
    clock.advance(3_600_000);
    await registrar.expectNothing((m) => m.type === 'request' && m.method === 'REGISTER', 100);
  });
});
