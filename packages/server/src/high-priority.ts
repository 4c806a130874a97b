/**
 * `highpriority = yes` / `-p`: raises the server's threads (media/src/native/thread-priority.ts)
 * and says in the log what they run at, or why they could not be raised.
 */
import { REALTIME_PRIORITY, raiseThreadPriority } from '@switchboard/media';
import type { Logger } from '@switchboard/core';

export function applyHighPriority(log: Logger): void {
  const outcome = raiseThreadPriority();
  if (outcome.scheduling === 'SCHED_RR') {
    log.info({ threads: outcome.threads, policy: 'SCHED_RR', priority: REALTIME_PRIORITY }, 'high priority: realtime scheduling');
  } else if (outcome.scheduling === 'nice') {
    log.warn(
      { threads: outcome.threads, refused: outcome.refused },
      'high priority: realtime scheduling refused (it needs CAP_SYS_NICE, and a realtime budget in a container); running at nice -10 instead',
    );
  } else {
    log.warn({ refused: outcome.refused }, 'high priority: not permitted; running at normal priority');
  }
}
