/**
 * Warns when the main thread stalls. Signalling, the object model and the API share one event
 * loop; a pause of a few hundred milliseconds shows up on the wire as SIP retransmissions (Timer A
 * fires at 500 ms) and late events, so operators need to see it in the log with its size.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { Logger } from '@switchboard/core';

const CHECK_EVERY_MS = 10_000;
/** A longest pause above this within a check period is logged. */
const STALL_WARN_MS = 200;

export function watchEventLoop(log: Logger): () => void {
  const histogram = monitorEventLoopDelay({ resolution: 20 });
  histogram.enable();
  const timer = setInterval(() => {
    const maxMs = histogram.max / 1e6;
    if (maxMs >= STALL_WARN_MS) {
      log.warn(
        { maxMs: Math.round(maxMs), p99Ms: Math.round(histogram.percentile(99) / 1e6), periodMs: CHECK_EVERY_MS },
        'the main event loop stalled',
      );
    }
    histogram.reset();
  }, CHECK_EVERY_MS);
  timer.unref();
  return () => {
    clearInterval(timer);
    histogram.disable();
  };
}
