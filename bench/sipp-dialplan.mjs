#!/usr/bin/env node
// Benchmark: N concurrent sipp calls into extension 200 (Answer, Playback(hello-world), Hangup) for
// a bounded time. Prints calls completed, server CPU seconds per call, RTP packets received and the
// pacing error of our RTP (inter-packet gap minus 20 ms, p50/p99), and writes them as JSON.
import { readFileSync, writeFileSync } from 'node:fs';
import { createSocket } from 'node:dgram';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { REPO_ROOT, runSipp, startSwitchboard } from '../test/dist/harness.js';

const concurrency = Number(process.env.BENCH_CALLS ?? 20);
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const TICKS_PER_SECOND = 100;

function cpuSeconds(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

function percentile(sorted, p) {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

const sb = await startSwitchboard({ rtpStart: 36000, rtpEnd: 38000 });
const receiver = createSocket('udp4');
const arrivals = new Map();
let packets = 0;
receiver.on('message', (msg) => {
  if (msg.length < 12) return;
  packets += 1;
  const ssrc = msg.readUInt32BE(8);
  const list = arrivals.get(ssrc) ?? [];
  list.push(performance.now());
  arrivals.set(ssrc, list);
});
await new Promise((resolve) => receiver.bind(0, '127.0.0.1', resolve));

const cpuBefore = cpuSeconds(sb.process.pid);
const started = performance.now();
const sipp = await runSipp(
  'uac-wait-bye.xml',
  { host: '127.0.0.1', port: sb.sipPort },
  {
    service: '200',
    keys: { rtpport: receiver.address().port },
    calls: concurrency * seconds * 2,
    rate: concurrency,
    timeoutSeconds: seconds,
    extra: ['-l', String(concurrency)],
  },
);
const elapsed = (performance.now() - started) / 1000;
const cpu = cpuSeconds(sb.process.pid) - cpuBefore;
receiver.close();
await sb.stop();

const count = (label) => Number(new RegExp(`${label}\\s*\\|\\s*\\d+\\s*\\|\\s*(\\d+)`).exec(sipp.stdout)?.[1] ?? 0);
const completed = count('Successful call');
const failed = count('Failed call');
const errors = [];
for (const times of arrivals.values()) for (let i = 1; i < times.length; i++) errors.push(Math.abs(times[i] - times[i - 1] - 20));
errors.sort((a, b) => a - b);

const result = {
  benchmark: 'sipp-dialplan',
  when: new Date().toISOString(),
  machine: { cpus: cpus().length, model: cpus()[0]?.model ?? 'unknown', node: process.version },
  concurrency,
  seconds: Number(elapsed.toFixed(2)),
  calls_completed: completed,
  calls_failed: failed,
  cpu_seconds_per_call: completed > 0 ? Number((cpu / completed).toFixed(5)) : null,
  rtp_packets_received: packets,
  pacing_error_ms_p50: Number(percentile(errors, 50).toFixed(3)),
  pacing_error_ms_p99: Number(percentile(errors, 99).toFixed(3)),
};
console.table(
  Object.entries(result).map(([figure, value]) => ({ figure, value: typeof value === 'object' ? JSON.stringify(value) : value })),
);
writeFileSync(join(REPO_ROOT, 'bench', 'results', 'sipp-dialplan.json'), `${JSON.stringify(result, null, 2)}\n`);
