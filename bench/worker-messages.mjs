#!/usr/bin/env node
// Benchmark: what the media worker's messages cost the main thread. A worker thread answers in
// bursts of BENCH_BURST (10) replies per turn, the size of a call's set-up or hangup, either one
// postMessage per reply or through the worker's outbox (packages/media worker-outbox.ts: the burst
// as one message); BENCH_MESSAGES (200000) replies per run, BENCH_ROUNDS (3) alternating rounds.
// Reported: the main thread's CPU µs per reply received, and the wall time of the run.
import { isMainThread, parentPort, Worker } from 'node:worker_threads';
import { WorkerOutbox } from '../packages/media/dist/worker/worker-outbox.js';
import { machine, round, writeResult } from './common.mjs';

const messages = Number(process.env.BENCH_MESSAGES ?? 200000);
const burst = Number(process.env.BENCH_BURST ?? 10);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);

const reply = (id) => ({ kind: 'reply', id, ok: true, result: { legId: `leg-${id}`, localPort: 40000 + (id % 10000) } });

if (!isMainThread) {
  const port = parentPort;
  const outbox = new WorkerOutbox((post) => port.postMessage(post));
  port.on('message', async ({ mode, count }) => {
    for (let id = 0; id < count; id += burst) {
      for (let i = id; i < Math.min(id + burst, count); i++) {
        if (mode === 'one message each') port.postMessage(reply(i));
        else outbox.post(reply(i));
      }
      // The next burst in a later turn, as the next call's requests would come.
      await new Promise((resolve) => setImmediate(resolve));
    }
  });
} else {
  const worker = new Worker(new URL(import.meta.url));
  let received = 0;
  let expected = 0;
  let done = () => {};
  worker.on('message', (post) => {
    received += post.kind === 'batch' ? post.messages.length : 1;
    if (received >= expected) done();
  });
  const rows = [];
  for (let r = 1; r <= rounds; r++) {
    for (const mode of ['one message each', 'outbox']) {
      received = 0;
      expected = messages;
      const finished = new Promise((resolve) => {
        done = resolve;
      });
      const cpu = process.cpuUsage();
      const started = performance.now();
      worker.postMessage({ mode, count: messages });
      await finished;
      const used = process.cpuUsage(cpu);
      rows.push({
        round: r,
        mode,
        main_cpu_us_per_reply: round((used.user + used.system) / messages, 2),
        wall_ms: round(performance.now() - started, 0),
      });
    }
  }
  await worker.terminate();
  console.table(rows);
  writeResult('worker-messages', {
    benchmark: 'worker-messages',
    when: new Date().toISOString(),
    machine: machine(),
    messages,
    burst,
    rows,
  });
}
