/**
 * Entry point of a media worker thread (compiled to dist/worker.js, started by the engine).
 * It connects a WorkerHost to the parent port and announces itself with the ready handshake.
 */
import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import type { MainToWorker, WorkerInit, WorkerToMain } from './protocol.js';
import { setNativeLegSockets } from './rtp/leg-socket.js';
import { WorkerHost } from './worker/worker-host.js';
import { WorkerOutbox } from './worker/worker-outbox.js';

if (isMainThread || parentPort === null) {
  throw new Error('worker.js is the media worker thread entry point; start it with new Worker()');
}

const port = parentPort;
const init = workerData as WorkerInit;
setNativeLegSockets(init.nativeSockets);
const outbox = new WorkerOutbox((post) => port.postMessage(post));
const host = new WorkerHost((message: WorkerToMain) => outbox.post(message), init.workerIndex);
port.on('message', (message: MainToWorker) => {
  if (message.kind === 'request') host.receive(message);
  else for (const request of message.requests) host.receive(request);
});
host.ready();
