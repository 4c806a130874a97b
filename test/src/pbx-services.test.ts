/**
 * PBX services beyond calls, against the real process and sipp: text messages (RFC 3428 MESSAGE) —
 * a phone's MESSAGE reaches an application subscribed to its endpoint as TextMessageReceived, and
 * the API's sendMessage reaches a registered phone with the variables as headers — and qualify
 * (OPTIONS pings to a registered contact → ContactStatusChange and PeerStatusChange), and
 * message waiting (SUBSCRIBE/NOTIFY message-summary, and unsolicited NOTIFY) driven by the
 * mailbox API, and busy lamps (dialog subscriptions, through dialplan hints too).
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import WebSocket from 'ws';
import { API_PASSWORD, API_USER, basicAuth, freePort, type RunningSwitchboard, runSipp, startSwitchboard } from './harness.js';
import { digestPhone, udpTransport } from './pjsip-phones.js';

const credentials = (user: string, password: string) => ['-au', user, '-ap', password];

const DIALPLAN = `
exten => 200,1,Answer()
 same => n,Playback(hello-world)
 same => n,Hangup()
exten => 300,1,Dial(SIP/bob,20)
 same => n,Hangup()
exten => 101,hint,SIP/alice&App:lamp
`;

function pjsipConf(sipPort: number): string {
  return [
    udpTransport(sipPort),
    digestPhone('alice', 'wonderland', { endpoint: ['mailboxes = alice-vm'] }),
    digestPhone('bob', 'builder'),
    digestPhone('carol', 'singer', { aor: ['max_contacts = 1', 'remove_existing = yes', 'qualify_frequency = 60'] }),
    digestPhone('dave', 'diver', { endpoint: ['mailboxes = dave-vm'] }),
  ].join('\n');
}

interface Event {
  type: string;
  [field: string]: unknown;
}

async function openEvents(
  sb: RunningSwitchboard,
  app: string,
): Promise<{ next(type: string): Promise<Event>; drop(event: Event): void; close(): void }> {
  const socket = new WebSocket(`ws://127.0.0.1:${sb.httpPort}/ari/events?app=${app}&api_key=${API_USER}:${API_PASSWORD}`);
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  const events: Event[] = [];
  socket.on('message', (data: Buffer) => events.push(JSON.parse(data.toString()) as Event));
  return {
    next: async (type) => {
      const deadline = Date.now() + 5000;
      while (Date.now() < deadline) {
        const found = events.find((e) => e.type === type);
        if (found) return found;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error(`no ${type} event; got ${events.map((e) => e.type).join(', ')}`);
    },
    drop: (event) => {
      const index = events.indexOf(event);
      if (index !== -1) events.splice(index, 1);
    },
    close: () => socket.close(),
  };
}

describe('PBX: text messages and qualify', () => {
  let sb: RunningSwitchboard;
  const target = () => ({ host: '127.0.0.1', port: sb.sipPort });
  const api = (method: string, path: string, body?: unknown) =>
    fetch(`${sb.baseUrl}/ari${path}`, {
      method,
      headers: { authorization: basicAuth(), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });

  before(async () => {
    sb = await startSwitchboard({ dialplan: DIALPLAN });
    writeFileSync(join(sb.confDir, 'pjsip.conf'), pjsipConf(sb.sipPort));
    await sb.restart();
  });
  after(async () => {
    await sb.stop();
  });

  it('delivers a MESSAGE from an authenticated phone as TextMessageReceived', { timeout: 30_000 }, async () => {
    const events = await openEvents(sb, 'texts');
    try {
      const sub = await api('POST', '/applications/texts/subscription?eventSource=endpoint:SIP/alice');
      assert.equal(sub.status, 200);
      const sipp = await runSipp('message-uac-auth.xml', target(), {
        service: 'bob',
        keys: { user: 'alice' },
        extra: credentials('alice', 'wonderland'),
      });
      assert.equal(sipp.code, 0, sipp.stdout.slice(-2000));
      const event = (await events.next('TextMessageReceived')) as Event & {
        message: { from: string; to: string; body: string; variables?: Record<string, string> };
        endpoint: { resource: string };
      };
      assert.equal(event.endpoint.resource, 'alice');
      assert.match(event.message.from, /sip:alice@127\.0\.0\.1/);
      assert.match(event.message.to, /^sip:bob@/);
      assert.equal(event.message.body.trim(), 'Hello from sipp');
      assert.equal(event.message.variables?.['X-Tracking'], 'sipp-1');
    } finally {
      events.close();
    }
  });

  it('refuses a MESSAGE with the wrong password (no event, no 202)', { timeout: 30_000 }, async () => {
    const sipp = await runSipp('message-uac-auth.xml', target(), {
      service: 'bob',
      keys: { user: 'alice' },
      extra: credentials('alice', 'wrong'),
      timeoutSeconds: 5,
    });
    assert.notEqual(sipp.code, 0);
  });

  it('sends sendMessage to every registered contact of the endpoint, variables as headers', { timeout: 30_000 }, async () => {
    const bobPort = await freePort('udp');
    const registered = await runSipp('register-auth.xml', target(), {
      service: 'bob',
      keys: { expires: 300 },
      extra: [...credentials('bob', 'builder'), '-p', String(bobPort)],
    });
    assert.equal(registered.code, 0, registered.stdout.slice(-2000));
    const phone = runSipp('message-uas.xml', target(), { service: 'bob', keys: { text: 'ahoy' }, extra: ['-p', String(bobPort)] });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const sent = await api('PUT', '/endpoints/SIP/bob/sendMessage?from=alice&body=ahoy%20there', { variables: { 'X-Color': 'blue' } });
    assert.ok(sent.status >= 200 && sent.status < 300, `sendMessage answered ${sent.status}: ${await sent.text()}`);
    const received = await phone;
    assert.equal(received.code, 0, received.stdout.slice(-2000));
  });

  it('answers sendMessage for an unknown endpoint with 404 and refuses header injection', { timeout: 10_000 }, async () => {
    const unknown = await api('PUT', '/endpoints/SIP/nobody/sendMessage?from=alice&body=hi');
    assert.equal(unknown.status, 404);
    const injected = await api('PUT', '/endpoints/SIP/bob/sendMessage?from=alice&body=hi', { variables: { 'Bad Header': 'x' } });
    assert.equal(injected.status, 400);
  });

  it('pings a registered contact of a qualified AOR and reports it Reachable with its round trip', { timeout: 30_000 }, async () => {
    const events = await openEvents(sb, 'qualify');
    try {
      const sub = await api('POST', '/applications/qualify/subscription?eventSource=endpoint:SIP/carol');
      assert.equal(sub.status, 200);
      const carolPort = await freePort('udp');
      const registered = await runSipp('register-auth.xml', target(), {
        service: 'carol',
        keys: { expires: 300 },
        extra: [...credentials('carol', 'singer'), '-p', String(carolPort)],
      });
      assert.equal(registered.code, 0, registered.stdout.slice(-2000));
      // The first ping goes out at registration; its UDP retransmission (Timer E) finds the phone.
      const pinged = await runSipp('options-uas.xml', target(), { service: 'carol', extra: ['-p', String(carolPort)] });
      assert.equal(pinged.code, 0, pinged.stdout.slice(-2000));
      const deadline = Date.now() + 5000;
      type ContactEvent = Event & { contact_info: { contact_status: string; roundtrip_usec?: string; aor: string } };
      let reachable: ContactEvent | undefined;
      while (Date.now() < deadline && reachable === undefined) {
        const change = (await events.next('ContactStatusChange')) as ContactEvent;
        if (change.contact_info.contact_status === 'Reachable' && change.contact_info.roundtrip_usec !== undefined) reachable = change;
        else await new Promise((resolve) => setTimeout(resolve, 100));
        events.drop(change);
      }
      const found = reachable as ContactEvent | undefined;
      assert.ok(found, 'a qualified Reachable ContactStatusChange');
      assert.equal(found.contact_info.aor, 'carol');
      assert.match(found.contact_info.roundtrip_usec ?? '', /^\d+$/);
      const peer = (await events.next('PeerStatusChange')) as Event & { peer: { peer_status: string } };
      assert.equal(peer.peer.peer_status, 'Reachable');
    } finally {
      events.close();
    }
  });

  it('notifies a message-summary subscriber at once and when its mailbox changes through the API', { timeout: 30_000 }, async () => {
    const phone = runSipp('subscribe-mwi-auth.xml', target(), { service: 'alice', extra: credentials('alice', 'wonderland') });
    // The initial NOTIFY says nothing waits; then the mailbox gets 2 new and 1 old message.
    await waitForLog(sb, (l) => l.msg === 'subscription created' && l.endpoint === 'alice');
    const put = await api('PUT', '/mailboxes/alice-vm?oldMessages=1&newMessages=2');
    assert.equal(put.status, 204);
    const done = await phone;
    assert.equal(done.code, 0, done.stdout.slice(-3000));
  });

  it(
    'sends an unsolicited message-summary NOTIFY to a phone with mailboxes= when it registers and when the mailbox changes',
    { timeout: 30_000 },
    async () => {
      assert.equal((await api('PUT', '/mailboxes/dave-vm?oldMessages=0&newMessages=1')).status, 204);
      const davePort = await freePort('udp');
      const registered = await runSipp('register-auth.xml', target(), {
        service: 'dave',
        keys: { expires: 300 },
        extra: [...credentials('dave', 'diver'), '-p', String(davePort)],
      });
      assert.equal(registered.code, 0, registered.stdout.slice(-2000));
      // The NOTIFY sent at registration (or its retransmission, if it reached the REGISTER scenario
      // first) says a message waits.
      const atRegistration = await runSipp('notify-mwi-uas.xml', target(), { service: 'dave', extra: ['-p', String(davePort)] });
      assert.equal(atRegistration.code, 0, atRegistration.stdout.slice(-2000));
      const phone = runSipp('notify-mwi-two-uas.xml', target(), { service: 'dave', extra: ['-p', String(davePort)] });
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal((await api('PUT', '/mailboxes/dave-vm?oldMessages=0&newMessages=2')).status, 204);
      const done = await phone;
      assert.equal(done.code, 0, done.stdout.slice(-2000));
    },
  );

  it('lights a busy lamp: dialog NOTIFYs follow an App: device state set through the API', { timeout: 30_000 }, async () => {
    assert.equal((await api('PUT', '/deviceStates/App:door?deviceState=INUSE')).status, 204);
    const phone = runSipp('subscribe-dialog-auth.xml', target(), {
      service: 'door',
      keys: { user: 'bob' },
      extra: credentials('bob', 'builder'),
    });
    await waitForLog(sb, (l) => l.msg === 'subscription created' && l.resource === 'App:door');
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal((await api('PUT', '/deviceStates/App:door?deviceState=NOT_INUSE')).status, 204);
    const done = await phone;
    assert.equal(done.code, 0, done.stdout.slice(-3000));
  });

  it('a busy lamp for a hinted extension follows the combined state of the hint devices', { timeout: 30_000 }, async () => {
    // alice is not registered (UNAVAILABLE); App:lamp in use makes extension 101 busy.
    assert.equal((await api('PUT', '/deviceStates/App:lamp?deviceState=INUSE')).status, 204);
    const phone = runSipp('subscribe-dialog-auth.xml', target(), {
      service: '101',
      keys: { user: 'bob' },
      extra: credentials('bob', 'builder'),
    });
    await waitForLog(sb, (l) => l.msg === 'subscription created' && l.resource === 'SIP/alice&App:lamp');
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal((await api('PUT', '/deviceStates/App:lamp?deviceState=NOT_INUSE')).status, 204);
    const done = await phone;
    assert.equal(done.code, 0, done.stdout.slice(-3000));
  });

  it('blind transfer: the callee REFERs the caller to 200, which answers and plays to the caller', { timeout: 40_000 }, async () => {
    const bobPort = await freePort('udp');
    const registered = await runSipp('register-auth.xml', target(), {
      service: 'bob',
      keys: { expires: 300 },
      extra: [...credentials('bob', 'builder'), '-p', String(bobPort)],
    });
    assert.equal(registered.code, 0, registered.stdout.slice(-2000));
    const callee = runSipp('uas-answer-refer.xml', target(), {
      service: 'bob',
      keys: { rtpport: 4012, referto: '200' },
      extra: ['-p', String(bobPort)],
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    // Alice dials 300 → Dial(SIP/bob); after the REFER she is in 200 (Answer, Playback, Hangup)
    // and gets the BYE from the server when the prompt ends.
    const caller = await runSipp('uac-auth-wait-bye.xml', target(), {
      service: '300',
      keys: { user: 'alice', rtpport: 4014 },
      extra: credentials('alice', 'wonderland'),
    });
    const transferer = await callee;
    assert.equal(transferer.code, 0, transferer.stdout.slice(-3000));
    assert.equal(caller.code, 0, caller.stdout.slice(-2000));
    assert.ok(sb.logs.some((l) => l.msg === 'blind transfer' && l.exten === '200' && l.context === 'from-internal'));
  });
});

async function waitForLog(sb: RunningSwitchboard, match: (line: Record<string, unknown>) => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (sb.logs.some((l) => match(l as Record<string, unknown>))) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('log line not seen');
}
