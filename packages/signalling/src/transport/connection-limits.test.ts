/**
 * Connection exhaustion over real TCP and WebSocket sockets on loopback: the per-address cap, the
 * short idle limit of connections that never got anything done, and the message deadline.
 */
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { afterEach, describe, it } from 'node:test';
import { silentLogger } from '@switchboard/core';
import WebSocket from 'ws';
import { StreamTransport } from './stream-transport.js';
import { WsTransport } from './ws-transport.js';

const LIMITS = { maxConnectionsPerAddress: 2, unauthenticatedIdleTimeoutMs: 400, messageTimeoutMs: 400 };

function open(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port }, () => resolve(socket));
    socket.on('error', reject);
  });
}

function closedWithin(socket: { once(event: 'close', fn: () => void): unknown }, limitMs: number): Promise<number> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`still open after ${limitMs} ms`)), limitMs);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve(Date.now() - started);
    });
  });
}

describe('SIP connection limits', () => {
  const cleanup: Array<() => unknown> = [];
  afterEach(async () => {
    for (const fn of cleanup.splice(0)) await fn();
  });

  it('TCP: refuses a third connection from one address, closes silent and dripping ones', async () => {
    const transport = new StreamTransport({
      name: 'tcp',
      protocol: 'tcp',
      bindAddress: '127.0.0.1',
      bindPort: 0,
      logger: silentLogger,
      connectionLimits: LIMITS,
    });
    const { port } = await transport.listen();
    cleanup.push(() => transport.close());
    const first = await open(port);
    const second = await open(port);
    cleanup.push(
      () => first.destroy(),
      () => second.destroy(),
    );
    const third = await open(port);
    await closedWithin(third, 1000);

    // The two held connections say nothing: closed after the unauthenticated idle limit.
    // Both were opened together and expire together: wait for both at once, or the second's close
    // may come before anyone listens for it.
    const [idle] = await Promise.all([closedWithin(first, 3000), closedWithin(second, 3000)]);
    assert.ok(idle >= 200, `closed after ${idle} ms`);

    const drip = await open(port);
    cleanup.push(() => drip.destroy());
    drip.write('OPTIONS sip:a@127.0.0.1 SIP/2.0\r\n');
    const timer = setInterval(() => drip.write('X: 1\r\n'), 50);
    cleanup.push(() => clearInterval(timer));
    await closedWithin(drip, 3000);
  });

  it('WebSocket: refuses connections over the cap and closes an idle one', async () => {
    const transport = new WsTransport({
      name: 'ws',
      protocol: 'ws',
      bindAddress: '127.0.0.1',
      bindPort: 0,
      logger: silentLogger,
      connectionLimits: LIMITS,
    });
    const { port } = await transport.listen();
    cleanup.push(() => transport.close());
    const openWs = () =>
      new Promise<WebSocket>((resolve, reject) => {
        const ws = new WebSocket(`ws://127.0.0.1:${port}`, 'sip');
        ws.once('open', () => resolve(ws));
        ws.once('error', reject);
      });
    const a = await openWs();
    const b = await openWs();
    cleanup.push(
      () => a.terminate(),
      () => b.terminate(),
    );
    await assert.rejects(openWs());
    const idle = await closedWithin(a, 3000);
    assert.ok(idle >= 200, `closed after ${idle} ms`);
  });
});
