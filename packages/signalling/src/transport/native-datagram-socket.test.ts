/**
 * The native SIP UDP socket against real dgram peers on loopback: order, sources, sizes, failed
 * sends, the bounds of both rings, and closing. Skipped (and said so) where the addon was not built.
 */
import assert from 'node:assert/strict';
import { createSocket, type Socket } from 'node:dgram';
import { describe, it } from 'node:test';
import { Worker } from 'node:worker_threads';
import type { DatagramSource } from './datagram-socket.js';
import { droppedSipDatagrams, NativeDatagramSocket, nativeDatagramSocketsAvailable } from './native-datagram-socket.js';

const skip = nativeDatagramSocketsAvailable() ? false : 'the native SIP UDP socket is not built here';

interface Received {
  data: Buffer;
  source: DatagramSource;
}

async function openNative(
  address = '127.0.0.1',
  bufferBytes?: number,
): Promise<{ socket: NativeDatagramSocket; port: number; inbox: Received[] }> {
  const inbox: Received[] = [];
  const socket = new NativeDatagramSocket((data, source) => inbox.push({ data, source }));
  const { port } = await socket.bind(address, 0, bufferBytes);
  return { socket, port, inbox };
}

async function openPeer(type: 'udp4' | 'udp6' = 'udp4', address = '127.0.0.1'): Promise<{ peer: Socket; inbox: Buffer[] }> {
  // A burst from the socket's thread (sendmmsg) can outrun the kernel's default 208 KiB receive buffer.
  const peer = createSocket({ type, recvBufferSize: 4 * 1024 * 1024 });
  const inbox: Buffer[] = [];
  peer.on('message', (data) => inbox.push(data));
  await new Promise<void>((resolve) => peer.bind(0, address, () => resolve()));
  return { peer, inbox };
}

async function until(check: () => boolean, what: string, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

function closePeer(peer: Socket): Promise<void> {
  return new Promise((resolve) => peer.close(() => resolve()));
}

describe('native SIP UDP socket', { skip }, () => {
  it('delivers datagrams in order with their source, and sends back', async () => {
    const { socket, port, inbox } = await openNative();
    const { peer, inbox: peerInbox } = await openPeer();
    for (let i = 0; i < 50; i++) peer.send(Buffer.from(`message ${i}`), port, '127.0.0.1');
    await until(() => inbox.length === 50, '50 datagrams');
    assert.deepEqual(
      inbox.map((r) => r.data.toString()),
      Array.from({ length: 50 }, (_, i) => `message ${i}`),
    );
    for (const { source } of inbox) assert.deepEqual(source, { address: '127.0.0.1', port: peer.address().port });
    await Promise.all(Array.from({ length: 20 }, (_, i) => socket.send(Buffer.from(`reply ${i}`), peer.address().port, '127.0.0.1')));
    await until(() => peerInbox.length === 20, '20 replies');
    assert.deepEqual(
      peerInbox.map((b) => b.toString()),
      Array.from({ length: 20 }, (_, i) => `reply ${i}`),
    );
    await socket.close();
    await closePeer(peer);
  });

  it('carries the largest datagram both ways, byte for byte', async () => {
    const { socket, port, inbox } = await openNative();
    const { peer, inbox: peerInbox } = await openPeer();
    const big = Buffer.alloc(65507);
    for (let i = 0; i < big.length; i++) big[i] = (i * 7) & 255;
    peer.send(big, port, '127.0.0.1');
    await until(() => inbox.length === 1, 'the large datagram');
    assert.ok(inbox[0]?.data.equals(big));
    await socket.send(big, peer.address().port, '127.0.0.1');
    await until(() => peerInbox.length === 1, 'the large reply');
    assert.ok(peerInbox[0]?.equals(big));
    await socket.close();
    await closePeer(peer);
  });

  it('keeps every datagram and its order across many wraps of both rings', async () => {
    const { socket, port, inbox } = await openNative();
    const { peer, inbox: peerInbox } = await openPeer();
    const payload = (i: number) => Buffer.concat([Buffer.from(`${i};`), Buffer.alloc(900 + (i % 300), i & 255)]);
    // 12,000 of about 1 KB: three times round the 4 MiB outbound ring, in rounds small enough for any
    // receive buffer the kernel grants the peer.
    const ROUND = 50;
    for (let round = 0; round < 12000 / ROUND; round++) {
      const sends: Promise<void>[] = [];
      for (let i = round * ROUND; i < (round + 1) * ROUND; i++) sends.push(socket.send(payload(i), peer.address().port, '127.0.0.1'));
      await Promise.all(sends);
      await until(() => peerInbox.length >= (round + 1) * ROUND, `round ${round}`);
    }
    for (const [i, data] of peerInbox.entries()) assert.ok(data.equals(payload(i)), `datagram ${i}`);
    // And the other way, paced so the kernel's buffer never overflows.
    for (let round = 0; round < 12000 / ROUND; round++) {
      for (let i = round * ROUND; i < (round + 1) * ROUND; i++) peer.send(payload(i), port, '127.0.0.1');
      await until(() => inbox.length >= (round + 1) * ROUND, `inbound round ${round}`);
    }
    for (const [i, { data }] of inbox.entries()) assert.ok(data.equals(payload(i)), `inbound datagram ${i}`);
    assert.deepEqual(socket.dropped, { inboundQueue: 0, receiveBuffer: 0 });
    await socket.close();
    await closePeer(peer);
  });

  it('rejects a send the kernel refuses with its error, and goes on with the others', async () => {
    const { socket } = await openNative();
    const { peer, inbox: peerInbox } = await openPeer();
    // No SO_BROADCAST: the socket's thread gets EACCES from the kernel.
    const refused = socket.send(Buffer.from('to everyone'), 5060, '255.255.255.255');
    const fine = socket.send(Buffer.from('to the peer'), peer.address().port, '127.0.0.1');
    await assert.rejects(refused, (err: NodeJS.ErrnoException) => err.code === 'EACCES');
    await fine;
    await until(() => peerInbox.length === 1, 'the datagram after the refused one');
    // An address of the other family is refused at once.
    await assert.rejects(socket.send(Buffer.from('x'), 5060, '::1'), (err: NodeJS.ErrnoException) => err.code === 'EINVAL');
    await socket.close();
    await closePeer(peer);
  });

  it('refuses sends beyond its 4 MiB queue within one turn of the loop (ENOBUFS), and sends the rest', async () => {
    const { socket } = await openNative();
    const { peer } = await openPeer();
    const outcomes = await Promise.allSettled(
      Array.from({ length: 6000 }, (_, i) => socket.send(Buffer.alloc(1000, i & 255), peer.address().port, '127.0.0.1')),
    );
    const refused = outcomes.filter((o) => o.status === 'rejected');
    const sent = outcomes.length - refused.length;
    assert.ok(refused.length > 0, 'some sends are refused');
    for (const outcome of refused) assert.equal((outcome.reason as NodeJS.ErrnoException).code, 'ENOBUFS');
    // The rest was handed to the kernel (the peer's receive buffer may not hold such a burst).
    assert.ok(sent >= 3900, `${sent} sends queued`);
    await socket.close();
    await closePeer(peer);
  });

  it('drops and counts datagrams that find its 4 MiB inbound queue full while the loop is busy: every one accounted for', async () => {
    const before = droppedSipDatagrams();
    const { socket, port, inbox } = await openNative();
    // The sender runs on a thread of its own while this one is kept busy: the socket's thread goes
    // on reading, and its ring fills.
    const flags = new Int32Array(new SharedArrayBuffer(4));
    const sender = new Worker(
      `const { createSocket } = require('node:dgram');
       const { workerData } = require('node:worker_threads');
       const flags = new Int32Array(workerData.flags);
       const socket = createSocket('udp4');
       const payload = Buffer.alloc(1000, 1);
       let sent = 0;
       const burst = () => {
         // Closed from the last send's callback: a send still queued in dgram when it closes is never sent.
         const done = () => socket.close(() => { Atomics.store(flags, 0, 1); Atomics.notify(flags, 0); });
         for (let i = 0; i < 500 && sent < 12000; i++, sent++) socket.send(payload, workerData.port, '127.0.0.1', sent === 11999 ? done : undefined);
         if (sent < 12000) setImmediate(burst);
       };
       socket.bind(0, '127.0.0.1', burst);`,
      { eval: true, workerData: { port, flags: flags.buffer } },
    );
    Atomics.wait(flags, 0, 0, 20_000);
    // On loopback a datagram is either queued for the socket or dropped and counted by the kernel
    // (its receive buffer full: SO_MEMINFO), so delivered + dropped in the ring + dropped by the
    // kernel is everything sent, once the ring has been emptied.
    const accounted = () => inbox.length + socket.dropped.inboundQueue + socket.dropped.receiveBuffer;
    await until(() => accounted() >= 12000, 'the flood').catch((error: Error) => {
      throw new Error(`${error.message}: ${inbox.length} delivered, dropped ${JSON.stringify(socket.dropped)}`);
    });
    await sender.terminate();
    const dropped = socket.dropped;
    assert.ok(dropped.inboundQueue > 0, 'the full ring dropped datagrams');
    assert.ok(inbox.length >= 3500, `${inbox.length} delivered`);
    assert.equal(accounted(), 12000, `${inbox.length} delivered, ${dropped.inboundQueue} + ${dropped.receiveBuffer} dropped`);
    // The process's total counts them too, and keeps them once the socket is closed.
    const after = droppedSipDatagrams();
    assert.equal(after.inboundQueue - before.inboundQueue, dropped.inboundQueue);
    assert.equal(after.receiveBuffer - before.receiveBuffer, dropped.receiveBuffer);
    await socket.close();
    assert.deepEqual(droppedSipDatagrams(), after);
  });

  it('counts the datagrams the kernel dropped with its receive buffer full (SO_MEMINFO)', async () => {
    // A buffer of a few datagrams, and a sender on a thread of its own that does nothing but send.
    const { socket, port, inbox } = await openNative('127.0.0.1', 2048);
    const sender = new Worker(
      `const { createSocket } = require('node:dgram');
       const { workerData } = require('node:worker_threads');
       const socket = createSocket('udp4');
       const payload = Buffer.alloc(1000, 2);
       let sent = 0;
       const burst = () => {
         for (let i = 0; i < 1000 && sent < 20000; i++, sent++) socket.send(payload, workerData.port, '127.0.0.1');
         if (sent < 20000) setImmediate(burst);
       };
       socket.bind(0, '127.0.0.1', burst);`,
      { eval: true, workerData: { port } },
    );
    const accounted = () => inbox.length + socket.dropped.inboundQueue + socket.dropped.receiveBuffer;
    await until(() => accounted() >= 20000, 'the burst', 20_000);
    await sender.terminate();
    const dropped = socket.dropped;
    assert.ok(dropped.receiveBuffer > 0, `the kernel dropped some: ${inbox.length} delivered, ${dropped.inboundQueue} dropped in the ring`);
    assert.equal(accounted(), 20000);
    await socket.close();
  });

  it('settles its sends on the next wake, however many datagrams still wait to be read', async () => {
    const { socket, port, inbox } = await openNative();
    const { peer, inbox: peerInbox } = await openPeer();
    // A backlog of datagrams builds up while this thread is busy; the loop takes 32 per wake.
    const flags = new Int32Array(new SharedArrayBuffer(4));
    const sender = new Worker(
      `const { createSocket } = require('node:dgram');
       const { workerData } = require('node:worker_threads');
       const socket = createSocket('udp4');
       socket.bind(0, '127.0.0.1', () => {
         const done = () => socket.close(() => { const flags = new Int32Array(workerData.flags); Atomics.store(flags, 0, 1); Atomics.notify(flags, 0); });
         for (let i = 0; i < 3000; i++) socket.send(Buffer.alloc(200, 1), workerData.port, '127.0.0.1', i === 2999 ? done : undefined);
       });`,
      { eval: true, workerData: { port, flags: flags.buffer } },
    );
    try {
      const sends = Array.from({ length: 20 }, (_, i) => socket.send(Buffer.from(`send ${i}`), peer.address().port, '127.0.0.1'));
      let settledAt = -1;
      void Promise.all(sends).then(() => {
        settledAt = inbox.length;
      });
      Atomics.wait(flags, 0, 0, 10_000);
      await until(() => settledAt >= 0, 'the sends to settle');
      await until(() => peerInbox.length === 20, 'the 20 datagrams at the peer');
      let seen = -1;
      await until(() => {
        const stable = inbox.length === seen;
        seen = inbox.length;
        return stable;
      }, 'the backlog to be read');
      assert.ok(inbox.length > 1000, `${inbox.length} datagrams of the backlog read`);
      assert.ok(settledAt < inbox.length / 2, `the sends settled after ${settledAt} of ${inbox.length} datagrams`);
    } finally {
      await sender.terminate();
      await socket.close();
      await closePeer(peer);
    }
  });

  it('serves IPv4 and IPv6 peers on a dual-stack socket bound to ::', async (t) => {
    let bound: Awaited<ReturnType<typeof openNative>>;
    try {
      bound = await openNative('::');
    } catch {
      t.skip('no IPv6 on this machine');
      return;
    }
    const { socket, port, inbox } = bound;
    const v4 = await openPeer();
    const v6 = await openPeer('udp6', '::1');
    v4.peer.send(Buffer.from('four'), port, '127.0.0.1');
    v6.peer.send(Buffer.from('six'), port, '::1');
    await until(() => inbox.length === 2, 'both datagrams');
    const byText = new Map(inbox.map((r) => [r.data.toString(), r.source]));
    assert.deepEqual(byText.get('four'), { address: '::ffff:127.0.0.1', port: v4.peer.address().port });
    assert.deepEqual(byText.get('six'), { address: '::1', port: v6.peer.address().port });
    await socket.send(Buffer.from('back to four'), v4.peer.address().port, '::ffff:127.0.0.1');
    await socket.send(Buffer.from('back to six'), v6.peer.address().port, '::1');
    await until(() => v4.inbox.length === 1 && v6.inbox.length === 1, 'both replies');
    await socket.close();
    await closePeer(v4.peer);
    await closePeer(v6.peer);
  });

  it('frees its port when closed, settles what was queued, and refuses sends after', async () => {
    const { socket, port } = await openNative();
    const { peer, inbox: peerInbox } = await openPeer();
    const queued = socket.send(Buffer.from('last words'), peer.address().port, '127.0.0.1');
    await socket.close();
    await queued;
    await until(() => peerInbox.length === 1, 'the datagram queued before close');
    await assert.rejects(socket.send(Buffer.from('late'), peer.address().port, '127.0.0.1'));
    const again = new NativeDatagramSocket(() => {});
    assert.equal((await again.bind('127.0.0.1', port)).port, port);
    await again.close();
    await closePeer(peer);
  });

  it('reports a port in use as the bind error', async () => {
    const { socket, port } = await openNative();
    const second = new NativeDatagramSocket(() => {});
    await assert.rejects(second.bind('127.0.0.1', port), (err: NodeJS.ErrnoException) => err.code === 'EADDRINUSE');
    await socket.close();
  });
});
