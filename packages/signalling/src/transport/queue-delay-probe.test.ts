import assert from 'node:assert/strict';
import { createSocket } from 'node:dgram';
import { describe, it } from 'node:test';
import { silentLogger } from '@switchboard/core';
import { QueueDelayProbe } from './queue-delay-probe.js';
import { UdpTransport } from './udp-transport.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Waits until `done` holds; fails after 5 s (a loaded machine delays timers, not the outcome). */
async function waitFor(done: () => boolean): Promise<void> {
  const deadline = Date.now() + 5000;
  while (!done()) {
    if (Date.now() > deadline) assert.fail('condition not met within 5 s');
    await sleep(10);
  }
}

describe('receive queue delay probe', () => {
  it('measures how long datagrams wait while the loop is busy, and ignores copies from elsewhere', async () => {
    const sip = createSocket('udp4');
    await new Promise<void>((resolve) => sip.bind(0, '127.0.0.1', resolve));
    const delays: number[] = [];
    const probe = new QueueDelayProbe('0.0.0.0', sip.address().port, 10, (ms) => delays.push(ms));
    const foreign: Buffer[] = [];
    sip.on('message', (data, rinfo) => {
      if (!probe.receive(data, rinfo)) foreign.push(data);
    });
    await probe.start();
    try {
      await waitFor(() => delays.length >= 2);

      // A probe copied and sent from another socket is not taken for one.
      let captured: Buffer | undefined;
      sip.prependOnceListener('message', (data) => {
        captured = Buffer.from(data);
      });
      await waitFor(() => captured !== undefined);
      const spy = createSocket('udp4');
      await new Promise<void>((resolve) => spy.bind(0, '127.0.0.1', resolve));
      await new Promise<void>((resolve) => spy.send(captured ?? Buffer.alloc(20), sip.address().port, '127.0.0.1', () => resolve()));
      await waitFor(() => foreign.length === 1);
      spy.close();

      // A probe in flight while the loop is busy for 200 ms waits that long to be read.
      delays.length = 0;
      probe.sendProbe();
      const until = Date.now() + 200;
      while (Date.now() < until) {
        // The main loop cannot read the socket.
      }
      await waitFor(() => delays.some((ms) => ms >= 150));
    } finally {
      probe.close();
      sip.close();
    }
  });

  it('is reported by the UDP transport to its delegate', async () => {
    const transport = new UdpTransport({ name: 't', bindAddress: '127.0.0.1', bindPort: 0, logger: silentLogger, queueDelayProbeMs: 10 });
    const delays: number[] = [];
    transport.delegate = { onRequest: () => {}, onResponse: () => {}, onQueueDelay: (ms) => delays.push(ms) };
    await transport.listen();
    try {
      await waitFor(() => delays.length >= 2);
    } finally {
      await transport.close();
    }
  });
});
