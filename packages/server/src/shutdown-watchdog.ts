/**
 * The last guarantee that shutdown ends in time. The main thread's own deadline is a timer, and a
 * main loop flooded with work (a SIP flood, thousands of calls being hung up) may run it seconds
 * late; the watchdog's timer runs on a worker thread of its own, which the main loop's load cannot
 * delay, and kills the process when the deadline passes. The worker is started with the server
 * (starting a thread under load takes time too) and only armed at shutdown.
 */
import { Worker } from 'node:worker_threads';

const WATCHDOG_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads');
parentPort.on('message', (ms) => {
  setTimeout(() => process.kill(workerData.pid, 'SIGKILL'), ms);
});
`;

export interface ShutdownWatchdog {
  /** The process is killed `ms` from now unless it has exited by then. */
  arm(ms: number): void;
}

export function startShutdownWatchdog(): ShutdownWatchdog {
  const worker = new Worker(WATCHDOG_SOURCE, { eval: true, workerData: { pid: process.pid } });
  // Never the reason the process stays up.
  worker.unref();
  return { arm: (ms) => worker.postMessage(ms) };
}
