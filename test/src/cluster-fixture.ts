/**
 * A three-node cluster as `npm run cluster -- up` starts it, for the cluster tests: each fixture
 * takes a /24 of the loopback network of its own (a cluster left by another run cannot collide)
 * and a temporary directory, and `down` stops what `up` started.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { postgresUnavailableReason } from '@switchboard/core/testing';
import { REPO_ROOT } from './harness.js';

export interface ClusterNode {
  name: string;
  pid: number;
  sip: string;
  ari: string;
}

/** The JSON line `npm run cluster -- up` prints (the parts the tests read). */
export interface Cluster {
  sip: string;
  ari_user: string;
  nodes: ClusterNode[];
  /** The shared PostgreSQL server's URL. */
  postgres: string;
}

const CLUSTER_SCRIPT = join(REPO_ROOT, 'scripts', 'cluster.mjs');

/** Why a cluster cannot run here (no Kamailio, no PostgreSQL), or undefined. */
export function clusterUnavailableReason(): string | undefined {
  if (!existsSync('/usr/sbin/kamailio') && spawnSync('sh', ['-c', 'command -v kamailio']).status !== 0) {
    return 'Kamailio is not installed (Debian package kamailio)';
  }
  return postgresUnavailableReason();
}

export class ClusterFixture {
  readonly subnet = `127.${100 + Math.floor(Math.random() * 100)}.${1 + Math.floor(Math.random() * 250)}`;
  /** Where `up` writes the configuration of the edge and the nodes. */
  readonly dir: string;
  readonly #root: string;

  constructor() {
    this.#root = mkdtempSync(join(tmpdir(), 'switchboard-cluster-test-'));
    this.dir = join(this.#root, 'cluster');
  }

  /** `nodeTimeoutS`: the nodes' [cluster] node_timeout (their default when absent). */
  up(options: { nodeTimeoutS?: number } = {}): Cluster {
    const timeout = options.nodeTimeoutS === undefined ? [] : ['--node-timeout', String(options.nodeTimeoutS)];
    const up = spawnSync(process.execPath, [CLUSTER_SCRIPT, 'up', '--nodes', '3', '--subnet', this.subnet, '--dir', this.dir, ...timeout], {
      encoding: 'utf8',
      timeout: 120_000,
    });
    assert.equal(up.status, 0, up.stderr);
    return JSON.parse(up.stdout.trim().split('\n').pop() ?? '') as Cluster;
  }

  /**
   * Starts `node` again under its name (`npm run cluster -- start-node`), after it died; the new pid
   * is recorded for `down`. Returns the node as it runs now.
   */
  startNodeAgain(node: ClusterNode): ClusterNode {
    const started = spawnSync(process.execPath, [CLUSTER_SCRIPT, 'start-node', '--name', node.name, '--dir', this.dir], {
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.equal(started.status, 0, started.stderr);
    const { pid } = JSON.parse(started.stdout.trim().split('\n').pop() ?? '') as { pid: number };
    return { ...node, pid };
  }

  down(): void {
    spawnSync(process.execPath, [CLUSTER_SCRIPT, 'down', '--dir', this.dir], { stdio: 'inherit', timeout: 30_000 });
    rmSync(this.#root, { recursive: true, force: true });
  }

  /** The secret the nodes share, from the configuration `up` wrote. */
  secret(): string {
    return /^secret = (\S+)$/m.exec(readFileSync(join(this.dir, 'node1', 'conf', 'switchboard.conf'), 'utf8'))?.[1] ?? '';
  }
}

/** Polls `check` every 50 ms until it gives a value, which it returns; throws after `ms`. */
export async function waitFor<T>(what: string, check: () => T | undefined | Promise<T | undefined>, ms = 8000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const found = await check();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A REST request to one node's ARI as the cluster's API user. */
export function nodeRest(cluster: Cluster, node: ClusterNode, method: string, path: string): Promise<Response> {
  return fetch(`${node.ari}${path}`, { method, headers: { authorization: `Basic ${Buffer.from(cluster.ari_user).toString('base64')}` } });
}
