#!/usr/bin/env node
// Benchmark: the leg sockets alone, native socket hub against Node's dgram. A relay child process
// opens N leg sockets (packages/media rtp/leg-socket.js) and sends every datagram it receives on to
// one sink with its SSRC rewritten in place, as the two-leg relay does; this process sends N streams
// at 50 packets/s (spread over the 20 ms period) to those sockets and receives what comes back.
// Figures: the relay process's CPU per packet, loss, and the p50/p99 of |arrival interval − 20 ms|.
// BENCH_STREAMS (300,600), BENCH_SECONDS (6) per run, BENCH_ROUNDS (2) runs of each kind, alternated.
import { fork } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { performance } from 'node:perf_hooks';
import { cpuSeconds, machine, percentile, printSteps, round, writeResult } from './common.mjs';

const PERIOD_MS = 20;
const WARM_UP_MS = 1000;

if (process.argv[2] === 'relay') {
  const { openLegSocket, setNativeLegSockets } = await import('../packages/media/dist/rtp/leg-socket.js');
  const [, , , kind, count, sinkPort] = process.argv;
  setNativeLegSockets(kind === 'native');
  const ports = [];
  for (let index = 0; index < Number(count); index++) {
    const socket = await openLegSocket('127.0.0.1', 0, {
      message: (datagram) => {
        datagram.writeUInt32BE(index, 8);
        socket.send(datagram, Number(sinkPort), '127.0.0.1');
      },
      error: (error) => console.error(error.message),
      sendFailed: () => {},
    });
    ports.push(socket.localPort);
  }
  process.send({ ports });
  process.on('message', () => process.exit(0));
} else {
  const streamCounts = (process.env.BENCH_STREAMS ?? '300,600').split(',').map(Number);
  const seconds = Number(process.env.BENCH_SECONDS ?? 6);
  const rounds = Number(process.env.BENCH_ROUNDS ?? 2);
  const steps = [];
  for (const streams of streamCounts)
    for (let roundIndex = 0; roundIndex < rounds; roundIndex++)
      for (const kind of ['dgram', 'native']) steps.push({ kind, streams, ...(await measure(kind, streams, seconds)) });
  const result = {
    benchmark: 'socket-relay',
    when: new Date().toISOString(),
    machine: machine(),
    setup: `relay child process with N leg sockets (dgram or the native hub) sending each datagram on with its SSRC rewritten; ${seconds} s per run after ${WARM_UP_MS / 1000} s`,
    steps,
  };
  printSteps('socket-relay: leg sockets, dgram against the native hub', steps);
  writeResult('socket-relay', result);
}

async function measure(kind, streams, seconds) {
  const sink = createSocket({ type: 'udp4', recvBufferSize: 4 << 20 });
  await new Promise((resolve) => sink.bind(0, '127.0.0.1', resolve));
  const relay = fork(new URL(import.meta.url).pathname, ['relay', kind, String(streams), String(sink.address().port)]);
  const { ports } = await new Promise((resolve) => relay.once('message', resolve));
  const source = createSocket('udp4');
  await new Promise((resolve) => source.bind(0, '127.0.0.1', resolve));
  const lastArrival = new Float64Array(streams);
  const deviations = [];
  let measuring = false;
  let received = 0;
  let sent = 0;
  sink.on('message', (datagram) => {
    const now = performance.now();
    const stream = datagram.readUInt32BE(8);
    if (stream >= streams) return;
    if (measuring) {
      received += 1;
      if (lastArrival[stream] > 0) deviations.push(Math.abs(now - lastArrival[stream] - PERIOD_MS));
    }
    lastArrival[stream] = now;
  });
  const packet = Buffer.alloc(172);
  packet[0] = 0x80;
  const start = performance.now();
  let tick = 0;
  let cpuBefore = 0;
  let wallBefore = 0;
  await new Promise((resolve) => {
    const loop = () => {
      const now = performance.now();
      // Stream i is due at start + k × 20 ms + (i mod 20) ms.
      while (start + tick <= now) {
        for (let stream = tick % PERIOD_MS; stream < streams; stream += PERIOD_MS) {
          source.send(packet, ports[stream], '127.0.0.1');
          if (measuring) sent += 1;
        }
        tick += 1;
      }
      if (!measuring && now - start > WARM_UP_MS) {
        measuring = true;
        cpuBefore = cpuSeconds(relay.pid);
        wallBefore = now;
      }
      if (now - start > WARM_UP_MS + seconds * 1000) {
        resolve();
        return;
      }
      setTimeout(loop, 1);
    };
    loop();
  });
  const cpu = cpuSeconds(relay.pid) - cpuBefore;
  const wall = (performance.now() - wallBefore) / 1000;
  await new Promise((resolve) => setTimeout(resolve, 100));
  relay.send('stop');
  source.close();
  sink.close();
  await new Promise((resolve) => relay.once('exit', resolve));
  deviations.sort((a, b) => a - b);
  return {
    packets: sent,
    relay_cpu_pct_of_one_core: round((100 * cpu) / wall, 1),
    relay_cpu_us_per_packet: round((1e6 * cpu) / Math.max(1, sent), 2),
    loss_pct: round(Math.max(0, 100 * (1 - received / Math.max(1, sent))), 3),
    interval_dev_ms_p50: round(percentile(deviations, 50)),
    interval_dev_ms_p99: round(percentile(deviations, 99)),
  };
}
