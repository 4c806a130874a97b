/**
 * switchboard.conf `highpriority` (the original's `-p`): the server's threads, the media workers
 * among them, are scheduled SCHED_RR at priority 10, above every ordinary process, so a packet or a
 * SIP request is handled when it arrives rather than when another program gives up its core.
 *
 * Linux schedules threads, not processes: every thread that exists now is raised through
 * /proc/self/task, and threads started later (media workers, libuv's pool) inherit the policy of
 * the thread that starts them. Where SCHED_RR is refused (no CAP_SYS_NICE, or no native library)
 * the threads get the strongest nice value instead (-10, what the original falls back to), and
 * where that is refused too nothing changes and the caller says so.
 *
 * The kernel keeps 5 % of each second for ordinary tasks (sched_rt_runtime_us), so a runaway
 * realtime thread slows the machine but does not lock it.
 */
import { readdirSync } from 'node:fs';
import { setPriority } from 'node:os';
import { getSystemErrorName } from 'node:util';
import { nativeAddon } from './addon.js';

/** The original's realtime priority. */
export const REALTIME_PRIORITY = 10;
/** The nice value used when realtime scheduling is refused. */
export const FALLBACK_NICE = -10;

export interface PriorityOutcome {
  /** What the threads run at now. */
  readonly scheduling: 'SCHED_RR' | 'nice' | 'unchanged';
  /** Threads raised. */
  readonly threads: number;
  /** Why realtime scheduling (and, if unchanged, nice) was refused: an errno name. */
  readonly refused?: string;
}

/** This process's thread ids (Linux); [0], the calling thread, where /proc is not there. */
function threadIds(): number[] {
  try {
    return readdirSync('/proc/self/task').map(Number);
  } catch {
    return [0];
  }
}

/** Raises every thread of this process; never throws. */
export function raiseThreadPriority(): PriorityOutcome {
  const tids = threadIds();
  let refused: string | undefined = nativeAddon === null ? 'ENOTSUP' : undefined;
  if (nativeAddon !== null) {
    let raised = 0;
    for (const tid of tids) {
      const errno = nativeAddon.setRealtimePriority(tid, REALTIME_PRIORITY);
      if (errno === 0) raised += 1;
      // A thread that ended since the directory was read has nothing to raise.
      else if (getSystemErrorName(-errno) !== 'ESRCH') refused ??= getSystemErrorName(-errno);
    }
    if (refused === undefined) return { scheduling: 'SCHED_RR', threads: raised };
  }
  let niced = 0;
  let niceRefused: string | undefined;
  for (const tid of tids) {
    try {
      setPriority(tid, FALLBACK_NICE);
      niced += 1;
    } catch (error) {
      niceRefused ??= (error as NodeJS.ErrnoException).code ?? 'EPERM';
    }
  }
  if (niced > 0 && niceRefused === undefined) return { scheduling: 'nice', threads: niced, refused };
  return { scheduling: 'unchanged', threads: 0, refused: refused ?? niceRefused };
}
