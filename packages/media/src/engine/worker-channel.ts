/**
 * The main thread's end of one media worker: starts the thread, waits for its ready handshake,
 * matches replies to requests by id, routes notifications and log lines, and tells a worker that
 * died apart from one that was closed.
 *
 *     starting ──ready──► ready ──close()──► closing ──exit──► closed
 *        │                  │
 *        │                  └──unexpected exit──► died   (onDied; pending requests rejected)
 *        └──exit / error / timeout before ready──► died  (start() rejects; onDied is not called)
 *     starting ──close()──► closing
 */
import { type Transferable, Worker } from 'node:worker_threads';
import { type MediaError, WorkerClosedError, WorkerDiedError, mediaErrorFromWire } from '../errors.js';
import type { MediaLogger } from '../logger.js';
import type {
  CommandOf,
  CommandResults,
  CommandType,
  WorkerInit,
  WorkerNotification,
  WorkerPost,
  WorkerRequest,
  WorkerToMain,
} from '../protocol.js';

/**
 * The media worker isolate's young generation, MB (Worker `resourceLimits`). Left to V8, it grew
 * with the relayed calls: the worker's heap reached 69 KiB per relayed call at 300 calls, against
 * 15 KiB with this limit, and the process's RSS growth per call fell from 131–143 KiB to 67–70 KiB,
 * with no more CPU and no loss (bench/README.md, "Memory per relayed call"). The packet path
 * allocates little, so the smaller space is swept rarely.
 */
const WORKER_YOUNG_GENERATION_MB = 8;

export type WorkerChannelState = 'starting' | 'ready' | 'closing' | 'closed' | 'died';

const TRANSITIONS: Record<WorkerChannelState, readonly WorkerChannelState[]> = {
  starting: ['ready', 'closing', 'died'],
  ready: ['closing', 'died'],
  closing: ['closed'],
  closed: [],
  died: [],
};

export interface WorkerChannelOptions {
  index: number;
  script: URL;
  logger: MediaLogger;
  /** How long a new worker may take to say it is ready. */
  readyTimeoutMs: number;
  /** WorkerInit.nativeSockets. */
  nativeSockets: boolean;
  /** How long a closing worker may take to answer `close` before it is terminated regardless. */
  closeTimeoutMs: number;
  onNotification(notification: WorkerNotification): void;
  /** The worker exited without being asked to, after it had been ready. */
  onDied(error: string): void;
}

interface Pending {
  resolve(result: unknown): void;
  reject(error: Error): void;
}

export class WorkerChannel {
  readonly index: number;
  readonly #options: WorkerChannelOptions;
  #state: WorkerChannelState = 'starting';
  #worker: Worker | null = null;
  #nextId = 1;
  readonly #pending = new Map<number, Pending>();
  /**
   * Requests made during this turn of the event loop, posted together once its I/O callbacks have
   * run (setImmediate): one message, so one wake-up of the worker thread, for all of them. Their
   * replies could not be read before the next turn anyway, so this delays no answer.
   */
  #outbox: WorkerRequest[] = [];
  #flushScheduled = false;
  /** Settles when the ready handshake arrives or start-up fails. */
  #ready: Promise<void> | null = null;
  #markReady: (() => void) | null = null;
  #failStart: ((error: Error) => void) | null = null;
  /** The uncaught exception the worker reported before exiting, if any. */
  #crash: string | null = null;
  #exited: Promise<void> | null = null;
  /** Resolves when the worker's final `closed` message arrives. */
  #drained: Promise<void> | null = null;
  #markDrained: (() => void) | null = null;
  #closing: Promise<void> | null = null;

  constructor(options: WorkerChannelOptions) {
    this.index = options.index;
    this.#options = options;
  }

  get state(): WorkerChannelState {
    return this.#state;
  }

  #transition(next: WorkerChannelState): void {
    if (!TRANSITIONS[this.#state].includes(next)) {
      throw new Error(`media worker ${this.index}: illegal transition ${this.#state} → ${next}`);
    }
    this.#state = next;
  }

  /** Starts the thread and resolves once it has sent `ready`. */
  start(): Promise<void> {
    if (this.#ready !== null) return this.#ready;
    this.#ready = new Promise<void>((resolve, reject) => {
      this.#markReady = resolve;
      this.#failStart = reject;
    });
    // Callers that never await `start()` must not see an unhandled rejection.
    this.#ready.catch(() => {});

    const init: WorkerInit = { workerIndex: this.index, nativeSockets: this.#options.nativeSockets };
    const worker = new Worker(this.#options.script, {
      workerData: init,
      resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_GENERATION_MB },
    });
    this.#worker = worker;
    this.#exited = new Promise((resolve) => worker.once('exit', () => resolve()));
    worker.on('message', (post: WorkerPost) => {
      if (post.kind !== 'batch') this.#receive(post);
      else for (const message of post.messages) this.#receive(message);
    });
    worker.on('error', (error) => {
      this.#crash = error.stack ?? error.message;
    });
    worker.on('exit', (code) => this.#exit(code));

    const timer = setTimeout(() => {
      if (this.#state !== 'starting') return;
      this.#crash = `no ready handshake within ${this.#options.readyTimeoutMs} ms`;
      void worker.terminate();
    }, this.#options.readyTimeoutMs);
    this.#ready.then(
      () => clearTimeout(timer),
      () => clearTimeout(timer),
    );
    return this.#ready;
  }

  /**
   * Sends a command and resolves with its reply's result, or rejects with its error. `transfer`
   * lists objects that move to the worker with it (the MessagePorts of a cross-worker bridge link).
   */
  async request<T extends CommandType>(command: CommandOf<T>, transfer: readonly Transferable[] = []): Promise<CommandResults[T]> {
    if (this.#state === 'starting' && this.#ready !== null) await this.#ready;
    if (this.#state !== 'ready') throw this.#unavailable();
    return this.#send(command, transfer);
  }

  #send<T extends CommandType>(command: CommandOf<T>, transfer: readonly Transferable[] = []): Promise<CommandResults[T]> {
    const worker = this.#worker;
    if (worker === null) return Promise.reject(this.#unavailable());
    const id = this.#nextId++;
    return new Promise<CommandResults[T]>((resolve, reject) => {
      // The reply's result is typed by the command it answers (protocol.ts CommandResults).
      this.#pending.set(id, { resolve: (result) => resolve(result as CommandResults[T]), reject });
      const request: WorkerRequest = { kind: 'request', id, command };
      if (transfer.length > 0) {
        // Ports move with a message of their own, after the requests queued before it.
        this.#flush();
        this.#post(worker, [request], transfer);
        return;
      }
      this.#outbox.push(request);
      if (!this.#flushScheduled) {
        this.#flushScheduled = true;
        setImmediate(() => this.#flush());
      }
    });
  }

  #flush(): void {
    this.#flushScheduled = false;
    const requests = this.#outbox;
    if (requests.length === 0) return;
    this.#outbox = [];
    // A worker that exited meanwhile has had these requests rejected with the rest (#exit).
    if (this.#worker !== null) this.#post(this.#worker, requests, []);
  }

  #post(worker: Worker, requests: WorkerRequest[], transfer: readonly Transferable[]): void {
    try {
      worker.postMessage(requests.length === 1 ? requests[0] : { kind: 'batch', requests }, [...transfer]);
    } catch (error) {
      // A request that cannot be sent fails alone: the others of its batch go one by one.
      if (requests.length > 1) {
        for (const request of requests) this.#post(worker, [request], []);
        return;
      }
      const pending = this.#pending.get(requests[0].id);
      this.#pending.delete(requests[0].id);
      pending?.reject(error instanceof Error ? error : new Error(String(error)));
    }
  }

  #unavailable(): MediaError {
    return this.#state === 'died'
      ? new WorkerDiedError(`media worker ${this.index} has died`)
      : new WorkerClosedError(`media worker ${this.index} is ${this.#state === 'starting' ? 'not started' : 'closed'}`);
  }

  /** Destroys the worker's legs, then ends the thread. Pending requests are rejected as closed. */
  close(): Promise<void> {
    if (this.#closing !== null) return this.#closing;
    if (this.#state === 'closed' || this.#state === 'died' || this.#worker === null) {
      this.#closing = Promise.resolve();
      return this.#closing;
    }
    const wasReady = this.#state === 'ready';
    this.#transition('closing');
    this.#closing = this.#shutDown(wasReady);
    return this.#closing;
  }

  async #shutDown(wasReady: boolean): Promise<void> {
    const worker = this.#worker;
    if (worker === null) return;
    if (wasReady) {
      // Ask first, so sockets close and playbacks finish `stopped` with their notifications; the
      // final `closed` message says every one of those has been delivered. A worker that does
      // not answer in time is ended regardless.
      this.#drained = new Promise((resolve) => {
        this.#markDrained = resolve;
      });
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, this.#options.closeTimeoutMs);
      });
      this.#send({ type: 'close' }).catch(() => {});
      await Promise.race([this.#drained, this.#exited, timeout]);
      clearTimeout(timer);
    }
    await worker.terminate();
    await this.#exited;
  }

  /**
   * Ends the thread abruptly as if it had crashed: the engine sees an unexpected exit. For tests of
   * worker-death handling only.
   */
  async killForTest(): Promise<void> {
    await this.#worker?.terminate();
    await this.#exited;
  }

  #receive(message: WorkerToMain): void {
    switch (message.kind) {
      case 'ready':
        if (this.#state === 'starting') {
          this.#transition('ready');
          this.#markReady?.();
        }
        return;
      case 'reply': {
        const pending = this.#pending.get(message.id);
        if (pending === undefined) return;
        this.#pending.delete(message.id);
        if (message.ok) pending.resolve(message.result);
        else pending.reject(mediaErrorFromWire(message.error));
        return;
      }
      case 'notification':
        this.#options.onNotification(message.notification);
        return;
      case 'closed':
        this.#markDrained?.();
        return;
      case 'log':
        this.#options.logger[message.level]({ module: 'switchboard:media:worker', worker: this.index, ...message.fields }, message.msg);
        return;
    }
  }

  #exit(code: number): void {
    const closing = this.#state === 'closing';
    const wasReady = this.#state === 'ready';
    const reason = this.#crash ?? `media worker ${this.index} exited unexpectedly with code ${code}`;
    this.#worker = null;
    if (closing) {
      this.#transition('closed');
      this.#rejectPending(new WorkerClosedError(`media worker ${this.index} was closed`));
      this.#failStart?.(new WorkerClosedError(`media worker ${this.index} was closed before it was ready`));
      return;
    }
    if (this.#state === 'closed' || this.#state === 'died') return;
    this.#transition('died');
    this.#rejectPending(new WorkerDiedError(`media worker ${this.index} died: ${reason}`));
    if (wasReady) this.#options.onDied(reason);
    else this.#failStart?.(new WorkerDiedError(`media worker ${this.index} failed to start: ${reason}`));
  }

  #rejectPending(error: MediaError): void {
    const pending = [...this.#pending.values()];
    this.#pending.clear();
    for (const entry of pending) entry.reject(error);
  }
}
