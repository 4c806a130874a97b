/**
 * A worker's messages to the main thread, posted together once the callback that made them and its
 * microtasks have run. Each message the main thread receives is a callback into its JavaScript:
 * 9.5–12 µs of its CPU per reply here, against 4–4.5 µs per reply in a message of ten
 * (`bench/worker-messages.mjs`), and the ten or so requests of a call's set-up or hangup arrive in
 * one batch and are answered in one callback.
 */
import { mediaErrorToWire } from '../errors.js';
import type { WorkerPost, WorkerToMain } from '../protocol.js';

export class WorkerOutbox {
  readonly #send: (post: WorkerPost) => void;
  #queue: WorkerToMain[] = [];

  constructor(send: (post: WorkerPost) => void) {
    this.#send = send;
  }

  post(message: WorkerToMain): void {
    if (this.#queue.length === 0) queueMicrotask(() => this.flush());
    this.#queue.push(message);
  }

  /** Sends what is queued now; a flush scheduled for the same messages then finds nothing. */
  flush(): void {
    const messages = this.#queue;
    if (messages.length === 0) return;
    this.#queue = [];
    if (messages.length === 1) this.#sendAlone(messages[0] as WorkerToMain);
    else {
      try {
        this.#send({ kind: 'batch', messages });
      } catch {
        // One message that cannot be cloned must not take the others with it.
        for (const message of messages) this.#sendAlone(message);
      }
    }
  }

  /**
   * A message that cannot be sent (a value that does not clone) is replaced by what the main thread
   * needs instead: a failed reply, so the request does not wait for ever, or an error in its log.
   */
  #sendAlone(message: WorkerToMain): void {
    try {
      this.#send(message);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      if (message.kind === 'reply') {
        this.#send({
          kind: 'reply',
          id: message.id,
          ok: false,
          error: mediaErrorToWire(new Error(`the reply could not be sent: ${reason}`)),
        });
      } else {
        this.#send({
          kind: 'log',
          level: 'error',
          fields: { kind: message.kind, err: reason },
          msg: 'a media worker message could not be sent',
        });
      }
    }
  }
}
