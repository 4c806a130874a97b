import assert from 'node:assert/strict';
import { once } from 'node:events';
import type { IncomingMessage } from 'node:http';
import { after, before, describe, test } from 'node:test';
import type { OutboundWebsocketConfig } from '@switchboard/core';
import { type WebSocket, WebSocketServer } from 'ws';
import { type Harness, startHarness } from '../testing/harness.js';
import { waitFor } from '../testing/ws-inbox.js';

type Received = Record<string, unknown> & { type: string; application?: string; sequence?: number };

/** The application's own server: records every connection and what arrived on it. */
class ApplicationServer {
  readonly connections: { ws: WebSocket; request: IncomingMessage; received: Received[]; closed: boolean }[] = [];
  readonly server: WebSocketServer;
  port = 0;

  constructor() {
    this.server = new WebSocketServer({ host: '127.0.0.1', port: 0, handleProtocols: (p) => (p.has('ari') ? 'ari' : false) });
    this.server.on('connection', (ws, request) => {
      const connection = { ws, request, received: [] as Received[], closed: false };
      ws.on('message', (data) => connection.received.push(JSON.parse(String(data)) as Received));
      ws.on('close', () => {
        connection.closed = true;
      });
      this.connections.push(connection);
    });
  }

  async listen(): Promise<void> {
    await once(this.server, 'listening');
    this.port = (this.server.address() as { port: number }).port;
  }

  close(): void {
    for (const client of this.server.clients) client.terminate();
    this.server.close();
  }
}

function outbound(name: string, port: number, overrides: Partial<OutboundWebsocketConfig>): OutboundWebsocketConfig {
  return {
    name,
    apps: [],
    uri: `ws://127.0.0.1:${port}/ari`,
    protocols: ['ari'],
    connectionType: 'persistent',
    localAriUser: 'alice',
    subscribeAll: false,
    connectionTimeoutMs: 1000,
    reconnectIntervalMs: 100,
    reconnectAttempts: 2,
    tlsEnabled: false,
    verifyServerCert: true,
    verifyServerHostname: true,
    ...overrides,
  };
}

describe('outbound WebSockets', () => {
  let h: Harness;
  const persistent = new ApplicationServer();
  const perCall = new ApplicationServer();

  before(async () => {
    await Promise.all([persistent.listen(), perCall.listen()]);
    h = await startHarness({
      outboundWebsockets: [
        outbound('always', persistent.port, { apps: ['out-a', 'out-b'], username: 'bot', password: 'bot-secret' }),
        outbound('per-call', perCall.port, { apps: ['per-call-app'], connectionType: 'per_call_config' }),
        outbound('nowhere', 1, { apps: ['unreachable-app'], connectionType: 'per_call_config', reconnectAttempts: 1 }),
      ],
    });
    await h.server.listen('127.0.0.1', 0);
  });
  after(async () => {
    await h.close();
    persistent.close();
    perCall.close();
  });

  test('a persistent connection registers its applications, with the configured credentials', async () => {
    await waitFor(() => persistent.connections.length === 1);
    const [connection] = persistent.connections;
    assert.ok(connection);
    assert.equal(connection.request.headers.authorization, `Basic ${Buffer.from('bot:bot-secret').toString('base64')}`);
    await waitFor(() => connection.received.length === 2);
    assert.deepEqual(
      connection.received.map((e) => [e.type, e.application]),
      [
        ['ApplicationRegistered', 'out-a'],
        ['ApplicationRegistered', 'out-b'],
      ],
    );
    assert.ok(h.core.applications.get('out-a'));
  });

  test('events and REST over WebSocket flow on it', async () => {
    const connection = persistent.connections.at(-1);
    assert.ok(connection);
    const channel = h.createChannel();
    h.enterApplication(channel, 'out-a');
    await waitFor(() => connection.received.some((e) => e.type === 'AppStart'));
    connection.ws.send(JSON.stringify({ type: 'RESTRequest', request_id: 'q1', method: 'GET', uri: `channels/${channel.id}` }));
    await waitFor(() => connection.received.some((e) => e.type === 'RESTResponse'));
    const answer = connection.received.find((e) => e.type === 'RESTResponse');
    assert.equal(answer?.status_code, 200);
    assert.equal(JSON.parse(String(answer?.message_body)).id, channel.id);
  });

  test('a forced disconnect is followed by a reconnect that replays what happened meanwhile', async () => {
    const first = persistent.connections.at(-1);
    assert.ok(first);
    const channel = h.createChannel();
    h.enterApplication(channel, 'out-a');
    await waitFor(() => first.received.some((e) => e.type === 'AppStart' && (e.channel as { id: string }).id === channel.id));
    const lastSeen = Math.max(
      ...first.received.filter((e) => e.application === 'out-a' && e.sequence !== undefined).map((e) => e.sequence as number),
    );
    first.ws.terminate();
    await waitFor(() => first.closed);
    channel.setVariable('WHILE_AWAY', '1');
    await waitFor(() => persistent.connections.length === 2, 5000);
    const second = persistent.connections[1];
    assert.ok(second);
    await waitFor(() => second.received.some((e) => e.type === 'ChannelVarset'));
    const numbered = second.received.filter((e) => e.application === 'out-a' && e.sequence !== undefined).map((e) => e.sequence as number);
    assert.equal(numbered[0], lastSeen + 1, 'the stream continues right after what was written before the drop');
    assert.deepEqual(
      numbered,
      numbered.map((_, i) => lastSeen + 1 + i),
    );
    assert.ok(second.received.some((e) => e.type === 'ApplicationRegistered' && e.application === 'out-a'));
  });

  test('each call entering a per-call application gets a connection of its own, closed when it leaves', async () => {
    assert.equal(perCall.connections.length, 0, 'nothing opened before a call');
    assert.equal(h.core.applications.get('per-call-app'), undefined);
    const first = h.createChannel();
    const second = h.createChannel();
    const firstExit = h.core.applications.enter(first, 'per-call-app', ['x']);
    const secondExit = h.core.applications.enter(second, 'per-call-app', ['y']);
    await waitFor(() => perCall.connections.length === 2);
    const connectionOf = (channel: { name: string }) =>
      perCall.connections.find((c) => c.received.some((e) => e.application === `per-call-app:${channel.name}`));
    await waitFor(() => connectionOf(first) !== undefined && connectionOf(second) !== undefined);
    const [a, b] = [connectionOf(first), connectionOf(second)];
    assert.ok(a && b && a !== b, 'two distinct connections');
    await waitFor(() => a.received.some((e) => e.type === 'AppStart') && b.received.some((e) => e.type === 'AppStart'));
    assert.deepEqual(
      a.received.map((e) => [e.type, e.application]),
      [
        ['ApplicationRegistered', `per-call-app:${first.name}`],
        ['AppStart', `per-call-app:${first.name}`],
      ],
    );
    assert.equal(h.core.applications.get(`per-call-app:${first.name}`)?.name, `per-call-app:${first.name}`);

    // Each connection sees its own channel only.
    first.setVariable('ONLY_FIRST', '1');
    second.setVariable('ONLY_SECOND', '1');
    await waitFor(() => a.received.some((e) => e.type === 'ChannelVarset') && b.received.some((e) => e.type === 'ChannelVarset'));
    const channelIds = (c: typeof a) =>
      new Set(c.received.flatMap((e) => ((e.channel as { id?: string })?.id ? [(e.channel as { id: string }).id] : [])));
    assert.deepEqual([...channelIds(a)], [first.id]);
    assert.deepEqual([...channelIds(b)], [second.id]);

    // REST over the call's own connection, with the ephemeral application's name.
    a.ws.send(
      JSON.stringify({
        type: 'RESTRequest',
        request_id: 'r1',
        method: 'GET',
        uri: `applications/${encodeURIComponent(`per-call-app:${first.name}`)}`,
      }),
    );
    await waitFor(() => a.received.some((e) => e.type === 'RESTResponse'));
    assert.equal(a.received.find((e) => e.type === 'RESTResponse')?.status_code, 200);

    await h.inject({ method: 'DELETE', url: `/ari/channels/${first.id}` });
    assert.deepEqual(await firstExit, { kind: 'hangup' });
    await waitFor(() => a.closed);
    const types = a.received.map((e) => e.type);
    assert.ok(types.indexOf('AppEnd') < types.indexOf('ApplicationUnregistered'), types.join(','));
    assert.equal(h.core.applications.get(`per-call-app:${first.name}`), undefined, 'unregistered with its connection');
    assert.equal(b.closed, false, 'the other call keeps its connection');

    await h.inject({ method: 'DELETE', url: `/ari/channels/${second.id}` });
    assert.deepEqual(await secondExit, { kind: 'hangup' });
    await waitFor(() => b.closed);
  });

  test('a per-call connection dropped while its call is in reconnects, and its events go on', async () => {
    const seenBefore = perCall.connections.length;
    const channel = h.createChannel();
    const exit = h.core.applications.enter(channel, 'per-call-app', []);
    await waitFor(() => perCall.connections.length === seenBefore + 1);
    const first = perCall.connections.at(-1);
    assert.ok(first);
    await waitFor(() => first.received.some((e) => e.type === 'AppStart'));
    first.ws.terminate();
    await waitFor(() => first.closed);
    await waitFor(() => perCall.connections.length === seenBefore + 2, 5000);
    const second = perCall.connections.at(-1);
    assert.ok(second);
    await waitFor(() => second.received.some((e) => e.type === 'ApplicationRegistered'));
    assert.equal(second.received[0]?.application, `per-call-app:${channel.name}`);
    channel.setVariable('AFTER_DROP', '1');
    await waitFor(() => second.received.some((e) => e.type === 'ChannelVarset'));
    await h.inject({ method: 'DELETE', url: `/ari/channels/${channel.id}` });
    assert.deepEqual(await exit, { kind: 'hangup' });
    await waitFor(() => second.closed);
  });

  test('a per-call application whose server cannot be reached fails the call after its attempts', async () => {
    const channel = h.createChannel();
    const exit = await h.core.applications.enter(channel, 'unreachable-app', []);
    assert.equal(exit.kind, 'failed');
  });
});
