#!/usr/bin/env node
// Benchmark: application events between two nodes of a cluster, as the store carries them
// (store/postgres/cluster-bus.ts: one ordered connection per node, pg_notify to the node serving the
// application; events over ~7.8 kB go through a cluster_events row). Two stores on a throwaway
// PostgreSQL server (fsync = off) stand for node 3 (channels) and node 1 (the application):
//  1. paced: BENCH_RATE (200) events/s of ~1 kB (a channel event) for BENCH_SECONDS (5) s;
//  2. burst: BENCH_BURST (5000) ~1 kB events queued at once (a node's worst moment);
//  3. large: BENCH_LARGE (200) events of 10 kB, each through a row, paced at BENCH_RATE.
// Measured: send-to-delivery latency p50/p99 at the receiving node and events/s delivered. Every phase
// is bounded in count and in time (60 s).
import { performance } from 'node:perf_hooks';
import { openPostgresStore } from '../packages/core/dist/store/postgres/postgres-store.js';
import { startTemporaryPostgres } from '../packages/core/dist/store/postgres/temporary-postgres.js';
import { machine, percentile, round, sleep, writeResult } from './common.mjs';

const RATE = Number(process.env.BENCH_RATE ?? 200);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const BURST = Number(process.env.BENCH_BURST ?? 5000);
const LARGE = Number(process.env.BENCH_LARGE ?? 200);
const PHASE_LIMIT_MS = 60_000;
const CHANNEL_FILLER = 'x'.repeat(900);
const LARGE_FILLER = 'x'.repeat(10_000);

async function phase(name, sender, receiver, count, { paced, filler }) {
  const latencies = [];
  let done;
  const finished = new Promise((resolve) => {
    done = resolve;
  });
  const stop = receiver.applicationClaims.onEvent((_app, event) => {
    latencies.push(performance.now() - event.sent);
    if (latencies.length >= count) done();
  });
  const started = performance.now();
  const timeout = setTimeout(done, PHASE_LIMIT_MS);
  for (let i = 0; i < count && performance.now() - started < PHASE_LIMIT_MS; i++) {
    if (paced) {
      const due = started + (i * 1000) / RATE;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
    }
    sender.applicationClaims.sendEvent(receiver.nodeId, 'bench', { type: 'ChannelStateChange', sent: performance.now(), filler });
  }
  await finished;
  clearTimeout(timeout);
  stop();
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const result = {
    phase: name,
    events: count,
    delivered: latencies.length,
    events_per_second: round(latencies.length / seconds, 0),
    latency_p50_ms: round(percentile(latencies, 50), 2),
    latency_p99_ms: round(percentile(latencies, 99), 2),
  };
  console.log(JSON.stringify(result));
  return result;
}

const server = await startTemporaryPostgres();
try {
  const node3 = await openPostgresStore(server.url);
  const node1 = await openPostgresStore(server.url);
  try {
    const results = [
      await phase(`paced ${RATE}/s, ~1 kB`, node3, node1, RATE * SECONDS, { paced: true, filler: CHANNEL_FILLER }),
      await phase('burst, ~1 kB', node3, node1, BURST, { paced: false, filler: CHANNEL_FILLER }),
      await phase(`paced ${RATE}/s, 10 kB (through a row)`, node3, node1, LARGE, { paced: true, filler: LARGE_FILLER }),
    ];
    writeResult('cluster-events', { machine: machine(), results });
  } finally {
    await node3.close();
    await node1.close();
  }
} finally {
  server.stop();
}
