#!/usr/bin/env node
// Benchmark: the cluster's shared event journal (store/postgres/application-journal.ts), as the node
// serving an application writes it (one batch in flight per application; what arrives meanwhile is
// the next batch). A throwaway PostgreSQL server (fsync = off), ~1 kB events (a channel event):
//  1. one event per batch, paced at BENCH_RATE (200) events/s for BENCH_SECONDS (5) s (a quiet application);
//  2. BENCH_BURST (5000) events in batches of 10, 100 and 500 (what piles up on a busy one);
//  3. a resume: the kept events after a number read back (BENCH_BURST of them).
// Measured: wall time per batch p50/p99, events/s, and CPU per event of PostgreSQL (its processes
// summed) and of this process. resume_max_events 10000 and a 60 s window trim as the server does.
// Every phase is bounded in count and in time (60 s).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { openPostgresStore } from '../packages/core/dist/store/postgres/postgres-store.js';
import { startTemporaryPostgres } from '../packages/core/dist/store/postgres/temporary-postgres.js';
import { cpuSeconds, machine, percentile, round, sleep, writeResult, treeCpuSeconds } from './common.mjs';

const RATE = Number(process.env.BENCH_RATE ?? 200);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const BURST = Number(process.env.BENCH_BURST ?? 5000);
const PHASE_LIMIT_MS = 60_000;
const LIMITS = { windowMs: 60_000, maxEvents: 10_000 };

function channelEvent(i) {
  return {
    type: 'ChannelVarset',
    timestamp: new Date().toISOString(),
    variable: 'N',
    value: String(i),
    channel: { id: `bench.${i}`, name: 'SIP/alice-00000001', state: 'Up', filler: 'x'.repeat(800) },
  };
}

async function phase(name, store, postmaster, application, count, batchSize, paced) {
  const times = [];
  const cpu0 = treeCpuSeconds(postmaster);
  const own0 = cpuSeconds(process.pid);
  const started = performance.now();
  let written = 0;
  while (written < count && performance.now() - started < PHASE_LIMIT_MS) {
    if (paced) {
      const wait = started + (written * 1000) / RATE - performance.now();
      if (wait > 0) await sleep(wait);
    }
    const batch = [];
    for (let i = 0; i < batchSize && written + i < count; i++) batch.push(channelEvent(written + i));
    const t0 = performance.now();
    await store.applicationJournal.append(application, batch, LIMITS);
    times.push(performance.now() - t0);
    written += batch.length;
  }
  const seconds = (performance.now() - started) / 1000;
  const postgres = treeCpuSeconds(postmaster) - cpu0;
  const own = cpuSeconds(process.pid) - own0;
  times.sort((a, b) => a - b);
  const result = {
    phase: name,
    events: written,
    batch: batchSize,
    events_per_second: round(written / seconds, 0),
    batch_ms_p50: round(percentile(times, 50), 2),
    batch_ms_p99: round(percentile(times, 99), 2),
    postgres_cpu_us_per_event: round((postgres * 1e6) / written, 0),
    node_cpu_us_per_event: round((own * 1e6) / written, 0),
  };
  console.log(JSON.stringify(result));
  return result;
}

const server = await startTemporaryPostgres();
try {
  const postmaster = Number(readFileSync(join(server.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
  const store = await openPostgresStore(server.url);
  try {
    const results = [
      await phase(`paced ${RATE}/s, one per batch`, store, postmaster, 'quiet', RATE * SECONDS, 1, true),
      await phase('burst, batches of 10', store, postmaster, 'busy10', BURST, 10, false),
      await phase('burst, batches of 100', store, postmaster, 'busy100', BURST, 100, false),
      await phase('burst, batches of 500', store, postmaster, 'busy500', BURST, 500, false),
    ];
    const t0 = performance.now();
    const slice = await store.applicationJournal.since('busy100', 0);
    const read = { phase: 'resume: read back', events: slice.entries.length, ms: round(performance.now() - t0, 1) };
    console.log(JSON.stringify(read));
    results.push(read);
    writeResult('cluster-journal', { machine: machine(), results });
  } finally {
    await store.close();
  }
} finally {
  server.stop();
}
