/**
 * HTTP connection exhaustion: the per-address connection cap, the header deadline against slow
 * clients, and an events WebSocket that outlives the idle limit of plain connections.
 */
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import WebSocket from 'ws';
import { basicAuth, freePort, type RunningSwitchboard, startSwitchboard } from './harness.js';

/** Resolves with how long the server took to close the socket (ms), or rejects after `limitMs`. */
function closedWithin(socket: Socket, limitMs: number): Promise<number> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`still open after ${limitMs} ms`)), limitMs);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve(Date.now() - started);
    });
  });
}

function open(port: number, localAddress: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, localAddress }, () => resolve(socket));
    socket.on('error', reject);
  });
}

describe('HTTP connection limits (http.conf)', () => {
  let sb: RunningSwitchboard;
  before(async () => {
    const httpPort = await freePort('tcp');
    sb = await startSwitchboard({
      httpPort,
      extraFiles: {
        'http.conf': `[general]\nbindaddr = 127.0.0.1\nbindport = ${httpPort}\nsessionlimit_per_address = 3\nheader_timeout = 1000\nrequest_timeout = 1500\nsession_inactivity = 1500\n`,
      },
    });
  });
  after(async () => {
    await sb.stop();
  });

  it('refuses connections beyond the per-address cap and serves other addresses', async () => {
    const held = [await open(sb.httpPort, '127.0.0.5'), await open(sb.httpPort, '127.0.0.5'), await open(sb.httpPort, '127.0.0.5')];
    try {
      const extra = await open(sb.httpPort, '127.0.0.5');
      await closedWithin(extra, 2000);
      const res = await fetch(`${sb.baseUrl}/ari/system/ping`, { headers: { authorization: basicAuth() } });
      assert.equal(res.status, 200);
    } finally {
      for (const socket of held) socket.destroy();
    }
  });

  it('closes a connection whose headers never end', async () => {
    const slow = await open(sb.httpPort, '127.0.0.7');
    slow.write('GET /ari/system/ping HTTP/1.1\r\nHost: x\r\n');
    const drip = setInterval(() => slow.write('X-Drip: 1\r\n'), 200);
    try {
      const ms = await closedWithin(slow, 5000);
      assert.ok(ms < 4000, `closed after ${ms} ms`);
    } finally {
      clearInterval(drip);
      slow.destroy();
    }
  });

  it('keeps an idle events WebSocket open past the inactivity and request limits of plain connections', async () => {
    const ws = new WebSocket(`ws://127.0.0.1:${sb.httpPort}/ari/events?app=idle`, { headers: { authorization: basicAuth() } });
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    let closed = false;
    ws.once('close', () => {
      closed = true;
    });
    await new Promise((resolve) => setTimeout(resolve, 2500));
    assert.equal(closed, false);
    ws.close();
  });
});
