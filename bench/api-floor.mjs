#!/usr/bin/env node
// Benchmark: the floor under the REST figures. Sequential keep-alive GETs of /ari/asterisk/ping from
// one client against three servers in turn, each in a process of its own: node:http alone, fastify
// with the one route, and the server (Switchboard, or the original with BENCH_SERVER=asterisk).
// What the bare servers take is what any server built on them pays before its own work: the part
// of the server's figure that is its own code is the difference. BENCH_ROUNDS rounds of the three,
// BENCH_REQUESTS measured requests each after BENCH_WARMUP_REQUESTS unmeasured (JIT).
//
// Each round runs in three placements (BENCH_PLACEMENTS): `free` (the scheduler places client and
// server), `split` (the client's threads on CPU 0, the server's on CPU 1: every request and answer
// wakes a thread on the other CPU, as a request from the network wakes a server wherever it sleeps)
// and `same` (both on CPU 0). On a virtual machine a wake-up on another, idle CPU costs tens of µs,
// so under `free` a server's figure follows where the scheduler happened to wake it.
import { fork } from 'node:child_process';
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import { basicAuth } from '../test/dist/harness.js';
import { benchServer, resultName, serverDescription, startBenchServer } from './bench-server.mjs';
import { cpus } from 'node:os';
import { cpuSeconds, machine, percentile, pinThreads, round, writeResult } from './common.mjs';

const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const requests = Number(process.env.BENCH_REQUESTS ?? 20000);
const warmup = Number(process.env.BENCH_WARMUP_REQUESTS ?? 3000);
const PATH = '/ari/asterisk/ping';
const PLACEMENTS = {
  free: { client: undefined, server: undefined },
  split: { client: '0', server: '1' },
  same: { client: '0', server: '0' },
};
const ALL_CPUS = `0-${cpus().length - 1}`;
const placements = (process.env.BENCH_PLACEMENTS ?? (cpus().length > 1 ? 'free,split,same' : 'free')).split(',').filter((name) => {
  if (PLACEMENTS[name] === undefined) throw new Error(`BENCH_PLACEMENTS: unknown placement ${name}`);
  return true;
});
const AUTH = basicAuth();

function get(agent, port) {
  return new Promise((resolve, reject) => {
    const request = http.request({ host: '127.0.0.1', port, path: PATH, agent, headers: { authorization: AUTH } }, (response) => {
      if (response.statusCode !== 200) reject(new Error(`GET ${PATH}: ${response.statusCode}`));
      response.resume();
      response.on('end', resolve);
    });
    request.on('error', reject);
    request.end();
  });
}

async function measure(port, pid) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  for (let i = 0; i < warmup; i++) await get(agent, port);
  const times = [];
  const cpuBefore = cpuSeconds(pid);
  for (let i = 0; i < requests; i++) {
    const started = performance.now();
    await get(agent, port);
    times.push(performance.now() - started);
  }
  const cpu = cpuSeconds(pid) - cpuBefore;
  agent.destroy();
  times.sort((a, b) => a - b);
  return {
    p50_ms: round(percentile(times, 50)),
    p99_ms: round(percentile(times, 99)),
    server_cpu_us_per_request: round((1e6 * cpu) / requests, 1),
  };
}

async function bare(kind, placement) {
  const child = fork(fileURLToPath(new URL('api-floor-servers.mjs', import.meta.url)), [kind], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  try {
    const { port } = await new Promise((resolve, reject) => {
      child.once('message', resolve);
      child.once('exit', (code) => reject(new Error(`the ${kind} server exited with ${code}`)));
    });
    pinThreads(child.pid, placement.server ?? ALL_CPUS);
    return await measure(port, child.pid);
  } finally {
    child.kill();
  }
}

async function server(placement) {
  const started = await startBenchServer({});
  try {
    pinThreads(started.process.pid, placement.server ?? ALL_CPUS);
    return await measure(started.httpPort, started.process.pid);
  } finally {
    await started.stop();
  }
}

const rows = [];
for (let round_ = 1; round_ <= rounds; round_++) {
  for (const name of placements) {
    const placement = PLACEMENTS[name];
    pinThreads(process.pid, placement.client ?? ALL_CPUS);
    rows.push({ round: round_, placement: name, server: 'node:http', ...(await bare('http', placement)) });
    rows.push({ round: round_, placement: name, server: 'fastify', ...(await bare('fastify', placement)) });
    rows.push({ round: round_, placement: name, server: benchServer, ...(await server(placement)) });
  }
}
pinThreads(process.pid, ALL_CPUS);
console.table(rows);

const result = {
  benchmark: 'api-floor',
  when: new Date().toISOString(),
  machine: machine(),
  ...serverDescription(),
  path: PATH,
  placements,
  requests_per_run: requests,
  warmup_requests: warmup,
  rows,
};
writeResult(resultName('api-floor'), result);
