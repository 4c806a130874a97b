/**
 * Registrar, digest authentication and outbound calls of the SIP driver over real UDP loopback
 * sockets. Core and the media engine are test doubles; protocol timers and registration expiry
 * run on a fake clock.
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
  SipConfig,
  SipEndpointConfig,
} from '@switchboard/core';
import { SDP_OFFER } from '../message/parser.fixtures.js';
import type { SipMessage, SipRequest, SipResponse } from '../message/sip-message.js';
import { FakeClock } from '../test-support/fake-clock.js';
import { TRYING_DELAY_MS } from '../ua/user-agent-core.js';
import { UdpPeer, waitFor } from '../test-support/udp-peer.js';
import { answerChallenge, computeDigestResponse, parseDigestCredentials } from './auth/digest.js';
import type { SipMediaEngine } from './calls/inbound-call.js';
import { chooseFinalStatus } from './calls/outbound-call.js';
import { type ContactChange, InMemoryContactStore } from './registration/registrar.js';
import { SipDriver } from './sip-driver.js';
import { collectGarbage } from '../test-support/collect-garbage.js';

class FakeMedia implements SipMediaEngine {
  legs = new Map<string, { remotes: LegRemote[]; destroyed: boolean; near: string | undefined }>();
  #next = 0;
  async createLeg(request: CreateLegRequest): Promise<MediaLegInfo> {
    const legId = `leg-${++this.#next}`;
    this.legs.set(legId, { remotes: request.remote === undefined ? [] : [request.remote], destroyed: false, near: request.near });
    return { legId, localAddress: request.bindAddress, localPort: 40000 + this.#next * 2 };
  }
  async setLegRemote(legId: string, remote: LegRemote): Promise<void> {
    this.legs.get(legId)?.remotes.push(remote);
  }
  async destroyLeg(legId: string): Promise<void> {
    const leg = this.legs.get(legId);
    if (leg) leg.destroyed = true;
  }
}

class FakeHost implements ChannelDriverHost {
  calls: InboundCall[] = [];
  acceptInbound(call: InboundCall): ChannelTechnologyEvents {
    this.calls.push(call);
    return { answered: () => {}, ringing: () => {}, hungUp: () => {} };
  }
}

class RecordingEvents implements ChannelTechnologyEvents {
  log: string[] = [];
  hangupCause: number | undefined;
  answered(): void {
    this.log.push('answered');
  }
  ringing(): void {
    this.log.push('ringing');
  }
  progress(): void {
    this.log.push('progress');
  }
  hungUp(cause: number): void {
    this.hangupCause = cause;
    this.log.push(`hungUp(${cause})`);
  }
}

function endpoint(name: string, extra: Partial<SipEndpointConfig> = {}): SipEndpointConfig {
  return {
    name,
    context: 'default',
    codecs: ['PCMU', 'PCMA'],
    aors: [name],
    auth: `${name}-auth`,
    mailboxes: [],
    dtmfMode: 'rfc4733',
    forceRport: true,
    rewriteContact: true,
    rtpSymmetric: true,
    directMedia: false,
    ...extra,
  };
}

function config(trunkContact: string): SipConfig {
  const aor = { defaultExpiration: 3600, minimumExpiration: 60, maximumExpiration: 7200, qualifyFrequency: 0, contacts: [] };
  return {
    transports: [{ name: 'udp', protocol: 'udp', bindAddress: '127.0.0.1', bindPort: 0 }],
    endpoints: [endpoint('alice'), endpoint('bob'), endpoint('trunk', { auth: undefined, forceRport: false, rewriteContact: false })],
    identifies: [],
    aors: [
      { name: 'alice', maxContacts: 2, removeExisting: false, ...aor },
      { name: 'bob', maxContacts: 1, removeExisting: true, ...aor },
      { name: 'trunk', maxContacts: 0, removeExisting: false, ...aor, contacts: [trunkContact] },
    ],
    auths: [
      { name: 'alice-auth', authType: 'userpass', username: 'alice', password: 'wonderland', supportedAlgorithmsUas: ['MD5', 'SHA-256'] },
      { name: 'bob-auth', authType: 'userpass', username: 'bob', password: 'builder' },
    ],
  };
}

let counter = 0;

/** A phone on a loopback socket that registers and takes calls. */
class Phone {
  readonly peer: UdpPeer;
  readonly user: string;
  readonly password: string;
  readonly callId = `reg-${++counter}@127.0.0.1`;
  cseq = 1;
  serverPort = 0;

  constructor(peer: UdpPeer, user: string, password: string) {
    this.peer = peer;
    this.user = user;
    this.password = password;
  }

  static async open(user: string, password: string): Promise<Phone> {
    return new Phone(await UdpPeer.open(), user, password);
  }

  get contact(): string {
    return `sip:${this.user}@127.0.0.1:${this.peer.port}`;
  }

  registerText(headers: string[], authorization?: string): string {
    return [
      'REGISTER sip:127.0.0.1 SIP/2.0',
      `Via: SIP/2.0/UDP 127.0.0.1:${this.peer.port};branch=z9hG4bKreg${++counter};rport`,
      'Max-Forwards: 70',
      `From: <sip:${this.user}@127.0.0.1>;tag=p${counter}`,
      `To: <sip:${this.user}@127.0.0.1>`,
      `Call-ID: ${this.callId}`,
      `CSeq: ${this.cseq++} REGISTER`,
      ...headers,
      ...(authorization === undefined ? [] : [`Authorization: ${authorization}`]),
      'User-Agent: test-phone',
      'Content-Length: 0',
      '',
      '',
    ].join('\r\n');
  }

  /** REGISTER, answer the 401, return the final response. */
  async register(headers: string[] = [`Contact: <${this.contact}>`], password = this.password): Promise<SipResponse> {
    await this.peer.send(this.registerText(headers), this.serverPort);
    const challenge = await this.expectFinal('REGISTER');
    if (challenge.status !== 401) return challenge;
    const value = challenge.getHeaderFields('WWW-Authenticate')[0];
    const authorization = answerChallenge(value, { method: 'REGISTER', uri: 'sip:127.0.0.1' }, { username: this.user, password });
    await this.peer.send(this.registerText(headers, authorization), this.serverPort);
    return this.expectFinal('REGISTER');
  }

  expectFinal(method: string): Promise<SipResponse> {
    return this.peer.expect(
      (m) => m.type === 'response' && m.status >= 200 && m.cseq.method === method,
      `final response to ${method}`,
    ) as Promise<SipResponse>;
  }

  expectRequest(method: string): Promise<SipRequest> {
    return this.peer.expect((m) => m.type === 'request' && m.method === method, method) as Promise<SipRequest>;
  }

  /** A response to a request the driver sent; the To tag is added for everything but 100. */
  respond(request: SipRequest, status: number, reason: string, options: { body?: string; toTag?: string } = {}): Promise<void> {
    const body = options.body ?? '';
    const to = request.getHeader('To') ?? '';
    const tag = options.toTag ?? 'callee1';
    const text = [
      `SIP/2.0 ${status} ${reason}`,
      ...request.getHeaderFields('Via').map((v) => `Via: ${v}`),
      `From: ${request.getHeader('From')}`,
      `To: ${status === 100 || to.includes(';tag=') ? to : `${to};tag=${tag}`}`,
      `Call-ID: ${request.callId}`,
      `CSeq: ${request.getHeader('CSeq')}`,
      `Contact: <${this.contact}>`,
      ...(body === '' ? [] : ['Content-Type: application/sdp']),
      `Content-Length: ${Buffer.byteLength(body)}`,
      '',
      body,
    ].join('\r\n');
    return this.peer.send(text, this.serverPort);
  }

  close(): Promise<void> {
    return this.peer.close();
  }
}

const answerSdp = (port: number) => SDP_OFFER.replace('m=audio 49170', `m=audio ${port}`).replace(/192\.0\.2\.10/g, '127.0.0.1');

describe('SIP PBX: registrar, digest, outbound calls', { timeout: 30_000 }, () => {
  let clock: FakeClock;
  let media: FakeMedia;
  let store: InMemoryContactStore;
  let changes: ContactChange[];
  let states: string[];
  let driver: SipDriver;
  let alice: Phone;
  let bob: Phone;
  let trunk: UdpPeer;

  async function startDriver(): Promise<void> {
    driver = new SipDriver({
      config: config(`sip:127.0.0.1:${trunk.port}`),
      host: new FakeHost(),
      media,
      clock,
      contactStore: store,
      outboundAuth: (endpoint) => (endpoint.name === 'trunk' ? { username: 'switchboard', password: 'carrier-secret' } : undefined),
      endpointStatus: {
        contactChanged: (change) => changes.push(change),
        endpointStateChanged: (name, state) => states.push(`${name}:${state}`),
      },
    });
    await driver.start();
    const port = driver.listening()[0].port;
    alice.serverPort = port;
    bob.serverPort = port;
  }

  beforeEach(async () => {
    clock = new FakeClock(Date.UTC(2026, 0, 1));
    media = new FakeMedia();
    store = new InMemoryContactStore();
    changes = [];
    states = [];
    alice = await Phone.open('alice', 'wonderland');
    bob = await Phone.open('bob', 'builder');
    trunk = await UdpPeer.open();
    await startDriver();
  });

  afterEach(async () => {
    const closing = driver.close();
    clock.advance(5000);
    await closing;
    await Promise.all([alice.close(), bob.close(), trunk.close()]);
  });

  describe('registrar', () => {
    it('registers with digest, lists the binding with its expiry, and reports the endpoint online', async () => {
      const ok = await alice.register();
      assert.equal(ok.status, 200);
      assert.deepEqual(ok.getHeaderList('Contact'), [`<${alice.contact}>;expires=3600`]);
      assert.ok(ok.getHeader('Date'));
      const stored = await store.listByAor('alice');
      assert.equal(stored.length, 1);
      assert.equal(stored[0].viaPort, alice.peer.port);
      assert.equal(stored[0].userAgent, 'test-phone');
      assert.deepEqual(
        changes.map((c) => `${c.kind}:${c.aor}`),
        ['created:alice'],
      );
      assert.deepEqual(states, ['alice:online']);
    });

    it('answers a wrong password and an unknown user with the same fresh challenge', async () => {
      const wrong = await alice.register(undefined, 'guess');
      assert.equal(wrong.status, 401);
      const mallory = await Phone.open('mallory', 'x');
      mallory.serverPort = alice.serverPort;
      const unknown = await mallory.register();
      await mallory.close();
      assert.equal(unknown.status, 401);
      const shape = (r: SipResponse) => r.getHeaderFields('WWW-Authenticate').map((v) => v.replace(/nonce="[^"]*"/, ''));
      assert.deepEqual(shape(wrong), shape(unknown));
      assert.equal((await store.listByAor('alice')).length, 0);
    });

    it('refuses a too brief interval with 423 and caps a long one', async () => {
      const brief = await alice.register([`Contact: <${alice.contact}>`, 'Expires: 30']);
      assert.equal(brief.status, 423);
      assert.equal(brief.getHeader('Min-Expires'), '60');
      const long = await alice.register([`Contact: <${alice.contact}>;expires=100000`]);
      assert.equal(long.status, 200);
      assert.deepEqual(long.getHeaderList('Contact'), [`<${alice.contact}>;expires=7200`]);
    });

    it('enforces max_contacts, and remove_existing replaces the old binding', async () => {
      assert.equal((await alice.register([`Contact: <sip:alice@127.0.0.1:1001>`])).status, 200);
      assert.equal((await alice.register([`Contact: <sip:alice@127.0.0.1:1002>`])).status, 200);
      const third = await alice.register([`Contact: <sip:alice@127.0.0.1:1003>`]);
      assert.equal(third.status, 403);
      assert.equal((await store.listByAor('alice')).length, 2);

      assert.equal((await bob.register([`Contact: <sip:bob@127.0.0.1:2001>`])).status, 200);
      const replaced = await bob.register([`Contact: <sip:bob@127.0.0.1:2002>`]);
      assert.equal(replaced.status, 200);
      assert.deepEqual(replaced.getHeaderList('Contact'), ['<sip:bob@127.0.0.1:2002>;expires=3600']);
      assert.deepEqual(
        changes.filter((c) => c.aor === 'bob').map((c) => `${c.kind}:${c.uri}`),
        ['created:sip:bob@127.0.0.1:2001', 'removed:sip:bob@127.0.0.1:2001', 'created:sip:bob@127.0.0.1:2002'],
      );
    });

    it('un-registers with Expires: 0 and with *, and refuses * with a non-zero Expires', async () => {
      await alice.register([`Contact: <sip:alice@127.0.0.1:1001>`]);
      await alice.register([`Contact: <sip:alice@127.0.0.1:1002>`]);
      const one = await alice.register([`Contact: <sip:alice@127.0.0.1:1001>;expires=0`]);
      assert.deepEqual(one.getHeaderList('Contact'), ['<sip:alice@127.0.0.1:1002>;expires=3600']);
      assert.equal((await alice.register(['Contact: *', 'Expires: 3600'])).status, 400);
      const all = await alice.register(['Contact: *', 'Expires: 0']);
      assert.equal(all.status, 200);
      assert.deepEqual(all.getHeaderList('Contact'), []);
      assert.equal((await store.listByAor('alice')).length, 0);
      assert.deepEqual(states, ['alice:online', 'alice:offline']);
    });

    it('refuses a refresh with an old CSeq from the same Call-ID (500) and changes nothing', async () => {
      await alice.register();
      alice.cseq = 1;
      const stale = await alice.register([`Contact: <${alice.contact}>;expires=600`]);
      assert.equal(stale.status, 500);
      const [binding] = await store.listByAor('alice');
      assert.equal(binding.expiresAt, clock.now() + 3600_000);
    });

    it('expires bindings on their timer and keeps them across a restart', async () => {
      await alice.register([`Contact: <${alice.contact}>;expires=120`]);
      await bob.register();
      // Restart: a new driver on the same store still reaches bob.
      const closing = driver.close();
      clock.advance(5000);
      await closing;
      states = [];
      await startDriver();
      assert.deepEqual(states.sort(), ['alice:online', 'bob:online']);
      clock.advance(116_000);
      await waitFor(() => states.includes('alice:offline'), 'alice to expire');
      assert.equal((await store.listByAor('alice')).length, 0);
      assert.equal((await store.listByAor('bob')).length, 1);
      assert.ok(changes.some((c) => c.kind === 'expired' && c.aor === 'alice'));
    });
  });

  describe('outbound calls', () => {
    it('ends with cause 20 when nobody is registered', async () => {
      const call = driver.prepareOutbound({ resource: 'alice', caller: { name: 'Bob', number: '200' }, variables: {} });
      const events = new RecordingEvents();
      await call.dial(events, { timeoutSeconds: 30 });
      assert.deepEqual(events.log, ['hungUp(20)']);
    });

    it('rings, answers with SDP, ACKs, and hangs up with BYE and a Reason', async () => {
      await alice.register();
      const call = driver.prepareOutbound({
        resource: 'alice',
        caller: { name: 'Bob', number: '200' },
        variables: {},
        mediaNear: 'leg-of-the-caller',
      });
      assert.match(call.name, /^SIP\/alice-[0-9a-f]{8}$/);
      const events = new RecordingEvents();
      await call.dial(events, { timeoutSeconds: 30 });
      const invite = await alice.expectRequest('INVITE');
      assert.equal(invite.requestUri, alice.contact);
      assert.match(invite.getHeader('To') ?? '', /^<sip:alice@127\.0\.0\.1:\d+>$/);
      assert.match(invite.getHeader('From') ?? '', /^"Bob" <sip:200@127\.0\.0\.1>;tag=/);
      assert.match(invite.bodyText, /a=rtpmap:0 PCMU\/8000/);
      assert.match(invite.bodyText, /telephone-event/);
      await alice.respond(invite, 100, 'Trying');
      await alice.respond(invite, 180, 'Ringing');
      await waitFor(() => events.log.includes('ringing'), 'ringing');
      await alice.respond(invite, 200, 'OK', { body: answerSdp(50000) });
      const ack = await alice.expectRequest('ACK');
      assert.equal(ack.cseq.seq, invite.cseq.seq);
      assert.equal(ack.to.tag, 'callee1');
      await waitFor(() => events.log.includes('answered'), 'answered');
      const legId = call.tech.mediaLegId;
      assert.ok(legId);
      assert.equal(media.legs.get(legId)?.remotes[0]?.port, 50000);
      assert.equal(media.legs.get(legId)?.near, 'leg-of-the-caller', "the leg is asked for beside the caller's");
      assert.equal(call.tech.protocolId, invite.callId);

      await call.tech.hangup(16);
      const bye = await alice.expectRequest('BYE');
      assert.equal(bye.getHeader('Reason'), 'Q.850;cause=16');
      assert.equal(bye.to.tag, 'callee1');
      await alice.respond(bye, 200, 'OK');
      assert.deepEqual(events.log, ['ringing', 'answered']);
      await waitFor(() => media.legs.get(legId)?.destroyed === true, 'leg released');
    });

    it('lets go of an ended call while its INVITE transaction lingers for Timer M, and ACKs a late 2xx again', async () => {
      await alice.register();
      // Only a WeakRef and the INVITE outlive this scope: the test keeps nothing of the call.
      const { ref, invite } = await (async () => {
        const call = driver.prepareOutbound({ resource: 'alice', caller: { name: 'Bob', number: '200' }, variables: {} });
        const events = new RecordingEvents();
        await call.dial(events, { timeoutSeconds: 30 });
        const invite = await alice.expectRequest('INVITE');
        await alice.respond(invite, 200, 'OK', { body: answerSdp(50002) });
        await alice.expectRequest('ACK');
        await waitFor(() => events.log.includes('answered'), 'answered');
        await call.tech.hangup(16);
        await alice.respond(await alice.expectRequest('BYE'), 200, 'OK');
        await waitFor(() => driver.activeCalls === 0, 'the call to end');
        return { ref: new WeakRef(call.tech), invite };
      })();
      // The fake clock has not run Timer M (32 s): the INVITE's client transaction is still there.
      await new Promise((resolve) => setImmediate(resolve));
      collectGarbage();
      assert.equal(ref.deref(), undefined, 'the ended call is still reachable');
      // RFC 3261 §13.2.2.4: every 2xx retransmission gets the ACK again.
      await alice.respond(invite, 200, 'OK', { body: answerSdp(50002) });
      const ack = await alice.expectRequest('ACK');
      assert.equal(ack.cseq.seq, invite.cseq.seq);
      assert.equal(ack.to.tag, 'callee1');
    });

    it('reports a busy callee as cause 17 and a BYE from the callee as cause 16', async () => {
      await alice.register();
      const busy = driver.prepareOutbound({ resource: 'alice', caller: { name: '', number: '200' }, variables: {} });
      const busyEvents = new RecordingEvents();
      await busy.dial(busyEvents, { timeoutSeconds: 30 });
      const first = await alice.expectRequest('INVITE');
      await alice.respond(first, 486, 'Busy Here');
      await alice.expectRequest('ACK');
      await waitFor(() => busyEvents.hangupCause !== undefined, 'busy');
      assert.equal(busyEvents.hangupCause, 17);

      const answered = driver.prepareOutbound({ resource: 'alice', caller: { name: '', number: '200' }, variables: {} });
      const events = new RecordingEvents();
      await answered.dial(events, { timeoutSeconds: 30 });
      const invite = await alice.expectRequest('INVITE');
      await alice.respond(invite, 200, 'OK', { body: answerSdp(50002), toTag: 'c2' });
      const ack = await alice.expectRequest('ACK');
      const contact = `<sip:127.0.0.1:${alice.serverPort}>`;
      assert.equal(invite.getHeader('Contact'), contact);
      await alice.peer.send(
        [
          `BYE ${invite.contacts[0].uri.toString()} SIP/2.0`,
          `Via: SIP/2.0/UDP 127.0.0.1:${alice.peer.port};branch=z9hG4bKbye1;rport`,
          'Max-Forwards: 70',
          `From: ${ack.getHeader('To')}`,
          `To: ${ack.getHeader('From')}`,
          `Call-ID: ${invite.callId}`,
          'CSeq: 1 BYE',
          'Reason: Q.850;cause=16',
          'Content-Length: 0',
          '',
          '',
        ].join('\r\n'),
        alice.serverPort,
      );
      await alice.peer.expectResponse(200, 'BYE');
      await waitFor(() => events.hangupCause !== undefined, 'far-end hangup');
      assert.equal(events.hangupCause, 16);
    });

    it('cancels an unanswered call with a Q.850 Reason, and on dial timeout with cause 19', async () => {
      await alice.register();
      const call = driver.prepareOutbound({ resource: 'alice', caller: { name: '', number: '200' }, variables: {} });
      const events = new RecordingEvents();
      await call.dial(events, { timeoutSeconds: 30 });
      const invite = await alice.expectRequest('INVITE');
      // No provisional yet: the CANCEL must wait for one (RFC 3261 §9.1).
      await call.tech.hangup(21);
      await alice.peer.expectNothing((m) => m.type === 'request' && m.method === 'CANCEL');
      await alice.respond(invite, 180, 'Ringing');
      const cancel = await alice.expectRequest('CANCEL');
      assert.equal(cancel.getHeader('Reason'), 'Q.850;cause=21');
      assert.equal(cancel.topVia.branch, invite.topVia.branch);
      await alice.respond(cancel, 200, 'OK');
      await alice.respond(invite, 487, 'Request Terminated');
      await alice.expectRequest('ACK');
      assert.deepEqual(events.log, []);

      const timed = driver.prepareOutbound({ resource: 'alice', caller: { name: '', number: '200' }, variables: {} });
      const timedEvents = new RecordingEvents();
      await timed.dial(timedEvents, { timeoutSeconds: 20 });
      const second = await alice.expectRequest('INVITE');
      await alice.respond(second, 180, 'Ringing');
      await waitFor(() => timedEvents.log.includes('ringing'), 'ringing');
      clock.advance(20_000);
      const cancel2 = await alice.expectRequest('CANCEL');
      assert.equal(cancel2.getHeader('Reason'), 'Q.850;cause=19');
      assert.equal(timedEvents.hangupCause, 19);
    });

    it('forks to every contact; the first 2xx wins and the others are cancelled as completed elsewhere', async () => {
      const other = await Phone.open('alice', 'wonderland');
      other.serverPort = alice.serverPort;
      try {
        await alice.register();
        await other.register();
        const call = driver.prepareOutbound({ resource: 'alice', caller: { name: '', number: '200' }, variables: {} });
        const events = new RecordingEvents();
        await call.dial(events, { timeoutSeconds: 30 });
        const first = await alice.expectRequest('INVITE');
        const second = await other.expectRequest('INVITE');
        assert.notEqual(first.callId, second.callId);
        await other.respond(second, 180, 'Ringing', { toTag: 'o1' });
        await alice.respond(first, 200, 'OK', { body: answerSdp(50004) });
        await alice.expectRequest('ACK');
        const cancel = await other.expectRequest('CANCEL');
        assert.equal(cancel.getHeader('Reason'), 'SIP;cause=200;text="Call completed elsewhere"');
        await waitFor(() => events.log.includes('answered'), 'answered');
      } finally {
        await other.close();
      }
    });

    it('calls a given URI and a number through a trunk', async () => {
      const direct = driver.prepareOutbound({
        resource: `alice/sip:somebody@127.0.0.1:${bob.peer.port}`,
        caller: { name: '', number: '200' },
        variables: {},
      });
      await direct.dial(new RecordingEvents(), { timeoutSeconds: 30 });
      const invite = await bob.expectRequest('INVITE');
      assert.equal(invite.requestUri, `sip:somebody@127.0.0.1:${bob.peer.port}`);
      await direct.tech.hangup(16);

      const viaTrunk = driver.prepareOutbound({ resource: 'trunk/5551234', caller: { name: '', number: '200' }, variables: {} });
      await viaTrunk.dial(new RecordingEvents(), { timeoutSeconds: 30 });
      const toTrunk = (await trunk.expect((m) => m.type === 'request' && m.method === 'INVITE', 'trunk INVITE')) as SipMessage;
      assert.equal(toTrunk.type === 'request' ? toTrunk.requestUri : '', `sip:5551234@127.0.0.1:${trunk.port}`);
      await viaTrunk.tech.hangup(16);
      assert.throws(
        () => driver.prepareOutbound({ resource: 'nobody', caller: { name: '', number: '' }, variables: {} }),
        /does not exist/,
      );
    });

    it("answers a trunk's 407 once with Proxy-Authorization in a new INVITE of the same call", async () => {
      const carrier = new Phone(trunk, 'trunk', '');
      carrier.serverPort = alice.serverPort;
      const call = driver.prepareOutbound({ resource: 'trunk/5551234', caller: { name: '', number: '200' }, variables: {} });
      const events = new RecordingEvents();
      await call.dial(events, { timeoutSeconds: 30 });
      const first = await carrier.expectRequest('INVITE');
      const challenge = 'Digest realm="carrier", nonce="n0nce", qop="auth", algorithm=MD5';
      await trunk.send(
        [
          'SIP/2.0 407 Proxy Authentication Required',
          ...first.getHeaderFields('Via').map((v) => `Via: ${v}`),
          `From: ${first.getHeader('From')}`,
          `To: ${first.getHeader('To')};tag=t407`,
          `Call-ID: ${first.callId}`,
          `CSeq: ${first.getHeader('CSeq')}`,
          `Proxy-Authenticate: ${challenge}`,
          'Content-Length: 0',
          '',
          '',
        ].join('\r\n'),
        alice.serverPort,
      );
      await carrier.expectRequest('ACK');
      const second = await carrier.expectRequest('INVITE');
      assert.equal(second.callId, first.callId);
      assert.equal(second.from.tag, first.from.tag);
      assert.equal(second.cseq.seq, first.cseq.seq + 1);
      assert.notEqual(second.topVia.branch, first.topVia.branch);
      const credentials = parseDigestCredentials(second.getHeader('Proxy-Authorization') ?? '');
      assert.ok(credentials);
      assert.equal(credentials.username, 'switchboard');
      const expected = computeDigestResponse({
        algorithm: 'MD5',
        username: 'switchboard',
        realm: 'carrier',
        password: 'carrier-secret',
        method: 'INVITE',
        uri: second.requestUri,
        nonce: 'n0nce',
        qop: 'auth',
        nc: credentials.nc,
        cnonce: credentials.cnonce,
      });
      assert.equal(credentials.response, expected);
      await carrier.respond(second, 200, 'OK', { body: answerSdp(50020) });
      const ack = await carrier.expectRequest('ACK');
      assert.equal(ack.cseq.seq, second.cseq.seq);
      await waitFor(() => events.log.includes('answered'), 'answered');
      await call.tech.hangup(16);
    });

    it('chooses the final status of failed forks as RFC 3261 §16.7 says', () => {
      assert.equal(chooseFinalStatus([480, 603]), 603);
      assert.equal(chooseFinalStatus([408, 486, 480]), 486);
      assert.equal(chooseFinalStatus([487, 404]), 404);
      assert.equal(chooseFinalStatus([408]), 408);
    });
  });

  describe('inbound INVITE with digest', () => {
    it('challenges an INVITE and presents it to core once authenticated', async () => {
      const invite = (cseq: number, authorization?: string) =>
        [
          'INVITE sip:200@127.0.0.1 SIP/2.0',
          `Via: SIP/2.0/UDP 127.0.0.1:${alice.peer.port};branch=z9hG4bKi${cseq};rport`,
          'Max-Forwards: 70',
          '"Alice" <sip:alice@127.0.0.1>;tag=ia'.replace(/^/, 'From: '),
          'To: <sip:200@127.0.0.1>',
          'Call-ID: inv-digest@127.0.0.1',
          `CSeq: ${cseq} INVITE`,
          `Contact: <${alice.contact}>`,
          ...(authorization === undefined ? [] : [`Authorization: ${authorization}`]),
          'Content-Type: application/sdp',
          `Content-Length: ${Buffer.byteLength(answerSdp(50010))}`,
          '',
          answerSdp(50010),
        ].join('\r\n');
      await alice.peer.send(invite(1), alice.serverPort);
      const challenge = await alice.expectFinal('INVITE');
      assert.equal(challenge.status, 401);
      const authorization = answerChallenge(
        challenge.getHeaderFields('WWW-Authenticate')[1],
        { method: 'INVITE', uri: 'sip:200@127.0.0.1' },
        { username: 'alice', password: 'wonderland' },
      );
      assert.match(authorization ?? '', /algorithm=SHA-256/);
      await alice.peer.send(invite(2, authorization), alice.serverPort);
      await waitFor(() => driver.activeCalls === 1, 'the call to reach core');
      // The challenge went out at once, so only the authenticated INVITE, still unanswered, gets a 100 Trying.
      clock.advance(TRYING_DELAY_MS);
      await alice.peer.expectResponse(100, 'INVITE');
      assert.equal(alice.peer.pending.filter((m) => m.type === 'response' && m.status === 100).length, 0);
    });
  });
});
