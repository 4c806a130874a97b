/**
 * Leg sockets on both implementations: the native hub (built at install; its C side reads every
 * socket and enters JavaScript once per loop round) and the dgram fallback. Real UDP on 127.0.0.1,
 * bounded in time.
 */
import assert from 'node:assert/strict';
import dgram from 'node:dgram';
import { after, describe, it } from 'node:test';
import { Worker } from 'node:worker_threads';
import { MediaError } from '../errors.js';
import { sleep, waitFor } from '../test-support/wait.js';
import { type DatagramSource, type LegSocket, openLegSocket, setNativeLegSockets } from './leg-socket.js';
import { nativeLegSocketsAvailable } from './native-leg-socket.js';

interface Received {
  text: string;
  from: DatagramSource;
}

async function open(inbox: Received[] = []): Promise<LegSocket> {
  return openLegSocket('127.0.0.1', 0, {
    // Copied: a native datagram is a view of the hub's ring, valid only during the call.
    message: (datagram, from) => inbox.push({ text: datagram.toString(), from: { ...from } }),
    error: (error) => assert.fail(error),
    sendFailed: (error) => assert.fail(error),
  });
}

async function udpPeer(): Promise<{ socket: dgram.Socket; port: number; inbox: Received[] }> {
  const socket = dgram.createSocket('udp4');
  const inbox: Received[] = [];
  socket.on('message', (datagram, from) => inbox.push({ text: datagram.toString(), from: { address: from.address, port: from.port } }));
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return { socket, port: socket.address().port, inbox };
}

for (const native of [true, false]) {
  describe(`leg sockets (${native ? 'native hub' : 'dgram'})`, () => {
    after(() => setNativeLegSockets(true));

    it('receives from and sends to peers, each socket its own datagrams with their source', { timeout: 5000 }, async () => {
      setNativeLegSockets(native);
      const inboxes: Received[][] = [[], [], []];
      const legs = await Promise.all(inboxes.map((inbox) => open(inbox)));
      const peer = await udpPeer();
      try {
        assert.ok(legs.every((leg) => leg.transient === native && leg.localAddress === '127.0.0.1' && leg.localPort > 0));
        for (const [index, leg] of legs.entries())
          for (let n = 0; n < 3; n += 1) peer.socket.send(`to ${index} #${n}`, leg.localPort, '127.0.0.1');
        await waitFor('every datagram', () => (inboxes.every((inbox) => inbox.length === 3) ? true : undefined));
        for (const [index, inbox] of inboxes.entries()) {
          assert.deepEqual(
            inbox.map((entry) => entry.text),
            [0, 1, 2].map((n) => `to ${index} #${n}`),
          );
          assert.ok(inbox.every((entry) => entry.from.address === '127.0.0.1' && entry.from.port === peer.port));
        }
        legs[1].send(Buffer.from('from 1'), peer.port, '127.0.0.1');
        await waitFor('the reply', () => (peer.inbox.length === 1 ? true : undefined));
        assert.deepEqual(peer.inbox[0], { text: 'from 1', from: { address: '127.0.0.1', port: legs[1].localPort } });
      } finally {
        for (const leg of legs) leg.close();
        peer.socket.close();
      }
    });

    it('hands the same unchanged source for a peer until another peer sends', { timeout: 5000 }, async () => {
      setNativeLegSockets(native);
      const sources: DatagramSource[] = [];
      const texts: string[] = [];
      const leg = await openLegSocket('127.0.0.1', 0, {
        message: (datagram, from) => {
          sources.push(from);
          texts.push(datagram.toString());
        },
        error: (error) => assert.fail(error),
        sendFailed: (error) => assert.fail(error),
      });
      const first = await udpPeer();
      const second = await udpPeer();
      try {
        const sendAll = async (peer: { socket: dgram.Socket }, label: string, count: number) => {
          const before = texts.length;
          for (let n = 0; n < count; n += 1) peer.socket.send(`${label}${n}`, leg.localPort, '127.0.0.1');
          await waitFor(label, () => (texts.length === before + count ? true : undefined));
        };
        await sendAll(first, 'a', 3);
        await sendAll(second, 'b', 2);
        await sendAll(first, 'c', 1);
        // Datagrams of one size reuse the ring's view on the hub: each still reads as sent.
        assert.deepEqual(texts, ['a0', 'a1', 'a2', 'b0', 'b1', 'c0']);
        assert.deepEqual(
          sources.map((from) => from.port),
          [first.port, first.port, first.port, second.port, second.port, first.port],
        );
        assert.ok(sources.every((from) => from.address === '127.0.0.1'));
        if (native) {
          // A kept source never changes: a new peer gets a new object.
          assert.ok(sources[0] === sources[2] && sources[3] === sources[4]);
          assert.notEqual(sources[2], sources[3]);
          assert.notEqual(sources[4], sources[5]);
          assert.equal(sources[0].port, first.port);
        }
      } finally {
        leg.close();
        first.socket.close();
        second.socket.close();
      }
    });

    it(
      `gives each datagram's kernel arrival time ${native ? 'when asked for' : 'as NaN (dgram has none)'}`,
      { timeout: 5000 },
      async () => {
        setNativeLegSockets(native);
        const stamped: { arrived: number; handled: number }[] = [];
        const unstamped: number[] = [];
        const failOn = { error: (error: Error) => assert.fail(error), sendFailed: (error: Error) => assert.fail(error) };
        const withTimes: LegSocket = await openLegSocket(
          '127.0.0.1',
          0,
          { ...failOn, message: () => stamped.push({ arrived: withTimes.arrivalTime(), handled: performance.now() }) },
          { arrivalTimes: true },
        );
        const withoutTimes: LegSocket = await openLegSocket('127.0.0.1', 0, {
          ...failOn,
          message: () => unstamped.push(withoutTimes.arrivalTime()),
        });
        // On the hub a send is a synchronous sendto: the datagrams are in the kernel when it returns.
        setNativeLegSockets(true);
        const sender = await openLegSocket('127.0.0.1', 0, { ...failOn, message: () => {} });
        /** Sends one datagram to each socket and keeps this thread busy while they wait in the kernel. */
        const probe = async (): Promise<{ sentAt: number; arrived: number; handled: number; unstampedAt: number }> => {
          stamped.length = 0;
          unstamped.length = 0;
          const sentAt = performance.now();
          sender.send(Buffer.from('stamped'), withTimes.localPort, '127.0.0.1');
          sender.send(Buffer.from('unstamped'), withoutTimes.localPort, '127.0.0.1');
          const busyUntil = performance.now() + 60;
          while (performance.now() < busyUntil);
          await waitFor('both datagrams', () => (stamped.length === 1 && unstamped.length === 1 ? true : undefined));
          return { sentAt, ...stamped[0], unstampedAt: unstamped[0] };
        };
        try {
          let result = await probe();
          // The kernel turns receive stamping on a moment after the first socket asks (deferred work);
          // until then a datagram is stamped when it is read.
          for (let attempt = 0; native && result.handled - result.arrived < 50 && attempt < 20; attempt += 1) {
            await sleep(50);
            result = await probe();
          }
          const { sentAt, arrived, handled, unstampedAt } = result;
          assert.ok(Number.isNaN(unstampedAt));
          if (native) {
            assert.ok(arrived >= sentAt - 1 && arrived <= sentAt + 30, `arrived ${arrived - sentAt} ms after sending`);
            assert.ok(handled - arrived >= 50, `handled ${handled - arrived} ms after arriving`);
            assert.ok(Number.isNaN(withTimes.arrivalTime()), 'no arrival time outside a delivery');
          } else {
            assert.ok(Number.isNaN(arrived));
          }
        } finally {
          withTimes.close();
          withoutTimes.close();
          sender.close();
        }
      },
    );

    it('refuses a port another program holds as port_in_use', { timeout: 5000 }, async () => {
      setNativeLegSockets(native);
      const squatter = await udpPeer();
      try {
        await assert.rejects(
          openLegSocket('127.0.0.1', squatter.port, { message: () => {}, error: () => {}, sendFailed: () => {} }),
          (error: unknown) => error instanceof MediaError && error.code === 'port_in_use',
        );
      } finally {
        squatter.socket.close();
      }
    });

    it('delivers nothing to a socket once it is closed, and its port can be bound again', { timeout: 5000 }, async () => {
      setNativeLegSockets(native);
      const inbox: string[] = [];
      // Closes itself on the first datagram: the two behind it, already read with it, must not follow.
      const closing: LegSocket = await openLegSocket('127.0.0.1', 0, {
        message: (datagram) => {
          inbox.push(datagram.toString());
          closing.close();
        },
        error: () => {},
        sendFailed: () => {},
      });
      const peer = await udpPeer();
      try {
        for (const text of ['first', 'second', 'third']) peer.socket.send(text, closing.localPort, '127.0.0.1');
        await waitFor('the first datagram', () => (inbox.length > 0 ? true : undefined));
        await sleep(50);
        assert.deepEqual(inbox, ['first']);
        closing.close(); // twice is harmless
        const again = await openLegSocket('127.0.0.1', closing.localPort, { message: () => {}, error: () => {}, sendFailed: () => {} });
        again.close();
      } finally {
        peer.socket.close();
      }
    });
  });
}

describe('native socket hub', () => {
  it('is built in this checkout (the install compiles it)', () => {
    assert.ok(nativeLegSocketsAvailable(), 'native/build/Release/rtp_sockets.node is missing: run npm run build:native');
  });

  it('lets a worker thread end while its sockets are open and datagrams are waiting', { timeout: 10_000 }, async () => {
    const moduleUrl = new URL('./leg-socket.js', import.meta.url).href;
    const worker = new Worker(
      `
      const { parentPort } = require('node:worker_threads');
      import(${JSON.stringify(moduleUrl)}).then(async ({ openLegSocket }) => {
        const handlers = { message: () => {}, error: () => {}, sendFailed: () => {} };
        const sockets = [];
        for (let i = 0; i < 20; i += 1) sockets.push(await openLegSocket('127.0.0.1', 0, handlers));
        for (const socket of sockets) for (const to of sockets) socket.send(Buffer.alloc(200), to.localPort, '127.0.0.1');
        parentPort.postMessage(sockets.map((socket) => socket.localPort));
        process.exit(0);
      });
      `,
      { eval: true },
    );
    const ports = await new Promise<number[]>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
    const code = await new Promise<number>((resolve) => worker.once('exit', resolve));
    assert.equal(code, 0);
    // Every socket was closed with the thread: its port can be bound again.
    const probe = dgram.createSocket('udp4');
    await new Promise<void>((resolve, reject) => {
      probe.once('error', reject);
      probe.bind(ports[0], '127.0.0.1', resolve);
    });
    probe.close();
  });
});
