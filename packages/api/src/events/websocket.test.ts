import assert from 'node:assert/strict';
import type { IncomingMessage } from 'node:http';
import { after, before, describe, test } from 'node:test';
import WebSocket from 'ws';
import { ALICE, ENTITY_ID, type Harness, startHarness } from '../testing/harness.js';

const WIRE_DATE = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}[+-]\d{4}$/;

interface Refusal {
  status: number;
  headers: IncomingMessage['headers'];
  body: string;
}

/** Opens a socket and resolves once it is open, or with the HTTP answer that refused it. */
function connect(url: string, protocols?: string[], headers: Record<string, string> = {}): Promise<WebSocket | Refusal> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, protocols, { headers });
    ws.once('open', () => resolve(ws));
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => {
        body += chunk.toString();
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    ws.once('error', reject);
  });
}

async function open(url: string, protocols?: string[]): Promise<WebSocket> {
  const result = await connect(url, protocols);
  assert.ok(result instanceof WebSocket, `refused: ${JSON.stringify(result)}`);
  return result;
}

async function refused(url: string, protocols?: string[], headers?: Record<string, string>): Promise<Refusal> {
  const result = await connect(url, protocols, headers);
  assert.ok(!(result instanceof WebSocket), 'the upgrade was accepted');
  return result;
}

type Received = Record<string, unknown> & { type: string; application: string };

/** Collects the events of a socket; `next` waits for the first one matching. */
function inbox(ws: WebSocket) {
  const seen: Received[] = [];
  const waiters: { match: (e: Received) => boolean; resolve: (e: Received) => void }[] = [];
  ws.on('message', (data, isBinary) => {
    assert.equal(isBinary, false, 'events are text frames');
    const event = JSON.parse(String(data)) as Received;
    seen.push(event);
    for (const waiter of [...waiters]) {
      if (waiter.match(event)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(event);
      }
    }
  });
  return {
    seen,
    next(match: (e: Received) => boolean, timeoutMs = 2000): Promise<Received> {
      const found = seen.find(match);
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no matching event; saw ${seen.map((e) => e.type).join(', ')}`)), timeoutMs);
        waiters.push({
          match,
          resolve: (e) => {
            clearTimeout(timer);
            resolve(e);
          },
        });
      });
    },
  };
}

const closed = (ws: WebSocket) =>
  new Promise<void>((resolve) => (ws.readyState === ws.CLOSED ? resolve() : ws.once('close', () => resolve())));

describe('events WebSocket', () => {
  let h: Harness;
  let base: string;
  before(async () => {
    // Without a resume window, closing a connection unregisters its applications at once.
    h = await startHarness({ resumeWindowSeconds: 0 });
    const { port } = await h.server.listen('127.0.0.1', 0);
    base = `ws://127.0.0.1:${port}/ari/events`;
  });
  after(() => h.close());

  test('without credentials the upgrade is refused with 401', async () => {
    const res = await refused(`${base}?app=nope`);
    assert.equal(res.status, 401);
    assert.equal(res.headers['www-authenticate'], 'Basic realm="Switchboard"');
    assert.deepEqual(JSON.parse(res.body), { message: 'Authentication required' });
    assert.equal((await refused(`${base}?app=nope&api_key=alice:wrong`)).status, 401);
    assert.equal(h.core.applications.get('nope'), undefined);
  });

  test('without app the upgrade is refused with 400 MissingParams', async () => {
    for (const query of ['?api_key=alice:secret', '?app=&api_key=alice:secret']) {
      const res = await refused(`${base}${query}`);
      assert.equal(res.status, 400);
      assert.deepEqual(JSON.parse(res.body), { message: 'MissingParams: app' });
    }
  });

  test('an application name over 73 characters is refused', async () => {
    const res = await refused(`${base}?app=${'x'.repeat(74)}&api_key=alice:secret`);
    assert.equal(res.status, 400);
  });

  test('subprotocol: none is accepted, ari is echoed, only others are refused', async () => {
    const none = await open(`${base}?app=proto-none&api_key=alice:secret`);
    assert.equal(none.protocol, '');
    none.close();
    const ari = await open(`${base}?app=proto-ari&api_key=alice:secret`, ['other', 'ari']);
    assert.equal(ari.protocol, 'ari');
    ari.close();
    assert.equal((await refused(`${base}?app=proto-other&api_key=alice:secret`, ['other'])).status, 400);
    await Promise.all([closed(none), closed(ari)]);
  });

  test('Basic credentials work on the upgrade as well', async () => {
    const ws = await connect(`${base}?app=basic-app`, undefined, { authorization: ALICE });
    assert.ok(ws instanceof WebSocket);
    ws.close();
    await closed(ws);
  });

  test('events arrive as JSON text frames inside the envelope, one copy per application', async () => {
    const ws = await open(`${base}?app=first,second&api_key=alice:secret`, ['ari']);
    const events = inbox(ws);
    assert.deepEqual(
      h.core.applications
        .list()
        .map((a) => a.name)
        .filter((n) => n === 'first' || n === 'second'),
      ['first', 'second'],
    );
    const channel = h.createChannel();
    h.enterApplication(channel, 'first', ['x', 'y']);

    const start = await events.next((e) => e.type === 'AppStart');
    assert.equal(start.application, 'first');
    assert.equal(start.asterisk_id, ENTITY_ID);
    assert.match(String(start.timestamp), WIRE_DATE);
    assert.deepEqual(start.args, ['x', 'y']);
    assert.equal((start.channel as { id: string }).id, channel.id);

    // `second` is subscribed to nothing; make it see the channel too and expect two copies.
    h.core.applications.subscribe('second', 'channel', channel.id);
    await h.inject({ method: 'DELETE', url: `/ari/channels/${channel.id}` });
    await events.next((e) => e.type === 'ChannelDestroyed' && e.application === 'second');
    const destroyed = await events.next((e) => e.type === 'ChannelDestroyed' && e.application === 'first');
    assert.equal(destroyed.cause, 16);
    assert.equal(destroyed.cause_txt, 'Normal Clearing');
    await events.next((e) => e.type === 'AppEnd' && e.application === 'first');

    ws.close();
    await closed(ws);
    await waitFor(() => !h.core.applications.get('first') && !h.core.applications.get('second'));
  });

  test('subscribeAll delivers events of channels outside the application', async () => {
    const ws = await open(`${base}?app=watcher&subscribeAll=yes&api_key=alice:secret`);
    const events = inbox(ws);
    const channel = h.createChannel();
    const created = await events
      .next((e) => e.type === 'ChannelStateChange' || e.type === 'ChannelVarset' || e.type === 'ChannelDestroyed', 300)
      .catch(() => undefined);
    assert.equal(created, undefined, 'nothing happened to the channel yet');
    channel.setVariable('COLOR', 'blue');
    const varset = await events.next((e) => e.type === 'ChannelVarset');
    assert.equal(varset.variable, 'COLOR');
    assert.equal(varset.application, 'watcher');
    ws.close();
    await closed(ws);
  });

  test('a second connection for the same application replaces the first', async () => {
    const first = await open(`${base}?app=shared&api_key=alice:secret`);
    const firstEvents = inbox(first);
    const second = await open(`${base}?app=shared&api_key=alice:secret`);
    const replaced = await firstEvents.next((e) => e.type === 'ApplicationReplaced');
    assert.equal(replaced.application, 'shared');
    assert.match(String(replaced.timestamp), WIRE_DATE);
    first.close();
    await closed(first);
    assert.ok(h.core.applications.get('shared'), 'closing the replaced connection leaves the application registered');
    second.close();
    await closed(second);
    await waitFor(() => !h.core.applications.get('shared'));
  });

  test('a plain GET on the events path is 426', async () => {
    const res = await h.inject({ method: 'GET', url: '/ari/events?app=plain' });
    assert.equal(res.statusCode, 426);
    assert.equal(typeof res.json<{ message: string }>().message, 'string');
    assert.equal((await h.inject({ method: 'POST', url: '/ari/events?app=plain' })).statusCode, 405);
  });
});

async function waitFor(condition: () => boolean, timeoutMs = 2000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
