/**
 * What tests of `highpriority` need to know of this machine and of a process's threads (Linux).
 */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

const CAP_SYS_NICE = 23n;

/** Whether this process holds CAP_SYS_NICE (/proc/self/status CapEff). */
export function hasSysNice(): boolean {
  const line = readFileSync('/proc/self/status', 'utf8').match(/^CapEff:\s*([0-9a-f]+)$/m);
  return line !== null && ((BigInt(`0x${line[1]}`) >> CAP_SYS_NICE) & 1n) === 1n;
}

/**
 * Whether this machine grants SCHED_RR at all: the capability is not enough where a container's
 * cgroup has no realtime budget. Asked of chrt (util-linux) when it is there.
 */
export function realtimeSchedulingGranted(): boolean {
  const probe = spawnSync('chrt', ['-r', '10', 'true'], { stdio: 'ignore' });
  return probe.error === undefined ? probe.status === 0 : hasSysNice();
}

/** The scheduling policy of every thread of a process: /proc/<pid>/task/<tid>/stat field 41 (0 SCHED_OTHER, 2 SCHED_RR). */
export function threadPolicies(pid: number | 'self'): number[] {
  return readdirSync(`/proc/${pid}/task`).map((tid) => {
    const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[41 - 3]);
  });
}
