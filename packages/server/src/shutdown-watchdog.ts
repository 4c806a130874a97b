/**
 * The last guarantee that shutdown ends in time. The main thread's own deadline is a timer, and a
 * main loop flooded with work (a SIP flood, thousands of calls being hung up) may run it seconds
 * late; this timer runs on a worker thread of its own, which the main loop's load cannot delay,
 * and kills the process when the deadline passes.
 */
import { Worker } from 'node:worker_threads';

const WATCHDOG_SOURCE = `
const { workerData } = require('node:worker_threads');
setTimeout(() => process.kill(workerData.pid, 'SIGKILL'), workerData.ms);
`;

/** Starts the watchdog; the process is killed `ms` from now unless it has exited by then. */
export function startShutdownWatchdog(ms: number): void {
  const worker = new Worker(WATCHDOG_SOURCE, { eval: true, workerData: { pid: process.pid, ms } });
  // Never the reason the process stays up.
  worker.unref();
}
