#!/usr/bin/env node
// Benchmark: PostgreSQL LISTEN/NOTIFY as the cluster's fan-out of events, on a throwaway server.
// One publisher connection sends BENCH_EVENTS (20000) notifications of ~600 bytes (the size of a
// typical ARI channel event) to BENCH_LISTENERS (3) listening connections, one per node of a
// three-node cluster:
//  1. one NOTIFY per statement (its own transaction), from BENCH_PUBLISHERS (8) connections at once;
//  2. the same events batched BENCH_BATCH (50) to a transaction (as a node would flush a burst).
// Measured: events/s delivered to every listener and publish-to-delivery latency p50/p99. Every phase is bounded in count and in time (60 s).
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { startTemporaryPostgres } from '../packages/core/dist/store/postgres/temporary-postgres.js';
import { machine, percentile, round, writeResult } from './common.mjs';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 20000);
const LISTENERS = Number(process.env.BENCH_LISTENERS ?? 3);
const PUBLISHERS = Number(process.env.BENCH_PUBLISHERS ?? 8);
const BATCH = Number(process.env.BENCH_BATCH ?? 50);
const PHASE_LIMIT_MS = 60_000;
const CHANNEL = 'bench_events';
const FILLER = 'x'.repeat(520);

async function listeners(url, count) {
  const clients = [];
  for (let i = 0; i < count; i++) {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query(`LISTEN ${CHANNEL}`);
    clients.push(client);
  }
  return clients;
}

async function phase(name, url, publish) {
  const nodes = await listeners(url, LISTENERS);
  const latencies = [];
  const received = new Array(LISTENERS).fill(0);
  let done;
  const finished = new Promise((resolve) => {
    done = resolve;
  });
  nodes.forEach((client, index) => {
    client.on('notification', (message) => {
      received[index]++;
      if (index === 0) latencies.push(performance.now() - Number(message.payload.slice(0, message.payload.indexOf('|'))));
      if (received.every((n) => n >= EVENTS)) done();
    });
  });
  const publisher = new pg.Pool({ connectionString: url, max: PUBLISHERS });
  const started = performance.now();
  const timeout = setTimeout(done, PHASE_LIMIT_MS);
  await publish(publisher, () => `${performance.now()}|{"type":"ChannelStateChange","filler":"${FILLER}"}`, started);
  await finished;
  clearTimeout(timeout);
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const result = {
    phase: name,
    events: EVENTS,
    listeners: LISTENERS,
    delivered_min: Math.min(...received),
    events_per_second: round(Math.min(...received) / seconds, 0),
    deliveries_per_second: round(received.reduce((a, b) => a + b, 0) / seconds, 0),
    latency_p50_ms: round(percentile(latencies, 50), 2),
    latency_p99_ms: round(percentile(latencies, 99), 2),
  };
  await publisher.end();
  for (const client of nodes) await client.end();
  console.log(JSON.stringify(result));
  return result;
}

const server = await startTemporaryPostgres();
try {
  const url = server.url;
  const single = await phase('one NOTIFY per statement', url, async (client, payload, started) => {
    let next = 0;
    const worker = async () => {
      while (next < EVENTS && performance.now() - started < PHASE_LIMIT_MS) {
        next++;
        await client.query('SELECT pg_notify($1, $2)', [CHANNEL, payload()]);
      }
    };
    await Promise.all(Array.from({ length: PUBLISHERS }, worker));
  });
  const batched = await phase(`${BATCH} NOTIFYs per transaction`, url, async (client, payload, started) => {
    for (let i = 0; i < EVENTS && performance.now() - started < PHASE_LIMIT_MS; i += BATCH) {
      const n = Math.min(BATCH, EVENTS - i);
      const payloads = Array.from({ length: n }, payload);
      await client.query('SELECT pg_notify($1, p) FROM unnest($2::text[]) AS p', [CHANNEL, payloads]);
    }
  });
  writeResult('pg-notify-fanout', { machine: machine(), results: [single, batched] });
} finally {
  server.stop();
}
