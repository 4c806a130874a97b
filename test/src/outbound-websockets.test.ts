/**
 * Outbound WebSockets against the real server process: ari.conf names two connections to the
 * test's own WebSocket server — a persistent one for `watch` and a per-call one for `demo` (the
 * application extension 100 hands calls to). A sipp call opens the per-call connection, the test
 * answers and hangs it up with REST requests sent on that connection, and the connection closes
 * when the call leaves. The persistent connection is dropped by the test's server and comes back.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import type { IncomingMessage } from 'node:http';
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
  const accepted: Accepted[] = [];

  before(async () => {
    const port = await freePort('tcp');
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
      `[${API_USER}]`,
      'type = user',
      `password = ${API_PASSWORD}`,
      '[watcher]',
      'type = outbound_websocket',
      'apps = watch',
      `uri = ws://127.0.0.1:${port}/persistent`,
      'username = bot-user',
      'password = bot-pass',
      `local_ari_user = ${API_USER}`,
      'reconnect_interval = 200',
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

  it('a per-call connection carries one call from AppStart to AppEnd and closes', { timeout: 60_000 }, async () => {
    assert.equal(on('/per-call').length, 0, 'no connection before a call');
    const phone = await RtpPeer.open();
    const call = runSipp(
      'uac-wait-bye.xml',
      { host: '127.0.0.1', port: sb.sipPort },
      { service: '100', keys: { rtpport: phone.port }, timeoutSeconds: 40 },
    );
    try {
      await waitFor('the per-call connection', () => on('/per-call').length === 1);
      const connection = on('/per-call')[0] as Accepted;
      await waitFor('AppStart', () => connection.received.some((e) => e.type === 'AppStart'));
      assert.equal(connection.received[0]?.type, 'ApplicationRegistered');
      const channelId = connection.received.find((e) => e.type === 'AppStart')?.channel?.id as string;
      assert.equal((await rest(connection, 'answer', 'POST', `channels/${channelId}/answer`)).status_code, 204);
      await waitFor('Up', () => connection.received.some((e) => e.type === 'ChannelStateChange'));
      assert.equal((await rest(connection, 'hangup', 'DELETE', `channels/${channelId}`)).status_code, 204);
      await waitFor('the connection closed', () => connection.closed);
      const types = connection.received.map((e) => e.type);
      assert.ok(types.includes('AppEnd'), types.join(','));
      assert.equal(types.at(-1), 'ApplicationUnregistered');
      const result = await call;
      assert.equal(result.code, 0, result.stdout.slice(-1500));
    } finally {
      phone.close();
      await Promise.allSettled([call]);
    }
  });
});
