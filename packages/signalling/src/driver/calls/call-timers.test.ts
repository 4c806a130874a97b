/**
 * Calls we place, over real UDP loopback sockets with a fake clock: early media in provisional
 * responses, session timers (RFC 4028: 422 and Min-SE, refresh by re-INVITE or UPDATE, expiry),
 * glare (RFC 3261 §14.1/§14.2: 491 both ways) and a codec change by the callee's re-INVITE; and
 * the session timer options on calls we answer.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type {
  ChannelDriverHost,
  ChannelTechnologyEvents,
  CreateLegRequest,
  InboundCall,
  LegRemote,
  MediaLegInfo,
  MediaNotification,
  SipEndpointConfig,
} from '@switchboard/core';
import { SDP_OFFER } from '../../message/parser.fixtures.js';
import type { SipRequest, SipResponse } from '../../message/sip-message.js';
import { FakeClock } from '../../test-support/fake-clock.js';
import { UdpPeer, waitFor } from '../../test-support/udp-peer.js';
import type { SipMediaEngine } from './inbound-call.js';
import { glareRetryDelayMs } from './reinvite-client.js';
import { SipDriver } from '../sip-driver.js';

class FakeMedia implements SipMediaEngine {
  remotes: LegRemote[] = [];
  /** Every setLegRtpTimeout, in order: [legId, seconds]. */
  rtpTimeouts: Array<[string, number]> = [];
  readonly #listeners = new Set<(n: MediaNotification) => void>();
  async setLegRtpTimeout(legId: string, seconds: number): Promise<void> {
    this.rtpTimeouts.push([legId, seconds]);
  }
  onNotification(listener: (n: MediaNotification) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
  notify(notification: MediaNotification): void {
    for (const listener of this.#listeners) listener(notification);
  }
  async createLeg(request: CreateLegRequest): Promise<MediaLegInfo> {
    if (request.remote !== undefined) this.remotes.push(request.remote);
    return { legId: 'leg-1', localAddress: request.bindAddress, localPort: 40000 };
  }
  async setLegRemote(_legId: string, remote: LegRemote): Promise<void> {
    this.remotes.push(remote);
  }
  async destroyLeg(): Promise<void> {}
}

class Events implements ChannelTechnologyEvents {
  log: string[] = [];
  answered(): void {
    this.log.push('answered');
  }
  ringing(): void {}
  hungUp(cause: number): void {
    this.log.push(`hungUp(${cause})`);
  }
}

/** Calls presented to core, so that a test can answer them. */
const accepted: InboundCall[] = [];
const host: ChannelDriverHost = {
  acceptInbound: (call: InboundCall) => {
    accepted.push(call);
    return { answered: () => {}, ringing: () => {}, hungUp: () => {} };
  },
};

const sdp = (port: number, codec: 'PCMU' | 'PCMA' = 'PCMU') =>
  SDP_OFFER.replace('m=audio 49170 RTP/AVP 0 8 101', `m=audio ${port} RTP/AVP ${codec === 'PCMU' ? 0 : 8} 101`)
    .replace(codec === 'PCMU' ? 'a=rtpmap:8 PCMA/8000\r\n' : 'a=rtpmap:0 PCMU/8000\r\n', '')
    .replace(/192\.0\.2\.10/g, '127.0.0.1');

function trunkEndpoint(extra: Partial<SipEndpointConfig>): SipEndpointConfig {
  return {
    name: 'trunk',
    context: 'default',
    codecs: ['PCMU', 'PCMA'],
    aors: ['trunk'],
    mailboxes: [],
    dtmfMode: 'rfc4733',
    forceRport: false,
    rewriteContact: false,
    rtpSymmetric: false,
    directMedia: false,
    ...extra,
  };
}

/** The far end of the call: answers what the driver sends and sends its own in-dialog requests. */
class Callee {
  readonly peer: UdpPeer;
  serverPort = 0;
  seq = 100;
  invite: SipRequest | undefined;

  constructor(peer: UdpPeer) {
    this.peer = peer;
  }

  expectRequest(method: string, timeoutMs?: number): Promise<SipRequest> {
    return this.peer.expect((m) => m.type === 'request' && m.method === method, method, timeoutMs) as Promise<SipRequest>;
  }

  respond(request: SipRequest, status: number, reason: string, options: { body?: string; headers?: string[] } = {}): Promise<void> {
    const body = options.body ?? '';
    const to = request.getHeader('To') ?? '';
    return this.peer.send(
      [
        `SIP/2.0 ${status} ${reason}`,
        ...request.getHeaderFields('Via').map((v) => `Via: ${v}`),
        `From: ${request.getHeader('From')}`,
        `To: ${to.includes(';tag=') ? to : `${to};tag=callee1`}`,
        `Call-ID: ${request.callId}`,
        `CSeq: ${request.getHeader('CSeq')}`,
        `Contact: <sip:callee@127.0.0.1:${this.peer.port}>`,
        ...(options.headers ?? []),
        ...(body === '' ? [] : ['Content-Type: application/sdp']),
        `Content-Length: ${Buffer.byteLength(body)}`,
        '',
        body,
      ].join('\r\n'),
      this.serverPort,
    );
  }

  /** The ACK of the callee's last re-INVITE (RFC 3261 §13.2.2.4: same CSeq number). */
  ackInDialog(): Promise<void> {
    const invite = this.invite;
    if (invite === undefined) throw new Error('no dialog yet');
    return this.peer.send(
      [
        `ACK ${invite.contacts[0]?.uri.toString() ?? ''} SIP/2.0`,
        `Via: SIP/2.0/UDP 127.0.0.1:${this.peer.port};branch=z9hG4bKcalleeack${this.seq};rport`,
        'Max-Forwards: 70',
        `From: ${invite.getHeader('To')};tag=callee1`,
        `To: ${invite.getHeader('From')}`,
        `Call-ID: ${invite.callId}`,
        `CSeq: ${this.seq} ACK`,
        'Content-Length: 0',
        '',
        '',
      ].join('\r\n'),
      this.serverPort,
    );
  }

  /** A request of the callee inside the dialog the INVITE made. */
  sendInDialog(method: string, options: { body?: string; headers?: string[] } = {}): Promise<void> {
    const invite = this.invite;
    if (invite === undefined) throw new Error('no dialog yet');
    const body = options.body ?? '';
    const contact = invite.contacts[0]?.uri.toString() ?? '';
    return this.peer.send(
      [
        `${method} ${contact} SIP/2.0`,
        `Via: SIP/2.0/UDP 127.0.0.1:${this.peer.port};branch=z9hG4bKcallee${++this.seq};rport`,
        'Max-Forwards: 70',
        `From: ${invite.getHeader('To')};tag=callee1`,
        `To: ${invite.getHeader('From')}`,
        `Call-ID: ${invite.callId}`,
        `CSeq: ${this.seq} ${method}`,
        `Contact: <sip:callee@127.0.0.1:${this.peer.port}>`,
        ...(options.headers ?? []),
        ...(body === '' ? [] : ['Content-Type: application/sdp']),
        `Content-Length: ${Buffer.byteLength(body)}`,
        '',
        body,
      ].join('\r\n'),
      this.serverPort,
    );
  }
}

/** A request from the test's caller peer (at `peerPort`), as a phone writes it: SDP when `content` is given. */
function callerRequest(
  peerPort: number,
  callId: string,
  request: { firstLine: string; via: string; cseq: string; headers: string[]; content?: string },
): string {
  const content = request.content ?? '';
  return [
    request.firstLine,
    `Via: SIP/2.0/UDP 127.0.0.1:${peerPort};branch=${request.via};rport`,
    'Max-Forwards: 70',
    ...request.headers,
    `Call-ID: ${callId}`,
    `CSeq: ${request.cseq}`,
    `Contact: <sip:caller@127.0.0.1:${peerPort}>`,
    ...(content === '' ? [] : ['Content-Type: application/sdp']),
    `Content-Length: ${Buffer.byteLength(content)}`,
    '',
    content,
  ].join('\r\n');
}

describe('calls we place: session timers, glare, codec change', { timeout: 30_000 }, () => {
  let clock: FakeClock;
  let media: FakeMedia;
  let driver: SipDriver | undefined;
  let callee: Callee;

  async function start(extra: Partial<SipEndpointConfig> = {}): Promise<SipDriver> {
    const aor = { defaultExpiration: 3600, minimumExpiration: 60, maximumExpiration: 7200, qualifyFrequency: 0 };
    driver = new SipDriver({
      config: {
        transports: [{ name: 'udp', protocol: 'udp', bindAddress: '127.0.0.1', bindPort: 0 }],
        endpoints: [trunkEndpoint(extra)],
        identifies: [{ name: 'trunk', endpoint: 'trunk', match: ['127.0.0.1'] }],
        aors: [{ name: 'trunk', maxContacts: 0, removeExisting: false, ...aor, contacts: [`sip:127.0.0.1:${callee.peer.port}`] }],
        auths: [],
      },
      host,
      media,
      clock,
    });
    await driver.start();
    callee.serverPort = driver.listening()[0].port;
    return driver;
  }

  /** Dials the trunk and answers with `headers` on the 2xx; resolves with the call's events. */
  async function answeredCall(
    d: SipDriver,
    headers: string[],
  ): Promise<{ events: Events; call: ReturnType<SipDriver['prepareOutbound']> }> {
    const call = d.prepareOutbound({ resource: 'trunk/5551234', caller: { name: '', number: '200' }, variables: {} });
    const events = new Events();
    await call.dial(events, { timeoutSeconds: 0 });
    const invite = await callee.expectRequest('INVITE');
    callee.invite = invite;
    await callee.respond(invite, 200, 'OK', { body: sdp(50000), headers });
    await callee.expectRequest('ACK');
    await waitFor(() => events.log.includes('answered'), 'answered');
    return { events, call };
  }

  beforeEach(async () => {
    accepted.length = 0;
    clock = new FakeClock(Date.UTC(2026, 0, 1));
    media = new FakeMedia();
    callee = new Callee(await UdpPeer.open());
  });

  afterEach(async () => {
    if (driver !== undefined) {
      const closing = driver.close();
      clock.advance(5000);
      await closing;
      driver = undefined;
    }
    await callee.peer.close();
  });

  it('offers timers, heeds a 422, and refreshes by re-INVITE at half the interval as refresher', async () => {
    const d = await start({ timersSessExpires: 600, timersMinSe: 120 });
    const call = d.prepareOutbound({ resource: 'trunk/5551234', caller: { name: '', number: '200' }, variables: {} });
    const events = new Events();
    await call.dial(events, { timeoutSeconds: 0 });
    const first = await callee.expectRequest('INVITE');
    assert.equal(first.getHeader('Session-Expires'), '600');
    assert.equal(first.getHeader('Min-SE'), '120');
    assert.ok(first.getHeaderList('Supported').includes('timer'));
    await callee.respond(first, 422, 'Session Interval Too Small', { headers: ['Min-SE: 1000'] });
    await callee.expectRequest('ACK');
    const second = await callee.expectRequest('INVITE');
    assert.equal(second.callId, first.callId);
    assert.equal(second.cseq.seq, first.cseq.seq + 1);
    assert.equal(second.getHeader('Session-Expires'), '1000');
    callee.invite = second;
    await callee.respond(second, 200, 'OK', { body: sdp(50000), headers: ['Session-Expires: 1000;refresher=uac', 'Require: timer'] });
    await callee.expectRequest('ACK');
    await waitFor(() => events.log.includes('answered'), 'answered');

    clock.advance(499_000);
    await callee.peer.expectNothing((m) => m.type === 'request' && m.method === 'INVITE', 50);
    clock.advance(1000);
    const refresh = await callee.expectRequest('INVITE');
    assert.equal(refresh.getHeader('Session-Expires'), '1000;refresher=uac');
    assert.match(refresh.bodyText, /m=audio 40000 RTP\/AVP 0 101/, 'the session as it is: the codec in use');
    await callee.respond(refresh, 200, 'OK', { body: sdp(50000), headers: ['Session-Expires: 1000;refresher=uac'] });
    const ack = await callee.expectRequest('ACK');
    assert.equal(ack.cseq.seq, refresh.cseq.seq);
    assert.equal(ack.cseq.method, 'ACK');
    // The next refresh comes another half interval later.
    clock.advance(500_000);
    const again = await callee.expectRequest('INVITE');
    await callee.respond(again, 200, 'OK', { body: sdp(50000) });
    await callee.expectRequest('ACK');
    assert.deepEqual(events.log, ['answered']);
  });

  it('refreshes by UPDATE when the callee allows it (again after a 491), and omits timers with timers=no', async () => {
    const d = await start();
    await answeredCall(d, ['Session-Expires: 1800;refresher=uac', 'Allow: INVITE, ACK, BYE, CANCEL, UPDATE']);
    clock.advance(900_000);
    const update = await callee.expectRequest('UPDATE');
    assert.equal(update.getHeader('Session-Expires'), '1800;refresher=uac');
    assert.equal(update.body.length, 0);
    // A crossing offer of the callee (491, RFC 3311 §5.2): the refresh goes again after 2.1–4 s.
    await callee.respond(update, 491, 'Request Pending');
    await new Promise((resolve) => setTimeout(resolve, 30));
    clock.advance(4000);
    const again = await callee.expectRequest('UPDATE');
    assert.equal(again.cseq.seq, update.cseq.seq + 1);
    await callee.respond(again, 200, 'OK');
    await driver?.close();
    driver = undefined;

    const plain = await start({ timers: 'no' });
    const call = plain.prepareOutbound({ resource: 'trunk/5551234', caller: { name: '', number: '200' }, variables: {} });
    await call.dial(new Events(), { timeoutSeconds: 0 });
    const invite = await callee.expectRequest('INVITE');
    assert.equal(invite.getHeader('Session-Expires'), undefined);
    assert.equal(invite.getHeader('Min-SE'), undefined);
    await call.tech.hangup(16);
  });

  it('ends the call with BYE when the callee, the refresher, lets the session expire', async () => {
    const d = await start();
    const { events } = await answeredCall(d, ['Session-Expires: 300;refresher=uas']);
    // A refresh from the callee restarts the timer.
    clock.advance(200_000);
    await callee.sendInDialog('UPDATE', { headers: ['Session-Expires: 300;refresher=uac', 'Supported: timer'] });
    const ok = (await callee.peer.expect((m) => m.type === 'response' && m.cseq.method === 'UPDATE', '200 to UPDATE')) as SipResponse;
    assert.equal(ok.status, 200);
    assert.equal(ok.getHeader('Session-Expires'), '300;refresher=uac');
    clock.advance(200_000);
    await callee.peer.expectNothing((m) => m.type === 'request' && m.method === 'BYE', 50);
    // §10: expiry at interval − min(32, interval/3) after the last refresh.
    clock.advance(68_000);
    const bye = await callee.expectRequest('BYE');
    assert.equal(bye.getHeader('Reason'), 'Q.850;cause=102');
    await callee.respond(bye, 200, 'OK');
    await waitFor(() => events.log.includes('hungUp(102)'), 'hung up for timer expiry');
  });

  it("glare: refuses the callee's re-INVITE with 491 while ours is pending, and retries ours after the §14.1 delay", async () => {
    const d = await start();
    await answeredCall(d, ['Session-Expires: 200;refresher=uac']);
    clock.advance(100_000);
    const ours = await callee.expectRequest('INVITE');
    // The callee's own re-INVITE crosses ours.
    await callee.sendInDialog('INVITE', { body: sdp(50000) });
    const refused = (await callee.peer.expect(
      (m) => m.type === 'response' && m.cseq.method === 'INVITE' && m.status >= 200,
      'answer to the callee re-INVITE',
    )) as SipResponse;
    assert.equal(refused.status, 491);
    await callee.respond(ours, 491, 'Request Pending');
    await callee.expectRequest('ACK');
    // We own the Call-ID: 2.1 to 4 s.
    clock.advance(2000);
    await callee.peer.expectNothing((m) => m.type === 'request' && m.method === 'INVITE', 50);
    clock.advance(2000);
    const retry = await callee.expectRequest('INVITE');
    assert.equal(retry.cseq.seq, ours.cseq.seq + 1);
    await callee.respond(retry, 200, 'OK', { body: sdp(50000) });
    await callee.expectRequest('ACK');
  });

  it('switches the leg to the codec the callee offers in a re-INVITE', async () => {
    const d = await start();
    await answeredCall(d, []);
    assert.equal(media.remotes.at(-1)?.codec.name, 'PCMU');
    await callee.sendInDialog('INVITE', { body: sdp(50010, 'PCMA') });
    const answer = (await callee.peer.expect(
      (m) => m.type === 'response' && m.cseq.method === 'INVITE' && m.status >= 200,
      '200 to re-INVITE',
    )) as SipResponse;
    assert.equal(answer.status, 200);
    assert.match(answer.bodyText, /m=audio 40000 RTP\/AVP 8/);
    assert.equal(media.remotes.at(-1)?.codec.name, 'PCMA');
    assert.equal(media.remotes.at(-1)?.port, 50010);
  });

  it('calls we answer follow timers_min_se, and ignore Session-Expires with timers=no', async () => {
    const inbound = (interval: number) =>
      [
        `INVITE sip:100@127.0.0.1:${callee.serverPort} SIP/2.0`,
        `Via: SIP/2.0/UDP 127.0.0.1:${callee.peer.port};branch=z9hG4bKin${++callee.seq};rport`,
        'Max-Forwards: 70',
        `From: <sip:caller@127.0.0.1>;tag=in${callee.seq}`,
        'To: <sip:100@127.0.0.1>',
        `Call-ID: inbound-${callee.seq}@127.0.0.1`,
        'CSeq: 1 INVITE',
        `Contact: <sip:caller@127.0.0.1:${callee.peer.port}>`,
        `Session-Expires: ${interval}`,
        'Content-Type: application/sdp',
        `Content-Length: ${Buffer.byteLength(sdp(50000))}`,
        '',
        sdp(50000),
      ].join('\r\n');
    await start({ timersMinSe: 300 });
    await callee.peer.send(inbound(200), callee.serverPort);
    const refused = await callee.peer.expectResponse(422, 'INVITE');
    assert.equal(refused.getHeader('Min-SE'), '300');
    await driver?.close();
    driver = undefined;

    await start({ timers: 'no' });
    await callee.peer.send(inbound(60), callee.serverPort);
    await callee.peer.expectNothing((m) => m.type === 'response' && m.status === 422, 200);
  });

  it('early media: 180 without SDP is ringing; 183 or 180 with SDP opens early media on the leg', async () => {
    const d = await start();
    const call = d.prepareOutbound({ resource: 'trunk/5551234', caller: { name: '', number: '200' }, variables: {} });
    const log: string[] = [];
    await call.dial(
      { answered: () => log.push('answered'), ringing: () => log.push('ringing'), progress: () => log.push('progress'), hungUp: () => {} },
      { timeoutSeconds: 0 },
    );
    const invite = await callee.expectRequest('INVITE');
    const tech = call.tech as unknown as { hasEarlyMedia: boolean };
    await callee.respond(invite, 180, 'Ringing');
    await waitFor(() => log.includes('ringing'), 'ringing');
    assert.equal(tech.hasEarlyMedia, false);
    await callee.respond(invite, 180, 'Ringing', { body: sdp(50030) });
    await waitFor(() => log.includes('progress'), 'early media');
    assert.equal(tech.hasEarlyMedia, true);
    assert.equal(media.remotes.at(-1)?.port, 50030, 'the leg sends to the early media address');
    assert.deepEqual(log, ['ringing', 'progress']);
    await call.tech.hangup(16);
  });

  it('calls we answer: a caller without UPDATE is refreshed by re-INVITE, with glare handled (0–2 s retry)', async () => {
    await start();
    const callId = 'refresh-in@127.0.0.1';
    const body = sdp(50040);
    const from = '<sip:caller@127.0.0.1>;tag=caller1';
    const message = (firstLine: string, via: string, cseq: string, headers: string[], content = '') =>
      callerRequest(callee.peer.port, callId, { firstLine, via, cseq, headers, content });
    await callee.peer.send(
      message(
        `INVITE sip:100@127.0.0.1:${callee.serverPort} SIP/2.0`,
        'z9hG4bKrin1',
        '1 INVITE',
        [`From: ${from}`, 'To: <sip:100@127.0.0.1>', 'Session-Expires: 90', 'Allow: INVITE, ACK, CANCEL, BYE'],
        body,
      ),
      callee.serverPort,
    );
    await waitFor(() => accepted.length === 1, 'the call presented');
    await accepted[0].tech.answer();
    const ok = (await callee.peer.expect(
      (m) => m.type === 'response' && m.status === 200 && m.cseq.method === 'INVITE',
      '200',
    )) as SipResponse;
    assert.equal(ok.getHeader('Session-Expires'), '90;refresher=uas');
    const to = ok.getHeader('To') ?? '';
    const ourContact = ok.contacts[0]?.uri.toString() ?? '';
    await callee.peer.send(
      message(`ACK ${ourContact} SIP/2.0`, 'z9hG4bKrin1ack', '1 ACK', [`From: ${from}`, `To: ${to}`]),
      callee.serverPort,
    );
    await new Promise((resolve) => setTimeout(resolve, 30));

    clock.advance(45_000);
    const refresh = await callee.expectRequest('INVITE');
    assert.equal(refresh.getHeader('Session-Expires'), '90;refresher=uac');
    assert.match(refresh.bodyText, /m=audio 40000 RTP\/AVP 0/);
    // The caller's own re-INVITE crosses ours: 491.
    await callee.peer.send(
      message(`INVITE ${ourContact} SIP/2.0`, 'z9hG4bKrin2', '2 INVITE', [`From: ${from}`, `To: ${to}`], body),
      callee.serverPort,
    );
    const glare = (await callee.peer.expect((m) => m.type === 'response' && m.cseq.seq === 2 && m.status >= 200, '491')) as SipResponse;
    assert.equal(glare.status, 491);
    await callee.respond(refresh, 491, 'Request Pending');
    await callee.expectRequest('ACK');
    // We do not own the Call-ID: the retry comes within 2 s.
    clock.advance(2000);
    const retry = await callee.expectRequest('INVITE');
    assert.equal(retry.cseq.seq, refresh.cseq.seq + 1);
    await callee.respond(retry, 200, 'OK', { body: sdp(50042) });
    const ack = await callee.expectRequest('ACK');
    assert.equal(ack.cseq.seq, retry.cseq.seq);
    await waitFor(() => media.remotes.at(-1)?.port === 50042, 'the answer applied to the leg');
  });

  it('rtp_timeout: armed at the answer (not while ringing), rtp_timeout_hold while held, BYE with cause 44 when quiet', async () => {
    const d = await start({ rtpTimeout: 5, rtpTimeoutHold: 60 });
    const call = d.prepareOutbound({ resource: 'trunk/5551234', caller: { name: '', number: '200' }, variables: {} });
    const events = new Events();
    await call.dial(events, { timeoutSeconds: 0 });
    const invite = await callee.expectRequest('INVITE');
    callee.invite = invite;
    await callee.respond(invite, 183, 'Session Progress', { body: sdp(50030) });
    await waitFor(() => media.remotes.at(-1)?.port === 50030, 'early media');
    assert.deepEqual(media.rtpTimeouts, [], 'early media is not timed');
    await callee.respond(invite, 200, 'OK', { body: sdp(50000) });
    await callee.expectRequest('ACK');
    await waitFor(() => events.log.includes('answered'), 'answered');
    assert.deepEqual(media.rtpTimeouts, [['leg-1', 5]]);

    const reinvite = async (direction: string, port: number) => {
      await callee.sendInDialog('INVITE', { body: sdp(port).replace('a=sendrecv', `a=${direction}`) });
      const ok = (await callee.peer.expect(
        (m) => m.type === 'response' && m.cseq.method === 'INVITE' && m.cseq.seq === callee.seq && m.status >= 200,
        `200 to the ${direction} re-INVITE`,
      )) as SipResponse;
      assert.equal(ok.status, 200);
      await callee.ackInDialog();
    };
    await reinvite('sendonly', 50000);
    await waitFor(() => media.rtpTimeouts.length === 2, 'hold re-arms');
    assert.deepEqual(media.rtpTimeouts.at(-1), ['leg-1', 60], 'held: rtp_timeout_hold');
    await reinvite('sendrecv', 50002);
    await waitFor(() => media.rtpTimeouts.length === 3, 'resume re-arms');
    assert.deepEqual(media.rtpTimeouts.at(-1), ['leg-1', 5], 'resumed: rtp_timeout, counted again');
    await reinvite('recvonly', 50002);
    await waitFor(() => media.rtpTimeouts.length === 4, 'a receive-only phone re-arms');
    assert.deepEqual(media.rtpTimeouts.at(-1), ['leg-1', 60], 'a phone that will not send: rtp_timeout_hold');
    await reinvite('sendrecv', 50002);
    await waitFor(() => media.rtpTimeouts.length === 5, 'sendrecv again');
    assert.deepEqual(media.rtpTimeouts.at(-1), ['leg-1', 5]);

    media.notify({ type: 'legRtpTimeout', legId: 'leg-1', seconds: 5 });
    const bye = await callee.expectRequest('BYE');
    assert.equal(bye.getHeader('Reason'), 'Q.850;cause=44');
    await callee.respond(bye, 200, 'OK');
    await waitFor(() => events.log.includes('hungUp(44)'), 'hung up with cause 44');
  });

  it('rtp_timeout_hold = 0 disarms a held call; without the options nothing is armed and a stray timeout is ignored', async () => {
    const d = await start({ rtpTimeout: 5 });
    const { events } = await answeredCall(d, []);
    assert.deepEqual(media.rtpTimeouts, [['leg-1', 5]]);
    await callee.sendInDialog('INVITE', { body: sdp(50000).replace('a=sendrecv', 'a=inactive') });
    await callee.peer.expect((m) => m.type === 'response' && m.cseq.method === 'INVITE' && m.status === 200, '200 to the hold');
    await waitFor(() => media.rtpTimeouts.length === 2, 'hold disarms');
    assert.deepEqual(media.rtpTimeouts.at(-1), ['leg-1', 0]);
    // A timeout crossing the disarm (already on its way from the worker) does not end a held call.
    media.notify({ type: 'legRtpTimeout', legId: 'leg-1', seconds: 5 });
    await callee.peer.expectNothing((m) => m.type === 'request' && m.method === 'BYE', 100);
    assert.deepEqual(events.log, ['answered']);
    const closing = d.close();
    const bye = await callee.expectRequest('BYE');
    assert.equal(bye.getHeader('Reason'), 'Q.850;cause=16', 'the call ended only by the shutdown');
    await callee.respond(bye, 200, 'OK');
    await closing;
    driver = undefined;

    media.rtpTimeouts = [];
    const plain = await start();
    const second = await answeredCall(plain, []);
    await callee.sendInDialog('INVITE', { body: sdp(50000).replace('a=sendrecv', 'a=sendonly') });
    await callee.peer.expect((m) => m.type === 'response' && m.cseq.method === 'INVITE' && m.status === 200, '200 to the hold');
    assert.deepEqual(media.rtpTimeouts, [], 'an endpoint without rtp_timeout sends nothing to the engine');
    media.notify({ type: 'legRtpTimeout', legId: 'leg-1', seconds: 5 });
    await callee.peer.expectNothing((m) => m.type === 'request' && m.method === 'BYE', 100);
    assert.deepEqual(second.events.log, ['answered']);
  });

  it('calls we answer: rtp_timeout is armed once the 2xx is acknowledged, and ends the call with BYE cause 44', async () => {
    await start({ rtpTimeout: 3 });
    const from = '<sip:caller@127.0.0.1>;tag=quiet1';
    const message = (firstLine: string, via: string, cseq: string, headers: string[], content = '') =>
      callerRequest(callee.peer.port, 'quiet-in@127.0.0.1', { firstLine, via, cseq, headers: [`From: ${from}`, ...headers], content });
    await callee.peer.send(
      message(
        `INVITE sip:100@127.0.0.1:${callee.serverPort} SIP/2.0`,
        'z9hG4bKquiet1',
        '1 INVITE',
        ['To: <sip:100@127.0.0.1>'],
        sdp(50040),
      ),
      callee.serverPort,
    );
    await waitFor(() => accepted.length === 1, 'the call presented');
    await accepted[0].tech.answer();
    const ok = (await callee.peer.expect(
      (m) => m.type === 'response' && m.status === 200 && m.cseq.method === 'INVITE',
      '200',
    )) as SipResponse;
    assert.deepEqual(media.rtpTimeouts, [], 'not before the ACK');
    await callee.peer.send(
      message(`ACK ${ok.contacts[0]?.uri.toString() ?? ''} SIP/2.0`, 'z9hG4bKquiet1ack', '1 ACK', [`To: ${ok.getHeader('To') ?? ''}`]),
      callee.serverPort,
    );
    await waitFor(() => media.rtpTimeouts.length === 1, 'armed at the ACK');
    assert.deepEqual(media.rtpTimeouts, [['leg-1', 3]]);
    media.notify({ type: 'legRtpTimeout', legId: 'leg-1', seconds: 3 });
    const bye = await callee.expectRequest('BYE');
    assert.equal(bye.getHeader('Reason'), 'Q.850;cause=44');
    await callee.respond(bye, 200, 'OK');
  });

  it('picks the §14.1 retry delay from the right range', () => {
    assert.equal(
      glareRetryDelayMs(true, () => 0),
      2100,
    );
    assert.equal(
      glareRetryDelayMs(true, () => 0.999999),
      4000,
    );
    assert.equal(
      glareRetryDelayMs(false, () => 0),
      0,
    );
    assert.equal(
      glareRetryDelayMs(false, () => 0.999999),
      2000,
    );
    for (let i = 0; i < 50; i++) assert.equal(glareRetryDelayMs(false) % 10, 0);
  });
});
