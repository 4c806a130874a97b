/**
 * The administrative and state resources against the real server: device states and their events,
 * mailbox persistence across a restart, subscription counting, user events, unloading the mailbox
 * module, and a log channel receiving lines and rotating.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import ari, { type AriClient, type AriEvent } from 'ari-client';
import WebSocket from 'ws';
import { API_PASSWORD, API_USER, type RunningSwitchboard, basicAuth, runSipp, startSwitchboard } from './harness.js';

/** A WebSocket serving `app` that collects the events it receives. */
async function openEvents(
  sb: RunningSwitchboard,
  app: string,
): Promise<{ events: AriEvent[]; next(type: string): Promise<AriEvent>; close(): void }> {
  const socket = new WebSocket(`ws://127.0.0.1:${sb.httpPort}/ari/events?app=${app}&api_key=${API_USER}:${API_PASSWORD}`);
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  const events: AriEvent[] = [];
  const waiters: { type: string; resolve: (e: AriEvent) => void }[] = [];
  socket.on('message', (data: Buffer) => {
    const event = JSON.parse(data.toString()) as AriEvent;
    events.push(event);
    for (const waiter of waiters.filter((w) => w.type === event.type)) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve(event);
    }
  });
  return {
    events,
    next: (type) =>
      new Promise<AriEvent>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no ${type} event`)), 5000);
        waiters.push({
          type,
          resolve: (e) => {
            clearTimeout(timer);
            resolve(e);
          },
        });
      }),
    close: () => socket.close(),
  };
}

describe('administrative resources end to end', () => {
  let sb: RunningSwitchboard;
  const call = (method: string, path: string, body?: unknown) =>
    fetch(`${sb.baseUrl}/ari${path}`, {
      method,
      headers: { authorization: basicAuth(), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });

  before(async () => {
    sb = await startSwitchboard();
  });
  after(async () => {
    await sb.stop();
  });

  it('announces a device state change to a WebSocket subscribed with deviceState:App:door', async () => {
    const ws = await openEvents(sb, 'doorman');
    assert.equal((await call('POST', '/applications/doorman/subscription?eventSource=deviceState:App:door')).status, 200);
    const changed = ws.next('DeviceStateChanged');
    assert.equal((await call('PUT', '/deviceStates/App:door?deviceState=BUSY')).status, 204);
    const event = await changed;
    assert.deepEqual(event.device_state, { name: 'App:door', state: 'BUSY' });
    assert.equal(event.application, 'doorman');
    ws.close();
  });

  it('counts subscriptions over the wire', async () => {
    const ws = await openEvents(sb, 'counter');
    const subscribe = () => call('POST', '/applications/counter/subscription?eventSource=deviceState:App:bell');
    const unsubscribe = () => call('DELETE', '/applications/counter/subscription?eventSource=deviceState:App:bell');
    await subscribe();
    await subscribe();
    await unsubscribe();
    const still = ws.next('DeviceStateChanged');
    await call('PUT', '/deviceStates/App:bell?deviceState=RINGING');
    assert.equal((await still).device_state !== undefined, true);
    const last = (await (await unsubscribe()).json()) as { device_names: string[] };
    assert.deepEqual(last.device_names, []);
    assert.equal((await unsubscribe()).status, 422);
    ws.close();
  });

  it('delivers a user event through ari-client', async () => {
    const client: AriClient = await ari.connect(sb.baseUrl, API_USER, API_PASSWORD);
    const received = new Promise<AriEvent>((resolve) => client.on('ChannelUserevent', (event: AriEvent) => resolve(event)));
    await client.start('notified');
    const events = client.events as Record<string, (params: Record<string, unknown>) => Promise<unknown>>;
    await events.userEvent?.({ eventName: 'Doorbell', application: 'notified', variables: { floor: '2' } });
    const event = await received;
    assert.equal(event.eventname, 'Doorbell');
    assert.deepEqual(event.userevent, { floor: '2', eventname: 'Doorbell' });
    client.stop();
  });

  it('keeps mailboxes and device states across a restart, and unloading the mailbox module disables them', async () => {
    assert.equal((await call('PUT', '/mailboxes/1000@default?oldMessages=1&newMessages=2')).status, 204);
    await sb.restart();
    assert.deepEqual(await (await call('GET', '/mailboxes/1000@default')).json(), {
      name: '1000@default',
      old_messages: 1,
      new_messages: 2,
    });
    assert.deepEqual(await (await call('GET', '/deviceStates/App:door')).json(), { name: 'App:door', state: 'BUSY' });

    assert.equal((await call('DELETE', '/system/modules/res_mwi_external')).status, 204);
    assert.equal((await call('PUT', '/mailboxes/1000@default?oldMessages=0&newMessages=0')).status, 409);
    assert.deepEqual(await (await call('GET', '/mailboxes')).json(), []);
    assert.equal((await call('POST', '/system/modules/res_mwi_external')).status, 204);
    assert.equal(((await (await call('GET', '/mailboxes/1000@default')).json()) as { new_messages: number }).new_messages, 2);
  });

  it('writes log lines to a new log channel and rotates it', async () => {
    assert.equal((await call('POST', '/system/logging/e2e.log?configuration=notice,warning,error')).status, 204);
    const file = join(sb.dataDir, 'log', 'e2e.log');
    // Registering an application is logged at info (notice for log channels).
    const ws = await openEvents(sb, 'logged');
    ws.close();
    await waitFor(() => existsSync(file) && readFileSync(file, 'utf8').includes('application registered'));
    assert.equal((await call('PUT', '/system/logging/e2e.log/rotate')).status, 204);
    assert.ok(readFileSync(`${file}.1`, 'utf8').includes('application registered'));
    const again = await openEvents(sb, 'logged-again');
    again.close();
    await waitFor(() => readFileSync(file, 'utf8').includes('logged-again'));
    assert.equal((await call('DELETE', '/system/logging/e2e.log')).status, 204);
  });
});

describe('endpoint state from registrations end to end', () => {
  let sb: RunningSwitchboard;
  const get = async (path: string) => (await fetch(`${sb.baseUrl}/ari${path}`, { headers: { authorization: basicAuth() } })).json();

  before(async () => {
    sb = await startSwitchboard();
    const phone = `[transport-udp]\ntype = transport\nprotocol = udp\nbind = 127.0.0.1:${sb.sipPort}\n
[carol]\ntype = endpoint\ncontext = from-internal\nallow = ulaw\nauth = carol-auth\naors = carol\n
[carol-auth]\ntype = auth\nauth_type = userpass\nusername = carol\npassword = secret\n
[carol]\ntype = aor\nmax_contacts = 1\n`;
    writeFileSync(join(sb.confDir, 'pjsip.conf'), phone);
    await sb.restart();
  });
  after(async () => {
    await sb.stop();
  });

  it('a registration makes SIP/carol online, announces it, and its device NOT_INUSE', { timeout: 30_000 }, async () => {
    assert.deepEqual(await get('/deviceStates/PJSIP%2Fcarol'), { name: 'SIP/carol', state: 'UNKNOWN' });
    const ws = await openEvents(sb, 'watcher');
    await fetch(`${sb.baseUrl}/ari/applications/watcher/subscription?eventSource=endpoint:PJSIP/carol,deviceState:SIP/carol`, {
      method: 'POST',
      headers: { authorization: basicAuth() },
    });
    const online = ws.next('EndpointStateChange');
    const device = ws.next('DeviceStateChanged');
    const sipp = await runSipp(
      'register-auth.xml',
      { host: '127.0.0.1', port: sb.sipPort },
      { service: 'carol', keys: { expires: 300 }, extra: ['-au', 'carol', '-ap', 'secret'] },
    );
    assert.equal(sipp.code, 0, sipp.stdout.slice(-2000));
    assert.equal(((await online).endpoint as { state: string }).state, 'online');
    assert.deepEqual((await device).device_state, { name: 'SIP/carol', state: 'NOT_INUSE' });
    assert.equal(((await get('/endpoints/SIP/carol')) as { state: string }).state, 'online');
    ws.close();
  });
});

async function waitFor(condition: () => boolean, ms = 5000): Promise<void> {
  const end = Date.now() + ms;
  while (!condition()) {
    if (Date.now() > end) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
