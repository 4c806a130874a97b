import assert from 'node:assert/strict';
import { createSocket } from 'node:dgram';
import { describe, it } from 'node:test';
import { silentLogger } from '@switchboard/core';
import { QUIET_AFTER_MS, QUIET_INTERVAL_MS, QueueDelayProbe } from './queue-delay-probe.js';
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

  it('probes a socket that reads no SIP datagram every 100 ms, and at its own interval again once one comes', async () => {
    const sip = createSocket('udp4');
    await new Promise<void>((resolve) => sip.bind(0, '127.0.0.1', resolve));
    const reports: number[] = [];
    const probe = new QueueDelayProbe('127.0.0.1', sip.address().port, 10, () => reports.push(performance.now()));
    sip.on('message', (data, rinfo) => probe.receive(data, rinfo));
    await probe.start();
    const peer = createSocket('udp4');
    try {
      assert.equal(probe.quiet, false);
      await waitFor(() => probe.quiet);
      // Quiet: a second brings about ten probes, not a hundred.
      reports.length = 0;
      await sleep(1000);
      assert.ok(reports.length >= 5 && reports.length <= 1000 / QUIET_INTERVAL_MS + 3, `${reports.length} probes in a second`);
      // A SIP datagram: probed at the full rate again, and quiet again after a second without one.
      await new Promise<void>((resolve) => peer.send('OPTIONS sip:x SIP/2.0\r\n\r\n', sip.address().port, '127.0.0.1', () => resolve()));
      await waitFor(() => !probe.quiet);
      reports.length = 0;
      await sleep(300);
      assert.ok(reports.length >= 10, `${reports.length} probes in 300 ms`);
      const busySince = performance.now();
      await waitFor(() => probe.quiet);
      assert.ok(performance.now() - busySince >= QUIET_AFTER_MS - 350);
    } finally {
      peer.close();
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
