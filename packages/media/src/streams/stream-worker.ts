/**
 * The stream worker thread: owns every external media stream's sockets and its 20 ms clock, so
 * the main thread only relays opaque frames for streams whose socket the API server accepted.
 */
import { parentPort } from 'node:worker_threads';
import { MediaStream } from './media-stream.js';
import type { StreamCommand, StreamWorkerMessage } from './stream-protocol.js';
import type { StreamNotification } from './stream-types.js';

/** Ticks come at least this often; each stream sends only the frames due by then. */
const TICK_INTERVAL_MS = 5;

const port = parentPort;
if (!port) throw new Error('stream-worker.js is a worker thread entry point');

const streams = new Map<string, MediaStream>();
const post = (message: StreamWorkerMessage) => port.postMessage(message);
const notify = (notification: StreamNotification) => {
  if (notification.type === 'streamClosed') streams.delete(notification.streamId);
  post({ type: 'notification', notification });
};

let ticker: NodeJS.Timeout | undefined;
function updateTicker(): void {
  if (streams.size > 0 && !ticker) {
    ticker = setInterval(() => {
      const now = performance.now();
      for (const stream of streams.values()) stream.tick(now);
    }, TICK_INTERVAL_MS);
  } else if (streams.size === 0 && ticker) {
    clearInterval(ticker);
    ticker = undefined;
  }
}

port.on('message', (command: StreamCommand) => {
  switch (command.type) {
    case 'open': {
      const stream = new MediaStream(command.request, notify);
      streams.set(stream.id, stream);
      updateTicker();
      stream.open().then(
        (opened) => post({ type: 'opened', requestId: command.requestId, opened }),
        (err: Error) => {
          streams.delete(stream.id);
          updateTicker();
          post({ type: 'openFailed', requestId: command.requestId, message: err.message });
        },
      );
      return;
    }
    case 'attached':
      streams.get(command.streamId)?.attached();
      return;
    case 'input':
      streams.get(command.streamId)?.input(command.frame);
      return;
    case 'close':
      streams.get(command.streamId)?.close(true);
      streams.delete(command.streamId);
      updateTicker();
      return;
  }
});
