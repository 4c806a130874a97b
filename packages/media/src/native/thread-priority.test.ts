/**
 * `highpriority`: run in child processes (a raised test runner would stay raised), each reporting
 * what raiseThreadPriority answered and the scheduling policy of every one of its threads
 * (/proc/<pid>/task/<tid>/stat field 41: 0 SCHED_OTHER, 2 SCHED_RR), a worker thread started after
 * the raise among them.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';

const MODULE = new URL('./thread-priority.js', import.meta.url).href;
const CAP_SYS_NICE = 23n;

const CHILD = `
const { readdirSync, readFileSync } = require('node:fs');
const { Worker } = require('node:worker_threads');
import(${JSON.stringify(MODULE)}).then(async ({ raiseThreadPriority }) => {
  const outcome = raiseThreadPriority();
  const worker = new Worker('setInterval(() => {}, 1000)', { eval: true });
  await new Promise((resolve) => worker.once('online', resolve));
  const policies = readdirSync('/proc/self/task').map((tid) => {
    const stat = readFileSync('/proc/self/task/' + tid + '/stat', 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[41 - 3]);
  });
  process.stdout.write(JSON.stringify({ outcome, policies }));
  process.exit(0);
});
`;

interface Report {
  outcome: { scheduling: string; threads: number; refused?: string };
  policies: number[];
}

function report(prefix: string[]): Report {
  const [command, ...args] = [...prefix, process.execPath, '-e', CHILD];
  const run = spawnSync(command as string, args, { encoding: 'utf8', timeout: 10_000 });
  assert.equal(run.status, 0, run.stderr);
  return JSON.parse(run.stdout) as Report;
}

function hasSysNice(): boolean {
  const line = readFileSync('/proc/self/status', 'utf8').match(/^CapEff:\s*([0-9a-f]+)$/m);
  return line !== null && ((BigInt(`0x${line[1]}`) >> CAP_SYS_NICE) & 1n) === 1n;
}

/**
 * Whether this machine grants SCHED_RR at all: the capability is not enough where a container's
 * cgroup has no realtime budget. Asked of chrt (util-linux) when it is there.
 */
function realtimeGranted(): boolean {
  const probe = spawnSync('chrt', ['-r', '10', 'true'], { stdio: 'ignore' });
  return probe.error === undefined ? probe.status === 0 : hasSysNice();
}

function setprivAvailable(): boolean {
  try {
    execFileSync('setpriv', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

describe('highpriority: raiseThreadPriority', () => {
  it(
    'puts every thread on SCHED_RR, and a thread started later inherits it',
    { skip: !realtimeGranted() && 'SCHED_RR is not granted here' },
    () => {
      const { outcome, policies } = report([]);
      assert.equal(outcome.scheduling, 'SCHED_RR');
      assert.ok(outcome.threads >= 2, `raised ${outcome.threads} threads`);
      assert.ok(policies.length > outcome.threads, 'the worker thread came after the raise');
      assert.deepEqual(
        policies.filter((policy) => policy !== 2),
        [],
      );
    },
  );

  it('without CAP_SYS_NICE says it was refused and changes nothing', { skip: !setprivAvailable() && 'setpriv is missing' }, () => {
    // Dropped from the bounding set, the capability is gone from the child even when this runs as root.
    const prefix = hasSysNice() ? ['setpriv', '--bounding-set=-sys_nice', '--inh-caps=-sys_nice'] : [];
    const { outcome, policies } = report(prefix);
    assert.notEqual(outcome.scheduling, 'SCHED_RR');
    assert.equal(outcome.refused, 'EPERM');
    assert.ok(policies.every((policy) => policy === 0));
  });
});
