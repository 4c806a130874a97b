/**
 * The SIP driver over real UDP loopback sockets. The host (core) and the media engine are test
 * doubles; every SIP message is real and crosses a socket. Protocol timers run on a fake clock.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type {
  ChannelDriverHost,
  ChannelTechnologyEvents,
  CoreError,
  CreateLegRequest,
  InboundCall,
  LegRemote,
  MediaLegInfo,
  SipConfig,
  SipEndpointConfig,
  TransferDecision,
  TransferRequestInfo,
} from '@switchboard/core';
import { parse as parseSdp } from 'sdp-transform';
import type { SipMessage, SipResponse } from '../message/sip-message.js';
import { SDP_OFFER } from '../message/parser.fixtures.js';
import { T1 } from '../transaction/timers.js';
import { TRYING_DELAY_MS } from '../ua/user-agent-core.js';
import { FakeClock } from '../test-support/fake-clock.js';
import { UdpPeer, waitFor } from '../test-support/udp-peer.js';
import type { SipMediaEngine } from './calls/inbound-call.js';
import { SipDriver } from './sip-driver.js';
import { collectGarbage } from '../test-support/collect-garbage.js';
import type { TransferHandler, TransferRequest } from './calls/transfer.js';

class FakeMedia implements SipMediaEngine {
  legs = new Map<string, { request: CreateLegRequest; remotes: LegRemote[]; destroyed: boolean }>();
  #next = 0;
  failCreate = false;
  /** When set, setLegRemote waits for it (to hold a re-INVITE open). */
  gate: Promise<void> | undefined;
  /** When set, createLeg waits for it (a media worker still binding the socket). */
  createGate: Promise<void> | undefined;

  async createLeg(request: CreateLegRequest): Promise<MediaLegInfo> {
    if (this.createGate !== undefined) await this.createGate;
    if (this.failCreate) throw new Error('no ports');
    const legId = `leg-${++this.#next}`;
    // A remote given with the leg is its first remote, as the real engine sets it.
    this.legs.set(legId, { request, remotes: request.remote === undefined ? [] : [request.remote], destroyed: false });
    return { legId, localAddress: request.bindAddress, localPort: 30000 + this.#next * 2 };
  }
  async setLegRemote(legId: string, remote: LegRemote): Promise<void> {
    if (this.gate !== undefined) await this.gate;
    this.legs.get(legId)?.remotes.push(remote);
  }
  async destroyLeg(legId: string): Promise<void> {
    const leg = this.legs.get(legId);
    if (leg) leg.destroyed = true;
  }
}

class FakeHost implements ChannelDriverHost {
  calls: InboundCall[] = [];
  hungUp: Array<{ name: string; cause: number }> = [];
  held: boolean[] = [];
  digits: Array<[string, number]> = [];
  onAccept: ((call: InboundCall) => void) | undefined;
  /** What core decides about a REFER nothing bridges (transferRequested). */
  transferDecision: TransferDecision = { kind: 'refused' };
  transferRequests: TransferRequestInfo[] = [];

  acceptInbound(call: InboundCall): ChannelTechnologyEvents {
    this.calls.push(call);
    this.onAccept?.(call);
    return {
      answered: () => {},
      ringing: () => {},
      hungUp: (cause) => this.hungUp.push({ name: call.name, cause }),
      held: (onHold) => this.held.push(onHold),
      dtmf: (digit, ms) => this.digits.push([digit, ms]),
      transferRequested: (request) => {
        this.transferRequests.push(request);
        return this.transferDecision;
      },
    };
  }
}

const ALICE: SipEndpointConfig = {
  name: 'alice',
  context: 'from-alice',
  codecs: ['PCMU', 'PCMA'],
  language: 'fr',
  aors: [],
  mailboxes: [],
  dtmfMode: 'rfc4733',
  forceRport: true,
  rewriteContact: true,
  rtpSymmetric: true,
  directMedia: false,
};

function config(match: string[] = ['127.0.0.1/32'], endpoint: Partial<SipEndpointConfig> = {}): SipConfig {
  return {
    transports: [{ name: 'transport-udp', protocol: 'udp', bindAddress: '127.0.0.1', bindPort: 0 }],
    endpoints: [{ ...ALICE, ...endpoint }],
    identifies: [{ name: 'alice', endpoint: 'alice', match }],
    aors: [],
    auths: [],
  };
}

interface Call {
  callId: string;
  fromTag: string;
  branch: string;
  cseq: number;
  toTag?: string;
  contact?: string;
}

let sequence = 0;

function newCall(): Call {
  sequence++;
  return { callId: `call-${sequence}@127.0.0.1`, fromTag: `ft${sequence}`, branch: `z9hG4bKinv${sequence}`, cseq: 10 };
}

function request(
  peer: UdpPeer,
  call: Call,
  method: string,
  options: { branch?: string; cseq?: number; body?: string; uri?: string; headers?: string[]; toTag?: string | null } = {},
): string {
  const body = options.body ?? '';
  const toTag = options.toTag === null ? undefined : (options.toTag ?? call.toTag);
  return [
    `${method} ${options.uri ?? 'sip:100@127.0.0.1'} SIP/2.0`,
    `Via: SIP/2.0/UDP 127.0.0.1:${peer.port};branch=${options.branch ?? call.branch};rport`,
    'Max-Forwards: 70',
    `From: "Alice Liddell" <sip:alice@127.0.0.1:${peer.port}>;tag=${call.fromTag}`,
    `To: <sip:100@127.0.0.1>${toTag === undefined ? '' : `;tag=${toTag}`}`,
    `Call-ID: ${call.callId}`,
    `CSeq: ${options.cseq ?? call.cseq} ${method}`,
    `Contact: <sip:alice@127.0.0.1:${peer.port}>`,
    ...(options.headers ?? []),
    ...(body.length > 0 && !(options.headers ?? []).some((h) => /^content-type:/i.test(h)) ? ['Content-Type: application/sdp'] : []),
    `Content-Length: ${Buffer.byteLength(body)}`,
    '',
    body,
  ].join('\r\n');
}

/** The peer's 200 OK to a request the driver sent. */
function okTo(request: SipMessage): string {
  return [
    'SIP/2.0 200 OK',
    ...request.getHeaderFields('Via').map((v) => `Via: ${v}`),
    `From: ${request.getHeader('From')}`,
    `To: ${request.getHeader('To')}`,
    `Call-ID: ${request.callId}`,
    `CSeq: ${request.getHeader('CSeq')}`,
    'Content-Length: 0',
    '',
    '',
  ].join('\r\n');
}

const isBye = (m: SipMessage): boolean => m.type === 'request' && m.method === 'BYE';

const sdpOffer = (port = 49170) => SDP_OFFER.replace('m=audio 49170', `m=audio ${port}`).replace(/192\.0\.2\.10/g, '127.0.0.1');

describe('SipDriver over UDP loopback', { timeout: 30_000 }, () => {
  let clock: FakeClock;
  let media: FakeMedia;
  let host: FakeHost;
  let driver: SipDriver;
  let peer: UdpPeer;
  let port: number;

  async function startDriver(sip: SipConfig): Promise<void> {
    driver = new SipDriver({ config: sip, host, media, clock });
    await driver.start();
    port = driver.listening()[0].port;
  }

  beforeEach(async () => {
    clock = new FakeClock();
    media = new FakeMedia();
    host = new FakeHost();
    peer = await UdpPeer.open();
    await startDriver(config());
  });

  afterEach(async () => {
    // Calls still up get a BYE nobody answers: the close deadline runs on the fake clock.
    const closing = driver.close();
    clock.advance(5000);
    await closing;
    await peer.close();
  });

  /** INVITE → presented to core → 100 once nothing else has answered it for TRYING_DELAY_MS. */
  async function offerCall(call: Call, body = sdpOffer()): Promise<InboundCall> {
    await peer.send(request(peer, call, 'INVITE', { body }), port);
    const presented = await presentedCall(call);
    await expectTrying();
    return presented;
  }

  async function presentedCall(call: Call): Promise<InboundCall> {
    await waitFor(() => host.calls.some((c) => c.tech.protocolId === call.callId), 'the call to reach core');
    const presented = host.calls.find((c) => c.tech.protocolId === call.callId);
    assert.ok(presented);
    return presented;
  }

  /** RFC 3261 §17.2.1: the 100 Trying is owed only to an INVITE nothing answered within TRYING_DELAY_MS. */
  async function expectTrying(): Promise<void> {
    await peer.expectNothing((m) => m.type === 'response' && m.status === 100, 20);
    clock.advance(TRYING_DELAY_MS);
    await peer.expectResponse(100, 'INVITE');
  }

  /** Answers, reads the 200 and sends the ACK. */
  async function answerAndAck(call: Call, inbound: InboundCall, ackBody = ''): Promise<SipResponse> {
    await inbound.tech.answer();
    const ok = await peer.expectResponse(200, 'INVITE');
    call.toTag = ok.to.tag;
    call.contact = ok.contacts[0].uri.toString();
    await peer.send(request(peer, call, 'ACK', { branch: `${call.branch}ack`, uri: call.contact, body: ackBody }), port);
    return ok;
  }

  it('listens on the configured transport', () => {
    const [listening] = driver.listening();
    assert.equal(listening.protocol, 'udp');
    assert.equal(listening.address, '127.0.0.1');
    assert.ok(listening.port > 0);
    assert.equal(driver.technology, 'SIP');
    assert.deepEqual(driver.aliases, ['PJSIP']);
  });

  it('runs a whole call: 100, 180, 200 with SDP, ACK, BYE from the caller', async () => {
    const call = newCall();
    const inbound = await offerCall(call);
    assert.match(inbound.name, /^SIP\/alice-[0-9a-f]{8}$/);
    assert.equal(inbound.technology, 'SIP');
    assert.equal(inbound.endpoint, 'alice');
    assert.equal(inbound.exten, '100');
    assert.equal(inbound.context, 'from-alice');
    assert.equal(inbound.language, 'fr');
    assert.deepEqual(inbound.caller, { name: 'Alice Liddell', number: 'alice' });
    assert.equal(inbound.tech.protocolId, call.callId);

    const legId = inbound.tech.mediaLegId;
    assert.ok(legId);
    const leg = media.legs.get(legId);
    assert.equal(leg?.request.bindAddress, '127.0.0.1');
    assert.deepEqual(leg?.remotes[0], {
      address: '127.0.0.1',
      port: 49170,
      codec: { name: 'PCMU', payloadType: 0, clockRate: 8000 },
      telephoneEventPayloadType: 101,
      direction: 'sendrecv',
    });

    await inbound.tech.indicateRinging();
    const ringing = await peer.expectResponse(180, 'INVITE');
    const toTag = ringing.to.tag;
    assert.ok(toTag);
    assert.equal(ringing.contacts[0].uri.toString(), `sip:127.0.0.1:${port}`);
    // received/rport were filled in on the request's Via and echoed (RFC 3581 §4).
    assert.equal(ringing.topVia.rport, peer.port);

    const ok = await answerAndAck(call, inbound);
    assert.equal(ok.to.tag, toTag, 'the same To tag on every response');
    assert.equal(ok.contentType, 'application/sdp');
    assert.match(ok.getHeader('Allow') ?? '', /INVITE/);
    const answer = parseSdp(ok.bodyText);
    assert.equal(answer.connection?.ip, '127.0.0.1');
    assert.equal(answer.media[0].port, 30002);
    assert.deepEqual(
      answer.media[0].rtp.map((r) => r.codec),
      ['PCMU', 'telephone-event'],
    );
    assert.equal(answer.media[0].rtp[1].payload, 101);

    await peer.send(request(peer, call, 'BYE', { branch: 'z9hG4bKbye1', cseq: 11, uri: call.contact }), port);
    await peer.expectResponse(200, 'BYE');
    await waitFor(() => host.hungUp.length === 1, 'hungUp');
    assert.deepEqual(host.hungUp, [{ name: inbound.name, cause: 16 }]);
    await waitFor(() => media.legs.get(legId)?.destroyed === true, 'the media leg to be destroyed');
    assert.equal(driver.activeCalls, 0);
    // A late BYE retransmission is absorbed by its transaction and answered again.
    await peer.send(request(peer, call, 'BYE', { branch: 'z9hG4bKbye1', cseq: 11, uri: call.contact }), port);
    await peer.expectResponse(200, 'BYE');
  });

  it('lets go of an ended call while its INVITE transaction lingers for Timer L (RFC 6026)', async () => {
    const call = newCall();
    // Only a WeakRef outlives this scope: the test itself keeps nothing of the call.
    const ref = await (async () => {
      const inbound = await offerCall(call);
      await answerAndAck(call, inbound);
      return new WeakRef(inbound.tech);
    })();
    await peer.send(request(peer, call, 'BYE', { branch: 'z9hG4bKbyegc', cseq: 11, uri: call.contact }), port);
    await peer.expectResponse(200, 'BYE');
    await waitFor(() => host.hungUp.length === 1, 'hungUp');
    host.calls.length = 0;
    // The fake clock has not run Timer L (32 s): the INVITE's server transaction is still there.
    await new Promise((resolve) => setImmediate(resolve));
    collectGarbage();
    assert.equal(ref.deref(), undefined, 'the ended call is still reachable');
    // And it still absorbs a retransmitted INVITE, answering nothing.
    await peer.send(request(peer, call, 'INVITE', { body: sdpOffer() }), port);
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(host.calls.length, 0);
  });

  it('refuses an unidentified caller with 403', async () => {
    await driver.close();
    await startDriver(config(['10.0.0.0/8']));
    const call = newCall();
    await peer.send(request(peer, call, 'INVITE', { body: sdpOffer() }), port);
    const forbidden = await peer.expectResponse(403, 'INVITE');
    assert.ok(forbidden.to.tag);
    // Refused at once: no 100 Trying before or after the final response.
    clock.advance(TRYING_DELAY_MS);
    await peer.expectNothing((m) => m.type === 'response' && m.status === 100);
    assert.equal(host.calls.length, 0);
    assert.equal(media.legs.size, 0);
  });

  it('refuses with 403 when the identified endpoint is not configured', async () => {
    await driver.close();
    const sip = config();
    sip.identifies = [{ name: 'ghost', endpoint: 'ghost', match: ['127.0.0.0/8'] }];
    await startDriver(sip);
    const call = newCall();
    await peer.send(request(peer, call, 'INVITE', { body: sdpOffer() }), port);
    await peer.expectResponse(403, 'INVITE');
    assert.equal(host.calls.length, 0);
  });

  it('answers 488 when no codec is in common', async () => {
    const call = newCall();
    const g722 = sdpOffer()
      .replace('RTP/AVP 0 8 101', 'RTP/AVP 9')
      .replace(/a=rtpmap:[08] .*\r\n/g, '');
    await peer.send(request(peer, call, 'INVITE', { body: g722 }), port);
    const refused = await peer.expectResponse(488, 'INVITE');
    assert.match(refused.getHeader('Warning') ?? '', /^305 /);
    assert.equal(host.calls.length, 0);
    assert.equal(media.legs.size, 0);
  });

  it('handles CANCEL: 200 to the CANCEL, 487 to the INVITE, hungUp with the Reason cause', async () => {
    const call = newCall();
    const inbound = await offerCall(call);
    await inbound.tech.indicateRinging();
    await peer.expectResponse(180, 'INVITE');
    await peer.send(request(peer, call, 'CANCEL', { headers: ['Reason: Q.850;cause=19;text="no answer"'], toTag: null }), port);
    await peer.expectResponse(200, 'CANCEL');
    const terminated = await peer.expectResponse(487, 'INVITE');
    assert.ok(terminated.to.tag);
    await waitFor(() => host.hungUp.length === 1, 'hungUp');
    assert.equal(host.hungUp[0].cause, 19);
    const legId = inbound.tech.mediaLegId;
    await waitFor(() => legId !== undefined && media.legs.get(legId)?.destroyed === true, 'leg destroyed');
    // No Timer G retransmission to a source that never acknowledged a final response of ours
    // (issue 18: no amplification towards a spoofed address; see transport/hostile-input.test.ts).
    clock.advance(T1);
    await peer.expectNothing((m) => m.type === 'response' && m.status === 487);
    await peer.send(request(peer, call, 'ACK', { toTag: terminated.to.tag }), port);
    await waitFor(() => true, 'ACK processed');
    await assert.rejects(inbound.tech.answer(), /487/);
  });

  it('answers CANCEL without Reason with hungUp(16), and CANCEL for an unknown INVITE with 481', async () => {
    const call = newCall();
    await offerCall(call);
    await peer.send(request(peer, call, 'CANCEL', { toTag: null }), port);
    await peer.expectResponse(487, 'INVITE');
    await waitFor(() => host.hungUp.length === 1, 'hungUp');
    assert.equal(host.hungUp[0].cause, 16);
    const stranger = newCall();
    await peer.send(request(peer, stranger, 'CANCEL', { toTag: null }), port);
    await peer.expectResponse(481, 'CANCEL');
  });

  it('absorbs a retransmitted INVITE in its transaction', async () => {
    const call = newCall();
    const text = request(peer, call, 'INVITE', { body: sdpOffer() });
    await peer.send(text, port);
    await waitFor(() => host.calls.length === 1, 'the call');
    await expectTrying();
    await peer.send(text, port);
    // The transaction re-sends its last provisional response and the call is not presented again.
    await peer.expectResponse(100, 'INVITE');
    await peer.expectNothing(() => true);
    assert.equal(host.calls.length, 1);
    assert.equal(media.legs.size, 1);
  });

  it("sends a BYE when core hangs up and ends on the peer's 200", async () => {
    const call = newCall();
    const inbound = await offerCall(call);
    await answerAndAck(call, inbound);
    await waitFor(() => (inbound.tech as unknown as { state: string }).state === 'up', 'ACK to arrive');
    await inbound.tech.hangup(16);
    const bye = (await peer.expect(isBye, 'BYE')) as SipMessage & { type: 'request' };
    assert.equal(bye.requestUri, `sip:alice@127.0.0.1:${peer.port}`);
    assert.equal(bye.from.tag, call.toTag, 'From carries our tag');
    assert.equal(bye.to.tag, call.fromTag);
    assert.equal(bye.callId, call.callId);
    assert.equal(bye.getHeader('Reason'), 'Q.850;cause=16');
    await inbound.tech.hangup(16);
    await peer.send(okTo(bye), port);
    await waitFor(() => driver.activeCalls === 0, 'the call to end');
    assert.equal(host.hungUp.length, 0, 'no hungUp for a hangup core asked for');
    const legId = inbound.tech.mediaLegId;
    assert.ok(legId && media.legs.get(legId)?.destroyed);
    // In-dialog requests for the ended dialog get 481.
    await peer.send(request(peer, call, 'BYE', { branch: 'z9hG4bKlate', cseq: 12, uri: call.contact }), port);
    await peer.expectResponse(481, 'BYE');
  });

  it('retransmits the 200 until the ACK, doubling up to T2, and gives up with a BYE after 64*T1', async () => {
    const call = newCall();
    const inbound = await offerCall(call);
    await inbound.tech.answer();
    await peer.expectResponse(200, 'INVITE');
    const expected = [500, 1000, 2000, 4000, 4000];
    for (const interval of expected) {
      await peer.expectNothing((m) => m.type === 'response' && m.status === 200, 20);
      clock.advance(interval);
      await peer.expectResponse(200, 'INVITE');
    }
    clock.advance(64 * T1);
    const bye = await peer.expect(isBye, 'BYE after the ACK timeout');
    await waitFor(() => host.hungUp.length === 1, 'hungUp');
    assert.equal(host.hungUp[0].cause, 102);
    await peer.send(okTo(bye), port);
    await waitFor(() => driver.activeCalls === 0, 'the call to end');
  });

  it('holds a hangup until the ACK of the 200 (RFC 3261 §15)', async () => {
    const call = newCall();
    const inbound = await offerCall(call);
    await inbound.tech.answer();
    const ok = await peer.expectResponse(200, 'INVITE');
    await inbound.tech.hangup(16);
    await peer.expectNothing((m) => m.type === 'request' && m.method === 'BYE');
    call.toTag = ok.to.tag;
    await peer.send(request(peer, call, 'ACK', { branch: 'z9hG4bKack2', uri: ok.contacts[0].uri.toString() }), port);
    const bye = await peer.expect(isBye, 'BYE after the ACK');
    await peer.send(okTo(bye), port);
    await waitFor(() => driver.activeCalls === 0, 'the call to end');
  });

  it('sends the offer in the 200 for an INVITE without SDP and takes the answer from the ACK', async () => {
    const call = newCall();
    const inbound = await offerCall(call, '');
    const legId = inbound.tech.mediaLegId;
    assert.ok(legId);
    assert.equal(media.legs.get(legId)?.remotes.length, 0);
    await inbound.tech.indicateProgress();
    const progress = await peer.expectResponse(183, 'INVITE');
    assert.equal(progress.body.length, 0, 'no offer in an unreliable provisional response');
    const answerSdp = sdpOffer(45000).replace('RTP/AVP 0 8 101', 'RTP/AVP 8 101').replace('a=rtpmap:0 PCMU/8000\r\n', '');
    const ok = await answerAndAck(call, inbound, answerSdp);
    const offer = parseSdp(ok.bodyText);
    assert.deepEqual(
      offer.media[0].rtp.map((r) => r.codec),
      ['PCMU', 'PCMA', 'telephone-event'],
    );
    await waitFor(() => (media.legs.get(legId)?.remotes.length ?? 0) === 1, 'the answer to be applied');
    const remote = media.legs.get(legId)?.remotes[0];
    assert.equal(remote?.port, 45000);
    assert.equal(remote?.codec.name, 'PCMA');
  });

  it('sends 183 with the SDP answer for early media, and the same SDP version in the 200', async () => {
    const call = newCall();
    const inbound = await offerCall(call);
    await inbound.tech.indicateProgress();
    const progress = await peer.expectResponse(183, 'INVITE');
    const ok = await answerAndAck(call, inbound);
    assert.equal(parseSdp(progress.bodyText).origin.sessionVersion, parseSdp(ok.bodyText).origin.sessionVersion);
  });

  it('answers a re-INVITE with the current session and applies a hold offer', async () => {
    const call = newCall();
    const inbound = await offerCall(call);
    const first = await answerAndAck(call, inbound);
    const firstSdp = parseSdp(first.bodyText);
    const hold = sdpOffer().replace('a=sendrecv', 'a=sendonly');
    await peer.send(request(peer, call, 'INVITE', { branch: 'z9hG4bKre1', cseq: 11, uri: call.contact, body: hold }), port);
    const ok = await peer.expectResponse(200, 'INVITE');
    const answer = parseSdp(ok.bodyText);
    assert.equal(answer.origin.sessionId, firstSdp.origin.sessionId);
    assert.equal(answer.origin.sessionVersion, firstSdp.origin.sessionVersion + 1);
    assert.equal(answer.media[0].direction, 'recvonly');
    const legId = inbound.tech.mediaLegId;
    assert.ok(legId);
    assert.equal(media.legs.get(legId)?.remotes.at(-1)?.direction, 'sendonly');
    await peer.send(request(peer, call, 'ACK', { branch: 'z9hG4bKre1ack', cseq: 11, uri: call.contact }), port);
    // An out-of-order CSeq is refused (RFC 3261 §12.2.2).
    await peer.send(request(peer, call, 'INVITE', { branch: 'z9hG4bKre2', cseq: 5, uri: call.contact, body: hold }), port);
    await peer.expectResponse(500, 'INVITE');
    // A re-INVITE with no common codec gets 488 and the call stays up.
    const g722 = sdpOffer()
      .replace('RTP/AVP 0 8 101', 'RTP/AVP 9')
      .replace(/a=rtpmap:[08] .*\r\n/g, '');
    await peer.send(request(peer, call, 'INVITE', { branch: 'z9hG4bKre3', cseq: 12, uri: call.contact, body: g722 }), port);
    await peer.expectResponse(488, 'INVITE');
    assert.equal(driver.activeCalls, 1);
    await inbound.tech.hangup(16);
    await peer.send(okTo(await peer.expect(isBye, 'BYE')), port);
    await waitFor(() => driver.activeCalls === 0, 'the call to end');
  });

  it('reports hold and resume from re-INVITEs and DTMF from SIP INFO', async () => {
    const call = newCall();
    const inbound = await offerCall(call);
    await answerAndAck(call, inbound);
    // RFC 3264 §8.4: inactive is answered inactive; c=0.0.0.0 (RFC 2543 hold) counts as hold too.
    const inactive = sdpOffer().replace('a=sendrecv', 'a=inactive');
    await peer.send(request(peer, call, 'INVITE', { branch: 'z9hG4bKh1', cseq: 11, uri: call.contact, body: inactive }), port);
    const ok = await peer.expectResponse(200, 'INVITE');
    assert.equal(parseSdp(ok.bodyText).media[0].direction, 'inactive');
    await peer.send(request(peer, call, 'ACK', { branch: 'z9hG4bKh1ack', cseq: 11, uri: call.contact }), port);
    await waitFor(() => host.held.length === 1, 'hold reported');
    await peer.send(request(peer, call, 'INVITE', { branch: 'z9hG4bKh2', cseq: 12, uri: call.contact, body: sdpOffer() }), port);
    const resumed = await peer.expectResponse(200, 'INVITE');
    assert.equal(parseSdp(resumed.bodyText).media[0].direction, 'sendrecv');
    await peer.send(request(peer, call, 'ACK', { branch: 'z9hG4bKh2ack', cseq: 12, uri: call.contact }), port);
    await waitFor(() => host.held.length === 2, 'resume reported');
    assert.deepEqual(host.held, [true, false]);

    const info = (branch: string, cseq: number, type: string, body: string) =>
      request(peer, call, 'INFO', { branch, cseq, uri: call.contact, body, headers: [`Content-Type: ${type}`] });
    await peer.send(info('z9hG4bKi1', 13, 'application/dtmf-relay', 'Signal=5\r\nDuration=160\r\n'), port);
    await peer.expectResponse(200, 'INFO');
    await peer.send(info('z9hG4bKi2', 14, 'application/dtmf', '#'), port);
    await peer.expectResponse(200, 'INFO');
    await peer.send(info('z9hG4bKi3', 15, 'text/plain', 'hello'), port);
    await peer.expectResponse(415, 'INFO');
    await waitFor(() => host.digits.length === 2, 'digits reported');
    assert.deepEqual(host.digits, [
      ['5', 160],
      ['#', 100],
    ]);
  });

  it('follows hold by UPDATE (RFC 3311): answers with the mirrored direction and a Contact', async () => {
    const call = newCall();
    const inbound = await offerCall(call);
    await answerAndAck(call, inbound);
    const sendonly = sdpOffer().replace('a=sendrecv', 'a=sendonly');
    const update = (branch: string, cseq: number, body: string) => request(peer, call, 'UPDATE', { branch, cseq, uri: call.contact, body });
    await peer.send(update('z9hG4bKu1', 11, sendonly), port);
    const held = await peer.expectResponse(200, 'UPDATE');
    assert.equal(parseSdp(held.bodyText).media[0].direction, 'recvonly');
    assert.ok(held.contacts[0] !== undefined);
    await waitFor(() => host.held.length === 1, 'hold reported');
    await peer.send(update('z9hG4bKu2', 12, sdpOffer()), port);
    const resumed = await peer.expectResponse(200, 'UPDATE');
    assert.equal(parseSdp(resumed.bodyText).media[0].direction, 'sendrecv');
    await waitFor(() => host.held.length === 2, 'resume reported');
    assert.deepEqual(host.held, [true, false]);
    const legId = inbound.tech.mediaLegId;
    assert.ok(legId);
    assert.equal(media.legs.get(legId)?.remotes.at(-1)?.direction, 'sendrecv');
    // An UPDATE without a body refreshes the target only.
    await peer.send(update('z9hG4bKu3', 13, ''), port);
    const refreshed = await peer.expectResponse(200, 'UPDATE');
    assert.equal(refreshed.body.length, 0);
  });

  it('session timers (RFC 4028): 422 below Min-SE; refresher uac expires into a BYE; refresher uas sends UPDATEs', async () => {
    const small = newCall();
    await peer.send(request(peer, small, 'INVITE', { body: sdpOffer(), headers: ['Session-Expires: 60'] }), port);
    const tooSmall = await peer.expectResponse(422, 'INVITE');
    assert.equal(tooSmall.getHeader('Min-SE'), '90');

    // The phone supports timers: it refreshes, and without a refresh the call ends.
    const uac = newCall();
    await peer.send(request(peer, uac, 'INVITE', { body: sdpOffer(), headers: ['Session-Expires: 120', 'Supported: timer'] }), port);
    await waitFor(() => host.calls.some((c) => c.tech.protocolId === uac.callId), 'the call to reach core');
    const first = host.calls.find((c) => c.tech.protocolId === uac.callId);
    assert.ok(first);
    const ok = await answerAndAck(uac, first);
    assert.equal(ok.getHeader('Session-Expires'), '120;refresher=uac');
    assert.equal(ok.getHeader('Require'), 'timer');
    // The ACK crosses a real socket; protocol time moves only once it has arrived.
    await new Promise((resolve) => setTimeout(resolve, 50));
    // A refresh (re-INVITE) restarts the timer: 80 s later the call is still up.
    clock.advance(80_000);
    await peer.send(
      request(peer, uac, 'INVITE', {
        branch: 'z9hG4bKst1',
        cseq: 11,
        uri: uac.contact,
        body: sdpOffer(),
        headers: ['Session-Expires: 120', 'Supported: timer'],
      }),
      port,
    );
    const refreshed = await peer.expectResponse(200, 'INVITE');
    assert.equal(refreshed.getHeader('Session-Expires'), '120;refresher=uac');
    await peer.send(request(peer, uac, 'ACK', { branch: 'z9hG4bKst1ack', cseq: 11, uri: uac.contact }), port);
    await new Promise((resolve) => setTimeout(resolve, 50));
    clock.advance(80_000);
    assert.equal(host.hungUp.length, 0);
    // 120 − 32 s after the refresh with nothing more: BYE, reported as cause 102.
    clock.advance(8_000);
    const bye = await peer.expect(isBye, 'the BYE at expiry');
    assert.equal(bye.getHeader('Reason'), 'Q.850;cause=102');
    await peer.send(okTo(bye), port);
    await waitFor(() => host.hungUp.some((h) => h.cause === 102), 'expiry reported');

    // A phone without timer support: we refresh with UPDATE every interval/2.
    const uas = newCall();
    await peer.send(request(peer, uas, 'INVITE', { body: sdpOffer(), headers: ['Session-Expires: 90'] }), port);
    await waitFor(() => host.calls.some((c) => c.tech.protocolId === uas.callId), 'the call to reach core');
    const second = host.calls.find((c) => c.tech.protocolId === uas.callId);
    assert.ok(second);
    const ok2 = await answerAndAck(uas, second);
    assert.equal(ok2.getHeader('Session-Expires'), '90;refresher=uas');
    assert.equal(ok2.getHeader('Require'), undefined);
    await new Promise((resolve) => setTimeout(resolve, 50));
    clock.advance(45_000);
    const isUpdate = (m: SipMessage) => m.type === 'request' && m.method === 'UPDATE';
    const update = await peer.expect(isUpdate, 'the refreshing UPDATE');
    // We are the UAC of the refresh, and stay the refresher (RFC 4028 §7.4).
    assert.equal(update.getHeader('Session-Expires'), '90;refresher=uac');
    await peer.send(okTo(update), port);
    await new Promise((resolve) => setTimeout(resolve, 20));
    clock.advance(45_000);
    await peer.send(okTo(await peer.expect(isUpdate, 'the second UPDATE')), port);
    assert.equal(host.hungUp.filter((h) => h.name === second.name).length, 0);
  });

  it('answers REFER: 400 without a usable Refer-To or Replaces, 603 with nothing to transfer, 202 and sipfrag NOTIFYs when bridged, 481 for an unknown Replaces', async () => {
    const call = newCall();
    const inbound = await offerCall(call);
    await answerAndAck(call, inbound);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const refer = (branch: string, cseq: number, headers: string[]) =>
      request(peer, call, 'REFER', { branch, cseq, uri: call.contact, headers });
    await peer.send(refer('z9hG4bKr1', 11, []), port);
    await peer.expectResponse(400, 'REFER');
    await peer.send(refer('z9hG4bKr2', 12, ['Refer-To: <sip:bob@127.0.0.1?Replaces=abc%3Bto-tag%3D1>']), port);
    await peer.expectResponse(400, 'REFER');
    await peer.send(refer('z9hG4bKr3', 13, ['Refer-To: <sip:300@127.0.0.1>']), port);
    await peer.expectResponse(603, 'REFER');

    const tech = inbound.tech as unknown as { transferHandler: TransferHandler | undefined };
    const asked: TransferRequest[] = [];
    tech.transferHandler = async (transfer) => {
      asked.push(transfer);
      return { ok: true };
    };
    const isNotify = (m: SipMessage) => m.type === 'request' && m.method === 'NOTIFY';
    const expectNotifies = async (cseq: number, final: string) => {
      await peer.expectResponse(202, 'REFER');
      const trying = await peer.expect(isNotify, 'the 100 NOTIFY');
      assert.equal(trying.getHeader('Event'), `refer;id=${cseq}`);
      assert.equal(trying.bodyText.trim(), 'SIP/2.0 100 Trying');
      await peer.send(okTo(trying), port);
      const done = await peer.expect(isNotify, 'the final NOTIFY');
      assert.equal(done.bodyText.trim(), final);
      assert.match(done.getHeader('Subscription-State') ?? '', /^terminated/);
      await peer.send(okTo(done), port);
    };
    await peer.send(refer('z9hG4bKr4', 14, ['Refer-To: <sip:300@127.0.0.1>']), port);
    await expectNotifies(14, 'SIP/2.0 200 OK');
    assert.deepEqual(asked, [{ kind: 'blind', exten: '300', context: 'from-alice' }]);

    // RFC 3891 §3: a Replaces that names no dialog of ours is what an INVITE would get 481 for.
    await peer.send(refer('z9hG4bKr5', 15, ['Refer-To: <sip:bob@127.0.0.1?Replaces=nobody%3Bto-tag%3D1%3Bfrom-tag%3D2>']), port);
    await expectNotifies(15, 'SIP/2.0 481 Call/Transaction Does Not Exist');
    assert.equal(asked.length, 1);
  });

  it('refuses an INVITE with Replaces (RFC 3891 §3): 400 malformed, 481 for no dialog of ours, 486 early-only on a confirmed one', async () => {
    const call = newCall();
    const inbound = await offerCall(call);
    await answerAndAck(call, inbound);
    const replacing = (headers: string[]) => {
      const other = newCall();
      return request(peer, other, 'INVITE', { body: sdpOffer(), headers });
    };
    await peer.send(replacing([`Replaces: ${call.callId};to-tag=${call.toTag}`]), port);
    await peer.expectResponse(400, 'INVITE');
    await peer.send(replacing([`Replaces: ${call.callId};to-tag=${call.fromTag};from-tag=${call.toTag}`]), port);
    await peer.expectResponse(481, 'INVITE');
    await peer.send(replacing([`Replaces: ${call.callId};to-tag=${call.toTag};from-tag=${call.fromTag};early-only`]), port);
    await peer.expectResponse(486, 'INVITE');
    assert.equal(inbound.tech.protocolId, call.callId);
    assert.equal(host.hungUp.filter((h) => h.name === inbound.name).length, 0);
  });

  it('leaves a REFER to the application when core says so; transferProgress sends the sipfrag NOTIFYs', async () => {
    const call = newCall();
    const inbound = await offerCall(call);
    await answerAndAck(call, inbound);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const tech = inbound.tech;
    assert.ok(tech.transferProgress);
    await assert.rejects(tech.transferProgress('channel_progress'), (err: CoreError) => err.code === 'conflict');
    host.transferDecision = { kind: 'application' };
    await peer.send(
      request(peer, call, 'REFER', { branch: 'z9hG4bKra1', cseq: 21, uri: call.contact, headers: ['Refer-To: <sip:555@127.0.0.1>'] }),
      port,
    );
    await peer.expectResponse(202, 'REFER');
    assert.deepEqual(host.transferRequests, [{ kind: 'blind', destination: '555', context: 'from-alice' }]);
    const isNotify = (m: SipMessage) => m.type === 'request' && m.method === 'NOTIFY';
    const first = await peer.expect(isNotify, 'the first NOTIFY');
    assert.equal(first.bodyText.trim(), 'SIP/2.0 100 Trying');
    assert.match(first.getHeader('Subscription-State') ?? '', /^active/);
    await peer.send(okTo(first), port);
    const declined = tech.transferProgress('channel_declined');
    const last = await peer.expect(isNotify, 'the final NOTIFY');
    assert.equal(last.getHeader('Event'), 'refer;id=21');
    assert.equal(last.bodyText.trim(), 'SIP/2.0 603 Declined');
    assert.match(last.getHeader('Subscription-State') ?? '', /^terminated/);
    await peer.send(okTo(last), port);
    await declined;
    await assert.rejects(tech.transferProgress('channel_answered'), (err: CoreError) => err.code === 'conflict');
  });

  it('redirects an unanswered call with 302 naming the target in Contact', async () => {
    const call = newCall();
    const inbound = await offerCall(call);
    assert.ok(inbound.tech.redirect);
    await inbound.tech.redirect('alice/sip:carol@192.0.2.9:5070');
    const moved = await peer.expectResponse(302, 'INVITE');
    assert.equal(moved.getHeader('Contact'), '<sip:carol@192.0.2.9:5070>');
    await waitFor(() => host.hungUp.some((h) => h.name === inbound.name), 'the end reported');
    await assert.rejects(inbound.tech.redirect('nobody'), (err: CoreError) => err.code === 'not_found');
  });

  it('redirects an answered call with REFER and ends it when the phone reports success', async () => {
    const call = newCall();
    const inbound = await offerCall(call);
    await answerAndAck(call, inbound);
    await new Promise((resolve) => setTimeout(resolve, 20));
    assert.ok(inbound.tech.redirect);
    const redirecting = inbound.tech.redirect('alice/sip:carol@192.0.2.9');
    const refer = (await peer.expect((m) => m.type === 'request' && m.method === 'REFER', 'the REFER')) as SipMessage & { type: 'request' };
    assert.equal(refer.getHeader('Refer-To'), '<sip:carol@192.0.2.9>');
    await peer.send(okTo(refer).replace('SIP/2.0 200 OK', 'SIP/2.0 202 Accepted'), port);
    await redirecting;
    const notify = (body: string, cseq: number, state: string) =>
      request(peer, call, 'NOTIFY', {
        branch: `z9hG4bKn${cseq}`,
        cseq,
        uri: call.contact,
        body,
        headers: ['Event: refer', `Subscription-State: ${state}`, 'Content-Type: message/sipfrag;version=2.0'],
      });
    await peer.send(notify('SIP/2.0 100 Trying\r\n', 30, 'active;expires=60'), port);
    await peer.expectResponse(200, 'NOTIFY');
    assert.equal(host.hungUp.filter((h) => h.name === inbound.name).length, 0);
    await peer.send(notify('SIP/2.0 200 OK\r\n', 31, 'terminated;reason=noresource'), port);
    await peer.expectResponse(200, 'NOTIFY');
    const bye = await peer.expect(isBye, 'the BYE after the transfer');
    await peer.send(okTo(bye), port);
    await waitFor(() => host.hungUp.some((h) => h.name === inbound.name), 'the end reported');
  });

  it('answers MESSAGE outside a dialog: 202 for text, 415 for another type, 413 for an oversized body', async () => {
    const message = (callId: string, type: string, body: string) =>
      [
        'MESSAGE sip:bob@127.0.0.1 SIP/2.0',
        `Via: SIP/2.0/UDP 127.0.0.1:${peer.port};branch=z9hG4bK${callId};rport`,
        'Max-Forwards: 70',
        `From: <sip:alice@127.0.0.1:${peer.port}>;tag=m1`,
        'To: <sip:bob@127.0.0.1>',
        `Call-ID: ${callId}`,
        'CSeq: 1 MESSAGE',
        `Content-Type: ${type}`,
        `Content-Length: ${Buffer.byteLength(body)}`,
        '',
        body,
      ].join('\r\n');
    await peer.send(message('msg-ok', 'text/plain', 'hello'), port);
    await peer.expectResponse(202, 'MESSAGE');
    await peer.send(message('msg-html', 'text/html', '<b>hi</b>'), port);
    const unsupported = await peer.expectResponse(415, 'MESSAGE');
    assert.equal(unsupported.getHeader('Accept'), 'text/plain');
    await peer.send(message('msg-big', 'text/plain', 'x'.repeat(9000)), port);
    await peer.expectResponse(413, 'MESSAGE');
  });

  it('answers a CANCEL of a re-INVITE with 487 and keeps the call and its media as they were', async () => {
    const call = newCall();
    const inbound = await offerCall(call);
    await answerAndAck(call, inbound);
    const legId = inbound.tech.mediaLegId;
    assert.ok(legId);
    let release: () => void = () => {};
    media.gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const moved = sdpOffer(47000);
    await peer.send(request(peer, call, 'INVITE', { branch: 'z9hG4bKre9', cseq: 20, uri: call.contact, body: moved }), port);
    await peer.expectResponse(100, 'INVITE');
    await peer.send(request(peer, call, 'CANCEL', { branch: 'z9hG4bKre9', cseq: 20, uri: call.contact }), port);
    await peer.expectResponse(200, 'CANCEL');
    await peer.expectResponse(487, 'INVITE');
    media.gate = undefined;
    release();
    await waitFor(() => media.legs.get(legId)?.remotes.at(-1)?.port === 49170, 'the old remote to be restored');
    assert.equal(driver.activeCalls, 1);
    assert.equal(host.hungUp.length, 0);
    // The dialog takes the next re-INVITE.
    await peer.send(request(peer, call, 'INVITE', { branch: 'z9hG4bKre10', cseq: 21, uri: call.contact, body: moved }), port);
    await peer.expectResponse(200, 'INVITE');
    assert.equal(media.legs.get(legId)?.remotes.at(-1)?.port, 47000);
  });

  it('rejects an unanswered call with the status mapped from the cause', async () => {
    const call = newCall();
    const inbound = await offerCall(call);
    await inbound.tech.hangup(17);
    const busy = await peer.expectResponse(486, 'INVITE');
    assert.equal(busy.getHeader('Reason'), 'Q.850;cause=17');
    await inbound.tech.hangup(17);
    assert.equal(host.hungUp.length, 0);
    const legId = inbound.tech.mediaLegId;
    await waitFor(() => legId !== undefined && media.legs.get(legId)?.destroyed === true, 'leg destroyed');
  });

  it('copes with core hanging up while the call is being presented', async () => {
    host.onAccept = (presented) => void presented.tech.hangup(1);
    const call = newCall();
    await peer.send(request(peer, call, 'INVITE', { body: sdpOffer() }), port);
    await peer.expectResponse(404, 'INVITE');
    await waitFor(() => driver.activeCalls === 0, 'the call to end');
  });

  it('answers 503 when no media leg can be had, and reports the presented call hung up with cause 34', async () => {
    media.failCreate = true;
    const call = newCall();
    await peer.send(request(peer, call, 'INVITE', { body: sdpOffer() }), port);
    await peer.expectResponse(503, 'INVITE');
    const inbound = await presentedCall(call);
    await waitFor(() => host.hungUp.length === 1, 'hungUp');
    assert.deepEqual(host.hungUp, [{ name: inbound.name, cause: 34 }]);
    await assert.rejects(inbound.tech.answer(), /487/);
  });

  it('presents the call while its media leg is being bound; only the SDP waits for the leg', async () => {
    let bind = () => {};
    media.createGate = new Promise<void>((resolve) => {
      bind = resolve;
    });
    const call = newCall();
    await peer.send(request(peer, call, 'INVITE', { body: sdpOffer() }), port);
    const inbound = await presentedCall(call);
    assert.equal(media.legs.size, 0, 'presented before the leg exists');
    assert.ok(inbound.tech.mediaLegId, 'the leg id is known at once');
    const answering = inbound.tech.answer();
    await peer.expectNothing((m) => m.type === 'response' && m.status === 200, 30);
    bind();
    await answering;
    const ok = await peer.expectResponse(200, 'INVITE');
    assert.equal(parseSdp(ok.bodyText).media[0].port, 30002);
    assert.equal(media.legs.size, 1);
  });

  it('answers OPTIONS, unknown methods, stray in-dialog requests and malformed requests', async () => {
    const call = newCall();
    await peer.send(request(peer, call, 'OPTIONS', { uri: 'sip:127.0.0.1' }), port);
    const options = await peer.expectResponse(200, 'OPTIONS');
    assert.match(options.getHeader('Allow') ?? '', /INVITE, ACK, CANCEL, BYE, OPTIONS/);
    assert.equal(options.getHeader('Accept'), 'application/sdp');

    await peer.send(request(peer, newCall(), 'FROBNICATE'), port);
    await peer.expectResponse(501, 'FROBNICATE');
    await peer.send(request(peer, newCall(), 'PUBLISH', { uri: 'sip:127.0.0.1' }), port);
    await peer.expectResponse(405, 'PUBLISH');
    await peer.send(request(peer, newCall(), 'BYE', { toTag: 'nosuchdialog' }), port);
    await peer.expectResponse(481, 'BYE');
    await peer.send(request(peer, newCall(), 'INFO', { toTag: 'nosuchdialog' }), port);
    await peer.expectResponse(481, 'INFO');

    const badLength = request(peer, newCall(), 'INVITE', { body: sdpOffer() }).replace(/Content-Length: \d+/, 'Content-Length: 4000');
    await peer.send(badLength, port);
    const bad = await peer.expectResponse(400, 'INVITE');
    assert.match(bad.getHeader('Warning') ?? '', /Content-Length/);
    await peer.send('\u0000\u0001garbage\r\n\r\n', port);
    await peer.send('\r\n\r\n', port);
    await peer.expectNothing(() => true);

    await peer.send(request(peer, newCall(), 'INVITE', { headers: ['Require: 100rel'], body: sdpOffer() }), port);
    const ext = await peer.expectResponse(420, 'INVITE');
    assert.equal(ext.getHeader('Unsupported'), '100rel');
  });

  it('close() sends BYE for answered calls and 503 for unanswered ones', async () => {
    const answered = newCall();
    const up = await offerCall(answered);
    await answerAndAck(answered, up);
    await waitFor(() => (up.tech as unknown as { state: string }).state === 'up', 'ACK to arrive');
    const ringing = newCall();
    await offerCall(ringing);
    const closing = driver.close();
    const bye = (await peer.expect(isBye, 'BYE')) as SipMessage & { type: 'request' };
    await peer.expectResponse(503, 'INVITE');
    await peer.send(okTo(bye), port);
    await closing;
    assert.equal(driver.activeCalls, 0);
    assert.deepEqual(host.hungUp.map((h) => h.cause).sort(), [16, 16]);
  });
});
