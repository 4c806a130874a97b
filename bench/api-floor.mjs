#!/usr/bin/env node
// Benchmark: the floor under the REST figures. Sequential keep-alive GETs of /ari/asterisk/ping from
// one client against three servers in turn, each in a process of its own: node:http alone, fastify
// with the one route, and the server (Switchboard, or the original with BENCH_SERVER=asterisk).
// What the bare servers take is what any server built on them pays before its own work: the part
// of the server's figure that is its own code is the difference. BENCH_ROUNDS rounds of the three,
// BENCH_REQUESTS measured requests each after BENCH_WARMUP_REQUESTS unmeasured (JIT).
import { fork } from 'node:child_process';
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import { basicAuth } from '../test/dist/harness.js';
import { benchServer, resultName, serverDescription, startBenchServer } from './bench-server.mjs';
import { cpuSeconds, machine, percentile, round, writeResult } from './common.mjs';

const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const requests = Number(process.env.BENCH_REQUESTS ?? 20000);
const warmup = Number(process.env.BENCH_WARMUP_REQUESTS ?? 3000);
const PATH = '/ari/asterisk/ping';
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

async function bare(kind) {
  const child = fork(fileURLToPath(new URL('api-floor-servers.mjs', import.meta.url)), [kind], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  try {
    const { port } = await new Promise((resolve, reject) => {
      child.once('message', resolve);
      child.once('exit', (code) => reject(new Error(`the ${kind} server exited with ${code}`)));
    });
    return await measure(port, child.pid);
  } finally {
    child.kill();
  }
}

async function server() {
  const started = await startBenchServer({});
  try {
    return await measure(started.httpPort, started.process.pid);
  } finally {
    await started.stop();
  }
}

const rows = [];
for (let round_ = 1; round_ <= rounds; round_++) {
  rows.push({ round: round_, server: 'node:http', ...(await bare('http')) });
  rows.push({ round: round_, server: 'fastify', ...(await bare('fastify')) });
  rows.push({ round: round_, server: benchServer, ...(await server()) });
}
console.table(rows);

const result = {
  benchmark: 'api-floor',
  when: new Date().toISOString(),
  machine: machine(),
  ...serverDescription(),
  path: PATH,
  requests_per_run: requests,
  warmup_requests: warmup,
  rows,
};
writeResult(resultName('api-floor'), result);
