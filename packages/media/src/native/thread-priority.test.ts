/**
 * `highpriority`: run in child processes (a raised test runner would stay raised), each reporting
 * what raiseThreadPriority answered and the scheduling policy of every one of its threads
 * (/proc/<pid>/task/<tid>/stat field 41: 0 SCHED_OTHER, 2 SCHED_RR), a worker thread started after
 * the raise among them.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { hasSysNice, realtimeSchedulingGranted } from '../test-support/scheduling.js';

const MODULE = new URL('./thread-priority.js', import.meta.url).href;
const SCHEDULING = new URL('../test-support/scheduling.js', import.meta.url).href;

const CHILD = `
const { Worker } = require('node:worker_threads');
Promise.all([import(${JSON.stringify(MODULE)}), import(${JSON.stringify(SCHEDULING)})]).then(async ([{ raiseThreadPriority }, { threadPolicies }]) => {
  const outcome = raiseThreadPriority();
  const worker = new Worker('setInterval(() => {}, 1000)', { eval: true });
  await new Promise((resolve) => worker.once('online', resolve));
  process.stdout.write(JSON.stringify({ outcome, policies: threadPolicies('self') }));
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
    { skip: !realtimeSchedulingGranted() && 'SCHED_RR is not granted here' },
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
