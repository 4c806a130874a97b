#!/usr/bin/env node
// Benchmark: call setup through Kamailio over 1, 2 and 3 nodes sharing a PostgreSQL store, each
// cluster started by scripts/cluster.mjs. sipp (alice, digest: INVITE, 401, INVITE again) calls 300
// (Answer, Hangup: the node sends BYE) through the edge at BENCH_RATE (40/s) for BENCH_SECONDS (8) s.
// Per cluster size: calls answered per second of offered time, failures, and CPU seconds per 1000
// calls of the nodes (sum), of Kamailio (all its processes) and of PostgreSQL (all its processes),
// so the per-node efficiency and the overhead of the edge and of the shared store can be compared.
// Every run is bounded in count and time.
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { clusterDown, clusterUp } from './cluster-bench.mjs';
import { machine, round, sippCount, writeResult, treeCpuSeconds } from './common.mjs';

const RATE = Number(process.env.BENCH_RATE ?? 40);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const SIZES = (process.env.BENCH_NODES ?? '1,2,3').split(',').map(Number);
const REPO = new URL('..', import.meta.url).pathname;

const results = [];
for (const size of SIZES) {
  const dir = join(tmpdir(), `switchboard-cluster-bench-${size}`);
  const { cluster, kamailioPid, postgresPid } = clusterUp(size, { subnet: `127.0.${200 + size}`, dir });
  const sample = () => ({
    nodes: cluster.nodes.reduce((sum, n) => sum + treeCpuSeconds(n.pid), 0),
    kamailio: treeCpuSeconds(kamailioPid),
    postgres: treeCpuSeconds(postgresPid),
  });
  try {
    const before = sample();
    const sipp = spawnSync(
      'sipp',
      [
        cluster.sip,
        '-sf',
        join(REPO, 'test/sipp/uac-auth-wait-bye.xml'),
        '-s',
        '300',
        '-i',
        '127.0.0.1',
        '-p',
        String(43000 + size),
        '-key',
        'user',
        'alice',
        '-key',
        'rtpport',
        String(4400 + size * 2),
        '-au',
        'alice',
        '-ap',
        'wonderland',
        '-r',
        String(RATE),
        '-m',
        String(RATE * SECONDS),
        '-timeout',
        `${SECONDS + 20}s`,
        '-nostdin',
      ],
      { encoding: 'utf8', cwd: tmpdir(), timeout: (SECONDS + 30) * 1000 },
    );
    const after = sample();
    const ok = sippCount(sipp.stdout, 'Successful call');
    const failed = sippCount(sipp.stdout, 'Failed call');
    const perThousand = (key) => round(((after[key] - before[key]) * 1000) / Math.max(1, ok), 2);
    const result = {
      nodes: size,
      offered_rate: RATE,
      calls: RATE * SECONDS,
      answered: ok,
      failed,
      answered_per_second: round(ok / SECONDS, 1),
      node_cpu_s_per_1000_calls: perThousand('nodes'),
      kamailio_cpu_s_per_1000_calls: perThousand('kamailio'),
      postgres_cpu_s_per_1000_calls: perThousand('postgres'),
    };
    console.log(JSON.stringify(result));
    results.push(result);
  } finally {
    clusterDown(dir);
  }
}
writeResult('cluster-call-rate', { machine: machine(), results });
