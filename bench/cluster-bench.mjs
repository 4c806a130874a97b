// A cluster for the cluster benchmarks: `scripts/cluster.mjs up` with `size` nodes on `subnet`, its
// state in `dir`, and what the benchmarks measure it by (the edge's address, the Kamailio and
// PostgreSQL process trees).
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const CLUSTER = new URL('../scripts/cluster.mjs', import.meta.url).pathname;

export function clusterUp(size, { subnet, dir }) {
  const up = spawnSync(process.execPath, [CLUSTER, 'up', '--nodes', String(size), '--subnet', subnet, '--dir', dir], {
    encoding: 'utf8',
    timeout: 180_000,
  });
  if (up.status !== 0) throw new Error(`cluster up failed: ${up.stderr}`);
  const cluster = JSON.parse(up.stdout.trim().split('\n').pop());
  const state = JSON.parse(readFileSync(join(dir, 'state.json'), 'utf8'));
  const [host, port] = cluster.sip.split(':');
  return {
    dir,
    subnet,
    cluster,
    edge: { host, port: Number(port) },
    kamailioPid: state.pids.find((p) => p.name === 'kamailio').pid,
    postgresPid: state.postgres.pid,
  };
}

export function clusterDown(dir) {
  spawnSync(process.execPath, [CLUSTER, 'down', '--dir', dir], { stdio: 'inherit', timeout: 30_000 });
}
