/**
 * Two Switchboard processes sharing one PostgreSQL store (`[store] backend = postgres`), on a
 * throwaway server: a phone registered on one node is called from the other (contacts are shared,
 * with Path kept), a device state set through node two's API reaches an application subscribed
 * on node one, a phone subscribed on node one sees the busy lamp of a phone in a call on node two,
 * and an application name is served by one node at a time. Skips, naming the reason, when PostgreSQL cannot run here.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { postgresUnavailableReason, startTemporaryPostgres, type TemporaryPostgres } from '@switchboard/core/testing';
import WebSocket from 'ws';
import { API_PASSWORD, API_USER, basicAuth, freePort, type RunningSwitchboard, runSipp, startSwitchboard } from './harness.js';
import { digestPhone, NAT_PHONE, udpTransport } from './pjsip-phones.js';

const DIALPLAN = `
exten => 300,1,Dial(SIP/bob,20)
 same => n,Hangup()
exten => 102,hint,SIP/bob
`;

const credentials = (user: string, password: string) => ['-au', user, '-ap', password];

async function startNode(url: string): Promise<RunningSwitchboard> {
  const sipPort = await freePort('udp');
  return startSwitchboard({
    sipPort,
    dialplan: DIALPLAN,
    extraFiles: {
      'switchboard.conf': `[options]\nsystemname = e2e\nmediaworkers = 1\n\n[store]\nbackend = postgres\nurl = ${url}\n`,
      'pjsip.conf': [
        udpTransport(sipPort),
        digestPhone('alice', 'wonderland', NAT_PHONE),
        digestPhone('bob', 'builder', { ...NAT_PHONE, aor: ['max_contacts = 2', 'remove_existing = yes'] }),
      ].join('\n'),
    },
  });
}

/** The first event of `type` on an events WebSocket of `app`. */
async function firstEvent(socket: WebSocket, type: string): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${type} event`)), 5000);
    socket.on('message', (data: Buffer) => {
      const event = JSON.parse(data.toString()) as Record<string, unknown>;
      if (event.type !== type) return;
      clearTimeout(timer);
      resolve(event);
    });
  });
}

const unavailable = postgresUnavailableReason();

describe('nodes sharing a PostgreSQL store', { skip: unavailable }, () => {
  let postgres: TemporaryPostgres;
  let one: RunningSwitchboard;
  let two: RunningSwitchboard;
  const api = (node: RunningSwitchboard, method: string, path: string) =>
    fetch(`${node.baseUrl}/ari${path}`, { method, headers: { authorization: basicAuth() } });

  before(async () => {
    postgres = await startTemporaryPostgres();
    one = await startNode(postgres.url);
    two = await startNode(postgres.url);
  });
  after(async () => {
    await one?.stop();
    await two?.stop();
    postgres?.stop();
  });

  it('calls from node one a phone that registered on node two', { timeout: 40_000 }, async () => {
    const bobPort = await freePort('udp');
    const registered = await runSipp(
      'register-auth.xml',
      { host: '127.0.0.1', port: two.sipPort },
      {
        service: 'bob',
        keys: { expires: 300 },
        extra: [...credentials('bob', 'builder'), '-p', String(bobPort)],
      },
    );
    assert.equal(registered.code, 0, registered.stdout.slice(-2000));
    const callee = runSipp(
      'uas-answer-bye.xml',
      { host: '127.0.0.1', port: one.sipPort },
      {
        service: 'bob',
        keys: { rtpport: 4012 },
        extra: ['-p', String(bobPort)],
      },
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    const caller = await runSipp(
      'uac-auth-wait-bye.xml',
      { host: '127.0.0.1', port: one.sipPort },
      {
        service: '300',
        keys: { user: 'alice', rtpport: 4014 },
        extra: credentials('alice', 'wonderland'),
      },
    );
    const answered = await callee;
    assert.equal(answered.code, 0, answered.stdout.slice(-2000));
    assert.equal(caller.code, 0, caller.stdout.slice(-2000));
  });

  it('announces a device state set on node two to an application on node one', { timeout: 20_000 }, async () => {
    const socket = new WebSocket(`ws://127.0.0.1:${one.httpPort}/ari/events?app=lamps&api_key=${API_USER}:${API_PASSWORD}`);
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
    });
    assert.equal((await api(one, 'POST', '/applications/lamps/subscription?eventSource=deviceState:App:lamp')).status, 200);
    const changed = firstEvent(socket, 'DeviceStateChanged');
    assert.equal((await api(two, 'PUT', '/deviceStates/App:lamp?deviceState=BUSY')).status, 204);
    const event = await changed;
    assert.deepEqual(event.device_state, { name: 'App:lamp', state: 'BUSY' });
    assert.equal(event.application, 'lamps');
    // Both nodes read the same stored value.
    const read = await api(one, 'GET', '/deviceStates/App:lamp');
    assert.deepEqual(await read.json(), { name: 'App:lamp', state: 'BUSY' });
    socket.close();
  });

  it('lights a busy lamp on node one for a phone in a call on node two', { timeout: 30_000 }, async () => {
    const bobPort = await freePort('udp');
    const registered = await runSipp(
      'register-auth.xml',
      { host: '127.0.0.1', port: two.sipPort },
      { service: 'bob', keys: { expires: 300 }, extra: [...credentials('bob', 'builder'), '-p', String(bobPort)] },
    );
    assert.equal(registered.code, 0, registered.stdout.slice(-2000));
    // bob answers on node two, talks four seconds and hangs up.
    const callee = runSipp(
      'uas-answer-talk-bye.xml',
      { host: '127.0.0.1', port: two.sipPort },
      { service: 'bob', keys: { rtpport: 4022 }, extra: ['-p', String(bobPort)] },
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    const caller = runSipp(
      'uac-auth-wait-bye.xml',
      { host: '127.0.0.1', port: two.sipPort },
      { service: '300', keys: { user: 'alice', rtpport: 4024 }, extra: credentials('alice', 'wonderland') },
    );
    // Node one has no channel of bob's, yet reads him in use from node two's announcement.
    const deadline = Date.now() + 5000;
    let seen = '';
    while (Date.now() < deadline && seen !== 'INUSE') {
      const read = await api(one, 'GET', `/deviceStates/${encodeURIComponent('SIP/bob')}`);
      seen = read.status === 200 ? ((await read.json()) as { state: string }).state : `HTTP ${read.status}`;
      if (seen !== 'INUSE') await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assert.equal(seen, 'INUSE', 'node one merges node two’s endpoint device state');
    // alice's phone watches extension 102 (hint SIP/bob) on node one: first NOTIFY confirmed
    // (busy), the second, once bob hung up on node two, idle.
    const lamp = await runSipp(
      'subscribe-dialog-auth.xml',
      { host: '127.0.0.1', port: one.sipPort },
      { service: '102', keys: { user: 'alice' }, extra: credentials('alice', 'wonderland') },
    );
    assert.equal(lamp.code, 0, lamp.stdout.slice(-3000));
    assert.equal((await callee).code, 0);
    assert.equal((await caller).code, 0);
    const after = await api(one, 'GET', `/deviceStates/${encodeURIComponent('SIP/bob')}`);
    assert.notEqual(((await after.json()) as { state: string }).state, 'INUSE');
  });

  it('keeps application names unique: a connection on node two replaces one on node one', { timeout: 20_000 }, async () => {
    const open = async (node: RunningSwitchboard) => {
      const socket = new WebSocket(`ws://127.0.0.1:${node.httpPort}/ari/events?app=solo&api_key=${API_USER}:${API_PASSWORD}`);
      await new Promise<void>((resolve, reject) => {
        socket.once('open', () => resolve());
        socket.once('error', reject);
      });
      return socket;
    };
    const first = await open(one);
    const replaced = firstEvent(first, 'ApplicationReplaced');
    const second = await open(two);
    assert.equal((await replaced).type, 'ApplicationReplaced');
    const onOne = await api(one, 'GET', '/applications/solo');
    assert.equal(onOne.status, 404, 'node one no longer serves the name');
    assert.equal((await api(two, 'GET', '/applications/solo')).status, 200);
    first.close();
    second.close();
  });
});
