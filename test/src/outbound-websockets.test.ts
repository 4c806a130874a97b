/**
 * Outbound WebSockets against the real server process: ari.conf names two connections to the
 * test's own WebSocket server — a persistent one for `watch` and a per-call one for `demo` (the
 * application extension 100 hands calls to). Two concurrent sipp calls open one per-call
 * connection each (application `demo:<channel name>`), the test answers and hangs each up with
 * REST requests sent on its own connection, and each connection closes when its call leaves. The
 * persistent connection is dropped by the test's server and comes back; `module reload res_ari`
 * opens an added connection, reconnects a changed one and closes a removed one.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { writeFileSync } from 'node:fs';
import type { IncomingMessage } from 'node:http';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type WebSocket, WebSocketServer } from 'ws';
import { API_PASSWORD, API_USER, freePort, type RunningSwitchboard, runSipp, startSwitchboard } from './harness.js';
import { RtpPeer } from './rtp-peer.js';

type Received = Record<string, unknown> & { type: string; application?: string; channel?: { id: string } };

interface Accepted {
  ws: WebSocket;
  path: string;
  authorization: string | undefined;
  received: Received[];
  closed: boolean;
}

async function waitFor(what: string, check: () => boolean, ms = 10_000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('outbound WebSockets (ari.conf type = outbound_websocket)', () => {
  let sb: RunningSwitchboard;
  let server: WebSocketServer;
  let port = 0;
  const accepted: Accepted[] = [];
  const userSection = [`[${API_USER}]`, 'type = user', `password = ${API_PASSWORD}`];
  const watcher = (path: string) => [
    '[watcher]',
    'type = outbound_websocket',
    'apps = watch',
    `uri = ws://127.0.0.1:${port}${path}`,
    'username = bot-user',
    'password = bot-pass',
    `local_ari_user = ${API_USER}`,
    'reconnect_interval = 200',
  ];

  before(async () => {
    port = await freePort('tcp');
    server = new WebSocketServer({ host: '127.0.0.1', port, handleProtocols: (p) => (p.has('ari') ? 'ari' : false) });
    await once(server, 'listening');
    server.on('connection', (ws, request: IncomingMessage) => {
      const connection: Accepted = {
        ws,
        path: request.url ?? '',
        authorization: request.headers.authorization,
        received: [],
        closed: false,
      };
      ws.on('message', (data) => connection.received.push(JSON.parse(String(data)) as Received));
      ws.on('close', () => {
        connection.closed = true;
      });
      accepted.push(connection);
    });
    const ariConf = [
      '[general]',
      'enabled = yes',
      ...userSection,
      ...watcher('/persistent'),
      '[calls]',
      'type = outbound_websocket',
      'apps = demo',
      `uri = ws://127.0.0.1:${port}/per-call`,
      'connection_type = per_call_config',
      `local_ari_user = ${API_USER}`,
      'reconnect_attempts = 2',
      '',
    ].join('\n');
    sb = await startSwitchboard({ extraFiles: { 'ari.conf': ariConf } });
  });

  after(async () => {
    await sb?.stop();
    for (const client of server.clients) client.terminate();
    server.close();
  });

  const on = (path: string) => accepted.filter((c) => c.path === path);

  /** Sends a RESTRequest on a connection and waits for its answer. */
  async function rest(connection: Accepted, id: string, method: string, uri: string): Promise<Received> {
    connection.ws.send(JSON.stringify({ type: 'RESTRequest', request_id: id, method, uri }));
    await waitFor(`the answer to ${id}`, () => connection.received.some((e) => e.type === 'RESTResponse' && e.request_id === id));
    return connection.received.find((e) => e.type === 'RESTResponse' && e.request_id === id) as Received;
  }

  it('the persistent connection opens at start with its credentials, and reconnects after a drop', { timeout: 30_000 }, async () => {
    await waitFor('the persistent connection', () => on('/persistent').length === 1);
    const first = on('/persistent')[0] as Accepted;
    assert.equal(first.authorization, `Basic ${Buffer.from('bot-user:bot-pass').toString('base64')}`);
    await waitFor('ApplicationRegistered', () => first.received.some((e) => e.type === 'ApplicationRegistered'));
    assert.equal(first.received[0]?.application, 'watch');
    const info = await rest(first, 'info', 'GET', 'system/info');
    assert.equal(info.status_code, 200);

    first.ws.terminate();
    await waitFor('the reconnect', () => on('/persistent').length === 2);
    const second = on('/persistent')[1] as Accepted;
    await waitFor('ApplicationRegistered again', () => second.received.some((e) => e.type === 'ApplicationRegistered'));
  });

  it('two concurrent calls get one per-call connection each, closed when the call leaves', { timeout: 60_000 }, async () => {
    assert.equal(on('/per-call').length, 0, 'no connection before a call');
    const phones = [await RtpPeer.open(), await RtpPeer.open()];
    const calls = phones.map((phone) =>
      runSipp(
        'uac-wait-bye.xml',
        { host: '127.0.0.1', port: sb.sipPort },
        { service: '100', keys: { rtpport: phone.port }, timeoutSeconds: 40 },
      ),
    );
    try {
      await waitFor('two per-call connections', () => on('/per-call').length === 2);
      const connections = on('/per-call');
      await waitFor('AppStart on each', () => connections.every((c) => c.received.some((e) => e.type === 'AppStart')));
      const channelIds = connections.map((c) => c.received.find((e) => e.type === 'AppStart')?.channel?.id as string);
      assert.notEqual(channelIds[0], channelIds[1], 'each connection carries its own call');
      for (const [i, connection] of connections.entries()) {
        const start = connection.received.find((e) => e.type === 'AppStart') as Received & { channel: { id: string; name: string } };
        assert.equal(connection.received[0]?.type, 'ApplicationRegistered');
        assert.equal(connection.received[0]?.application, `demo:${start.channel.name}`, 'the ephemeral application of the call');
        assert.equal(start.application, `demo:${start.channel.name}`);
        assert.equal((await rest(connection, `answer${i}`, 'POST', `channels/${start.channel.id}/answer`)).status_code, 204);
        await waitFor('Up', () => connection.received.some((e) => e.type === 'ChannelStateChange'));
      }
      // Each connection heard of its own channel only.
      for (const [i, connection] of connections.entries()) {
        const seen = new Set(connection.received.flatMap((e) => (e.channel?.id ? [e.channel.id] : [])));
        assert.deepEqual([...seen], [channelIds[i]]);
      }
      const [first, second] = connections as [Accepted, Accepted];
      assert.equal((await rest(first, 'hangup0', 'DELETE', `channels/${channelIds[0]}`)).status_code, 204);
      await waitFor('the first connection closed', () => first.closed);
      const types = first.received.map((e) => e.type);
      assert.ok(types.includes('AppEnd'), types.join(','));
      assert.equal(types.at(-1), 'ApplicationUnregistered');
      assert.equal(second.closed, false, 'the other call keeps its connection');
      assert.equal((await rest(second, 'hangup1', 'DELETE', `channels/${channelIds[1]}`)).status_code, 204);
      await waitFor('the second connection closed', () => second.closed);
      for (const call of calls) {
        const result = await call;
        assert.equal(result.code, 0, result.stdout.slice(-1500));
      }
    } finally {
      for (const phone of phones) phone.close();
      await Promise.allSettled(calls);
    }
  });

  it(
    'module reload res_ari follows ari.conf: added connections open, changed ones reconnect, removed ones close',
    { timeout: 30_000 },
    async () => {
      const reload = async (lines: string[]) => {
        writeFileSync(join(sb.confDir, 'ari.conf'), ['[general]', 'enabled = yes', ...userSection, ...lines, ''].join('\n'));
        const answer = await fetch(`${sb.baseUrl}/ari/system/modules/res_ari`, {
          method: 'PUT',
          headers: { authorization: `Basic ${Buffer.from(`${API_USER}:${API_PASSWORD}`).toString('base64')}` },
        });
        assert.equal(answer.status, 204);
      };
      await waitFor('the persistent connection', () => on('/persistent').some((c) => !c.closed));
      const before = on('/persistent').filter((c) => !c.closed);
      assert.equal(before.length, 1);
      const current = before[0] as Accepted;

      // A retry option alone: the socket stays.
      await reload([...watcher('/persistent').map((l) => (l.startsWith('reconnect_interval') ? 'reconnect_interval = 300' : l))]);
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal(current.closed, false, 'reconnect_interval applies at the next reconnect');

      // An added connection opens; a changed one (its uri) reconnects.
      const extra = [
        '[second]',
        'type = outbound_websocket',
        'apps = extra',
        `uri = ws://127.0.0.1:${port}/added`,
        `local_ari_user = ${API_USER}`,
      ];
      await reload([...watcher('/moved'), ...extra]);
      await waitFor('the added connection', () => on('/added').length === 1);
      await waitFor('the changed connection closed', () => current.closed);
      assert.equal(current.received.at(-1)?.type, 'ApplicationUnregistered');
      await waitFor('the changed connection reopened', () => on('/moved').length === 1);
      const moved = on('/moved')[0] as Accepted;
      await waitFor('ApplicationRegistered on the new address', () => moved.received.some((e) => e.type === 'ApplicationRegistered'));
      const added = on('/added')[0] as Accepted;
      await waitFor('ApplicationRegistered extra', () => added.received.some((e) => e.application === 'extra'));

      // Removed: its applications are unregistered and it closes.
      await reload(watcher('/moved'));
      await waitFor('the removed connection closed', () => added.closed);
      assert.equal(added.received.at(-1)?.type, 'ApplicationUnregistered');
      assert.equal(moved.closed, false, 'an unchanged connection stays');
      const apps = await fetch(`${sb.baseUrl}/ari/applications`, {
        headers: { authorization: `Basic ${Buffer.from(`${API_USER}:${API_PASSWORD}`).toString('base64')}` },
      });
      const names = ((await apps.json()) as { name: string }[]).map((a) => a.name);
      assert.ok(names.includes('watch') && !names.includes('extra'), names.join(','));
    },
  );
});
