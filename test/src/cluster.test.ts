/**
 * A three-node cluster as `npm run cluster -- up` starts it: Kamailio in front, PostgreSQL behind,
 * each node on its own loopback address. Phones (sipp, digest) register and call through the edge
 * only. Skips, naming the reason, when Kamailio or PostgreSQL cannot run here.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { postgresUnavailableReason } from '@switchboard/core/testing';
import { freePort, REPO_ROOT, runSipp } from './harness.js';

interface ClusterNode {
  name: string;
  pid: number;
  sip: string;
  ari: string;
}

interface Cluster {
  sip: string;
  nodes: ClusterNode[];
}

const CLUSTER_SCRIPT = join(REPO_ROOT, 'scripts', 'cluster.mjs');
const PASSWORDS: Record<string, string> = { alice: 'wonderland', bob: 'builder' };

function unavailableReason(): string | undefined {
  if (!existsSync('/usr/sbin/kamailio') && spawnSync('sh', ['-c', 'command -v kamailio']).status !== 0) {
    return 'Kamailio is not installed (Debian package kamailio)';
  }
  return postgresUnavailableReason();
}

const credentials = (user: string) => ['-au', user, '-ap', PASSWORDS[user]];

describe('a three-node cluster behind Kamailio', { skip: unavailableReason() }, () => {
  // A /24 of the loopback network of its own, so a cluster left by another run cannot collide.
  const subnet = `127.${100 + Math.floor(Math.random() * 100)}.${1 + Math.floor(Math.random() * 250)}`;
  const root = mkdtempSync(join(tmpdir(), 'switchboard-cluster-test-'));
  const dir = join(root, 'cluster');
  let cluster: Cluster;
  let edge: { host: string; port: number };

  /** Inbound calls each node has taken since it started, from its /metrics. */
  const callsPerNode = async () =>
    Promise.all(
      cluster.nodes.map(async (node) => {
        const text = await (await fetch(node.ari.replace(/\/ari$/, '/metrics'))).text();
        const line = text.split('\n').find((l) => l.startsWith('switchboard_call_attempts_total{direction="inbound"}'));
        return line === undefined ? 0 : Number(line.split(' ').pop());
      }),
    );

  const register = async (user: string, port: number) => {
    const result = await runSipp('register-auth.xml', edge, {
      service: user,
      keys: { expires: 300 },
      extra: [...credentials(user), '-p', String(port)],
    });
    assert.equal(result.code, 0, result.stdout.slice(-2000));
  };

  /** `caller` dials `callee`'s name through the edge; the callee's sipp answers on its registered port. */
  const call = async (caller: string, callee: string, calleePort: number) => {
    const answering = runSipp('uas-answer-bye.xml', edge, { service: callee, keys: { rtpport: 4202 }, extra: ['-p', String(calleePort)] });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const calling = await runSipp('uac-auth-wait-bye.xml', edge, {
      service: callee,
      keys: { user: caller, rtpport: 4204 },
      extra: credentials(caller),
      timeoutSeconds: 15,
    });
    const answered = await answering;
    assert.equal(calling.code, 0, calling.stdout.slice(-2000));
    assert.equal(answered.code, 0, answered.stdout.slice(-2000));
  };

  before(async () => {
    const up = spawnSync(process.execPath, [CLUSTER_SCRIPT, 'up', '--nodes', '3', '--subnet', subnet, '--dir', dir], {
      encoding: 'utf8',
      timeout: 120_000,
    });
    assert.equal(up.status, 0, up.stderr);
    cluster = JSON.parse(up.stdout.trim().split('\n').pop() ?? '') as Cluster;
    const [host, port] = cluster.sip.split(':');
    edge = { host, port: Number(port) };
  });
  after(() => {
    spawnSync(process.execPath, [CLUSTER_SCRIPT, 'down', '--dir', dir], { stdio: 'inherit', timeout: 30_000 });
    rmSync(root, { recursive: true, force: true });
  });

  it('prints the edge, the API of every node and the nodes', () => {
    assert.equal(cluster.sip, `${subnet}.10:5060`);
    assert.deepEqual(
      cluster.nodes.map((n) => n.sip),
      [`${subnet}.11:5060`, `${subnet}.12:5060`, `${subnet}.13:5060`],
    );
    for (const node of cluster.nodes) assert.ok(Number.isInteger(node.pid) && node.ari.endsWith('/ari'));
  });

  it('alice and bob register through the edge and alice calls bob', { timeout: 40_000 }, async () => {
    const bobPort = await freePort('udp');
    await register('alice', await freePort('udp'));
    await register('bob', bobPort);
    await call('alice', 'bob', bobPort);
  });

  it('spreads forty calls placed through the edge over all three nodes', { timeout: 60_000 }, async () => {
    const before = await callsPerNode();
    const result = await runSipp('uac-auth-wait-bye.xml', edge, {
      service: '200',
      keys: { user: 'alice', rtpport: 4206 },
      extra: credentials('alice'),
      calls: 40,
      rate: 20,
      timeoutSeconds: 40,
    });
    assert.equal(result.code, 0, result.stdout.slice(-2000));
    const taken = (await callsPerNode()).map((n, i) => n - before[i]);
    assert.equal(
      taken.reduce((a, b) => a + b, 0),
      40,
      `calls per node ${taken}`,
    );
    for (const n of taken) assert.ok(n > 0, `every node takes calls: ${taken}`);
  });

  it('after one node is killed, new calls go to the others within 10 s and alice is still reachable', { timeout: 60_000 }, async () => {
    const victim = cluster.nodes[2];
    process.kill(victim.pid, 'SIGKILL');
    const killedAt = Date.now();
    // The edge probes every second; a call that meets the dead node before that is retried on the next.
    let allAnswered = false;
    while (!allAnswered && Date.now() - killedAt < 10_000) {
      const batch = await runSipp('uac-auth-wait-bye.xml', edge, {
        service: '200',
        keys: { user: 'bob', rtpport: 4208 },
        extra: credentials('bob'),
        calls: 5,
        rate: 10,
        timeoutSeconds: 6,
      });
      allAnswered = batch.code === 0;
    }
    assert.ok(allAnswered, 'five calls in a row answered within 10 s of the kill');
    const alicePort = await freePort('udp');
    await register('alice', alicePort);
    await call('bob', 'alice', alicePort);
  });
});
