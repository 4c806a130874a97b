/**
 * One events WebSocket (SPEC §4.2, reference README §7). Its applications are registered before the
 * upgrade, so a refusal is still an HTTP answer; events raised until the socket is attached are
 * queued and flushed in order. A consumer that stops reading is disconnected instead of letting
 * its backlog grow: a write that makes no progress within the configured timeout, or a send
 * buffer beyond MAX_BUFFERED_BYTES, closes the socket. Closing unregisters the applications
 * (channels stay in them until they leave).
 */
import type { ApplicationEvent, ApplicationSink, Logger, SwitchboardCore } from '@switchboard/core';
import type { WebSocket } from 'ws';
import type { WebSocketSession } from '../http/operation.js';
import { type Dialect, SPEC_DIALECT } from '../dialect/dialect.js';
import { toWireEvent } from './envelope.js';
import { eventProblem } from './validate.js';

/** Bytes a connection may have waiting in its send buffer before it counts as a slow consumer. */
export const MAX_BUFFERED_BYTES = 4 * 1024 * 1024;
/** Events kept for a connection whose upgrade has not completed yet. */
export const MAX_QUEUED_EVENTS = 1000;
/** Inbound frames larger than this are refused by the socket (reference README §8). */
export const MAX_INBOUND_PAYLOAD = 65535;

export interface EventConnectionOptions {
  readonly core: SwitchboardCore;
  readonly applications: readonly string[];
  readonly subscribeAll: boolean;
  readonly log: Logger;
  /** The naming of the user who opened the connection (SPEC.md's when absent). */
  readonly dialect?: Dialect;
}

/** Attached connections, for the metrics endpoint (eventConnectionStats). */
const attached = new Set<EventConnection>();

/** Open events WebSockets and the bytes waiting to be written to them, over every server. */
export function eventConnectionStats(): { connections: number; queuedBytes: number } {
  let queuedBytes = 0;
  for (const connection of attached) queuedBytes += connection.queuedBytes;
  return { connections: attached.size, queuedBytes };
}

export class EventConnection implements WebSocketSession {
  readonly #core: SwitchboardCore;
  readonly #log: Logger;
  readonly #dialect: Dialect;
  readonly #sinks = new Map<string, ApplicationSink>();
  #queue: string[] = [];
  #socket: WebSocket | undefined;
  #closed = false;
  #pendingWrites = 0;
  #watchdog: NodeJS.Timeout | undefined;

  constructor(options: EventConnectionOptions) {
    this.#core = options.core;
    this.#log = options.log;
    this.#dialect = options.dialect ?? SPEC_DIALECT;
    try {
      for (const name of new Set(options.applications)) {
        const sink: ApplicationSink = (event) => this.#deliver(name, event);
        this.#core.applications.register(name, sink, { subscribeAll: options.subscribeAll });
        this.#sinks.set(name, sink);
      }
    } catch (err) {
      this.#dispose();
      throw err;
    }
  }

  get applications(): string[] {
    return [...this.#sinks.keys()];
  }

  /** Bytes the socket has not written yet. */
  get queuedBytes(): number {
    return this.#socket?.bufferedAmount ?? 0;
  }

  attach(socket: WebSocket): void {
    if (this.#closed) {
      socket.terminate();
      return;
    }
    this.#socket = socket;
    attached.add(this);
    socket.on('close', () => this.#dispose());
    socket.on('error', (err) => this.#log.debug({ err: err.message }, 'events socket error'));
    // Client → server requests (REST over WebSocket) are not offered; frames are read and ignored.
    socket.on('message', () => undefined);
    const queued = this.#queue;
    this.#queue = [];
    for (const text of queued) this.#send(text);
    this.#log.info({ applications: this.applications }, 'events socket connected');
  }

  abandon(): void {
    if (!this.#socket) this.#dispose();
  }

  #deliver(application: string, event: ApplicationEvent): void {
    if (this.#closed) return;
    const wire = toWireEvent(event, application, this.#core.config.general.entityId);
    const problem = eventProblem(wire);
    if (problem) {
      this.#log.warn({ eventType: wire.type, application, problem }, 'event does not match its model; not delivered');
      return;
    }
    // Checked against the models in SPEC.md's names, then written in the connection's dialect.
    const text = JSON.stringify(this.#dialect.event(wire));
    if (this.#socket) {
      this.#send(text);
    } else if (this.#queue.length < MAX_QUEUED_EVENTS) {
      this.#queue.push(text);
    } else {
      this.#log.warn({ applications: this.applications }, 'too many events before the socket opened; dropping the connection');
      this.#dispose();
    }
  }

  #send(text: string): void {
    const socket = this.#socket;
    if (!socket || this.#closed || socket.readyState !== socket.OPEN) return;
    if (socket.bufferedAmount > MAX_BUFFERED_BYTES) {
      this.#drop('send buffer full');
      return;
    }
    this.#pendingWrites += 1;
    socket.send(text, (err) => this.#written(err));
    this.#armWatchdog(false);
  }

  #written(err: Error | undefined): void {
    this.#pendingWrites -= 1;
    if (err) {
      this.#drop(`write failed: ${err.message}`);
      return;
    }
    // Progress was made: the timeout counts again from now for whatever is still waiting.
    this.#armWatchdog(true);
  }

  #armWatchdog(restart: boolean): void {
    if (this.#pendingWrites === 0 || this.#closed) {
      this.#clearWatchdog();
      return;
    }
    if (this.#watchdog && !restart) return;
    this.#clearWatchdog();
    this.#watchdog = setTimeout(() => {
      this.#watchdog = undefined;
      // Write callbacks may simply not have run yet (a busy event loop); an empty buffer means
      // everything reached the kernel and the consumer is keeping up.
      if ((this.#socket?.bufferedAmount ?? 0) === 0) return;
      this.#drop('write timeout');
    }, this.#core.config.ari.websocketWriteTimeoutMs);
  }

  #clearWatchdog(): void {
    if (this.#watchdog) clearTimeout(this.#watchdog);
    this.#watchdog = undefined;
  }

  #drop(reason: string): void {
    this.#log.warn({ applications: this.applications, reason }, 'slow events consumer disconnected');
    this.#socket?.terminate();
    this.#dispose();
  }

  #dispose(): void {
    if (this.#closed) return;
    this.#closed = true;
    attached.delete(this);
    this.#queue = [];
    this.#clearWatchdog();
    for (const [name, sink] of this.#sinks) this.#core.applications.unregister(name, sink);
    this.#log.info({ applications: this.applications }, 'events socket closed');
  }
}
