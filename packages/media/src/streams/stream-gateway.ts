/**
 * The main thread's handle on external media streams (voice bots over WebSocket or AudioSocket).
 * Streams live in one worker thread, started on first use: it owns the sockets, the pacing clock
 * and every byte of audio, so the main thread never touches a sample. Requests carry ids and are
 * answered in order; pending opens are rejected if the worker dies.
 */
import { Worker } from 'node:worker_threads';
import type { StreamCommand, StreamWorkerMessage } from './stream-protocol.js';
import type { OpenedStream, OpenStreamRequest, StreamFrame, StreamNotification } from './stream-types.js';

export class MediaStreamGateway {
  #worker: Worker | undefined;
  #nextRequest = 1;
  readonly #pending = new Map<number, { resolve: (opened: OpenedStream) => void; reject: (err: Error) => void }>();
  readonly #open = new Set<string>();
  readonly #listeners = new Set<(notification: StreamNotification) => void>();

  /** Opens a stream; resolves once the application's connection is up (client kinds) or the stream is ready to be attached (server kind). */
  open(request: OpenStreamRequest): Promise<OpenedStream> {
    const requestId = this.#nextRequest++;
    return new Promise((resolve, reject) => {
      this.#pending.set(requestId, {
        resolve: (opened) => {
          this.#open.add(request.streamId);
          resolve(opened);
        },
        reject,
      });
      this.#post({ type: 'open', requestId, request });
    });
  }

  /** The application's socket of a server-kind stream was accepted. */
  attached(streamId: string): void {
    if (this.#open.has(streamId)) this.#post({ type: 'attached', streamId });
  }

  /** A frame the application sent on a server-kind stream's socket. */
  input(streamId: string, frame: StreamFrame): void {
    if (this.#open.has(streamId)) this.#post({ type: 'input', streamId, frame });
  }

  close(streamId: string): void {
    if (!this.#open.delete(streamId)) return;
    this.#post({ type: 'close', streamId });
  }

  onNotification(listener: (notification: StreamNotification) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  async shutdown(): Promise<void> {
    const worker = this.#worker;
    this.#worker = undefined;
    this.#rejectPending('the media stream gateway shut down');
    this.#open.clear();
    if (worker) await worker.terminate();
  }

  #post(command: StreamCommand): void {
    this.#ensureWorker().postMessage(command);
  }

  #ensureWorker(): Worker {
    if (this.#worker) return this.#worker;
    const worker = new Worker(new URL('./stream-worker.js', import.meta.url));
    worker.on('message', (message: StreamWorkerMessage) => this.#fromWorker(message));
    worker.on('error', () => undefined);
    worker.on('exit', () => {
      if (this.#worker !== worker) return;
      this.#worker = undefined;
      this.#rejectPending('the media stream worker stopped');
      for (const streamId of this.#open) this.#emit({ type: 'streamClosed', streamId, reason: 'the media stream worker stopped' });
      this.#open.clear();
    });
    // Streams end with their channels; an idle gateway never keeps the process alive.
    worker.unref();
    this.#worker = worker;
    return worker;
  }

  #fromWorker(message: StreamWorkerMessage): void {
    switch (message.type) {
      case 'opened':
      case 'openFailed': {
        const pending = this.#pending.get(message.requestId);
        this.#pending.delete(message.requestId);
        if (message.type === 'opened') pending?.resolve(message.opened);
        else pending?.reject(new Error(message.message));
        return;
      }
      case 'notification':
        if (message.notification.type === 'streamClosed') this.#open.delete(message.notification.streamId);
        this.#emit(message.notification);
        return;
    }
  }

  #emit(notification: StreamNotification): void {
    for (const listener of this.#listeners) {
      try {
        listener(notification);
      } catch {
        // One listener's failure never keeps the others from hearing about the stream.
      }
    }
  }

  #rejectPending(reason: string): void {
    for (const pending of this.#pending.values()) pending.reject(new Error(reason));
    this.#pending.clear();
  }
}
