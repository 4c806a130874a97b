/**
 * One events WebSocket (SPEC §4.2, reference README §7). Its applications are registered before the
 * upgrade, so a refusal is still an HTTP answer; events raised until the socket is attached are
 * queued and flushed in order. A consumer that stops reading is disconnected instead of letting
 * its backlog grow: a write that makes no progress within the configured timeout, or a send
 * buffer beyond MAX_BUFFERED_BYTES, closes the socket. Applications are served through their
 * journals (event-journal.ts): events carry sequence numbers, a `resume` point replays what was
 * missed first (handed to the socket FLUSH_HIGH_WATER_BYTES at a time), and closing parks the
 * applications for the resume window (or unregisters them at once; channels stay in them until
 * they leave). Text frames from the client are REST requests (rest-over-websocket.ts).
 */
import type { ApplicationEvent, Logger, SwitchboardCore } from '@switchboard/core';
import type { WebSocket } from 'ws';
import type { UpgradeContext, WebSocketSession } from '../http/operation.js';
import { type Dialect, SPEC_DIALECT } from '../dialect/dialect.js';
import { eventsLostNotice, restResponse } from './connection-notices.js';
import type { WireEvent } from './envelope.js';
import { type Attachment, EventJournals, type JournalListener } from './event-journal.js';
import { RestOverWebSocket } from './rest-over-websocket.js';
import { eventText } from './event-text.js';
import { eventProblem } from './validate.js';

/** Bytes a connection may have waiting in its send buffer before it counts as a slow consumer. */
export const MAX_BUFFERED_BYTES = 4 * 1024 * 1024;
/** Queued events (a resume's replay) are handed to the socket only while less than this is buffered. */
const FLUSH_HIGH_WATER_BYTES = 1024 * 1024;
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
  /** The last sequence number the client saw, per application (`?resume=`). */
  readonly resume?: ReadonlyMap<string, number>;
  /** false: closing unregisters the applications at once instead of parking them for resume. */
  readonly parkOnClose?: boolean;
  /** Applications whose journal a cluster's store does not hold (set by `open`). */
  readonly sharedJournalMissing?: ReadonlySet<string>;
}

/** An outgoing text, and the numbered event it carries (to know what was written). */
interface Outgoing {
  readonly text: string;
  readonly application?: string;
  readonly sequence?: number;
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
  readonly #journals: EventJournals;
  readonly #listeners = new Map<string, JournalListener>();
  #queue: Outgoing[] = [];
  #parkOnClose: boolean;
  /** The sequence number of the last event of each application whose write completed. */
  readonly #lastWritten = new Map<string, number>();
  #queueLimit = MAX_QUEUED_EVENTS;
  #rest: RestOverWebSocket | undefined;
  #socket: WebSocket | undefined;
  #stream: UpgradeContext['stream'];
  #corked = false;
  #closed = false;
  #pendingWrites = 0;
  #lastProgress = 0;
  #watchdog: NodeJS.Timeout | undefined;
  /** Whether the watchdog is counting (writes are pending); its timer may outlive that. */
  #watchdogArmed = false;
  /** The timeout the watchdog's timer was made with (ari.conf may change it on reload). */
  #watchdogMs = 0;

  constructor(options: EventConnectionOptions) {
    this.#core = options.core;
    this.#log = options.log;
    this.#dialect = options.dialect ?? SPEC_DIALECT;
    this.#journals = EventJournals.of(options.core, options.log);
    this.#parkOnClose = options.parkOnClose ?? true;
    try {
      for (const name of options.applications) this.#journals.checkResume(name, options.resume?.get(name));
      const owed: [string, Attachment][] = [];
      for (const name of new Set(options.applications)) {
        const listener: JournalListener = {
          event: (sequence, event) => this.#deliver(name, event, sequence),
          replaced: () => this.#deliver(name, { type: 'ApplicationReplaced', timestamp: new Date() }),
          gap: (gap) => this.#emit(name, eventsLostNotice(name, gap, this.#core.config.general.entityId)),
        };
        const attachment = this.#journals.attach(name, listener, {
          subscribeAll: options.subscribeAll,
          resumeAfter: options.resume?.get(name),
          sharedJournalMissing: options.sharedJournalMissing?.has(name) ?? false,
        });
        this.#listeners.set(name, listener);
        owed.push([name, attachment]);
      }
      for (const [name, attachment] of owed) this.#replay(name, attachment);
    } catch (err) {
      this.#dispose();
      throw err;
    }
  }

  /**
   * Checks first what only the shared store can tell (in a cluster, a resume point against the
   * journal of an application served elsewhere), so that a refusal is still an HTTP answer.
   */
  static async open(options: EventConnectionOptions): Promise<EventConnection> {
    const journals = EventJournals.of(options.core, options.log);
    const names = [...new Set(options.applications)];
    const missing = await Promise.all(names.map((name) => journals.checkSharedResume(name, options.resume?.get(name))));
    return new EventConnection({ ...options, sharedJournalMissing: new Set(names.filter((_, i) => missing[i])) });
  }

  get applications(): string[] {
    return [...this.#listeners.keys()];
  }

  /** Bytes the socket has not written yet. */
  get queuedBytes(): number {
    return this.#socket?.bufferedAmount ?? 0;
  }

  attach(socket: WebSocket, upgrade?: UpgradeContext): void {
    if (this.#closed) {
      socket.terminate();
      return;
    }
    this.#socket = socket;
    this.#stream = upgrade?.stream;
    attached.add(this);
    socket.on('close', () => this.#dispose());
    socket.on('error', (err) => this.#log.debug({ err: err.message }, 'events socket error'));
    if (upgrade) this.#rest = this.#restOverWebSocket(upgrade);
    // Text frames are REST-over-WebSocket requests; binary frames are ignored (reference README §7).
    socket.on('message', (data, isBinary) => {
      if (!isBinary && this.#rest && !this.#closed) this.#rest.handle(String(data));
    });
    this.#flush();
    this.#log.info({ applications: this.applications }, 'events socket connected');
  }

  abandon(): void {
    if (!this.#socket) this.#dispose();
  }

  /** What a resumed application missed goes first: the gap notice, then the kept events in order. */
  #replay(application: string, attachment: Attachment): void {
    this.#queueLimit += attachment.replay.length + 1;
    if (attachment.gap) this.#emit(application, eventsLostNotice(application, attachment.gap, this.#core.config.general.entityId));
    for (const entry of attachment.replay) this.#deliver(application, entry.event, entry.sequence);
  }

  #restOverWebSocket(upgrade: UpgradeContext): RestOverWebSocket {
    const application = this.applications[0] ?? '';
    return new RestOverWebSocket({
      ...upgrade,
      answer: (answer) => this.#emit(application, restResponse(application, answer, this.#core.config.general.entityId)),
    });
  }

  /** What each application's last completed write carried: where a new connection resumes. */
  /** Closing unregisters the applications at once (a connection removed from the configuration). */
  unregisterOnClose(): void {
    this.#parkOnClose = false;
  }

  lastWrittenSequences(): ReadonlyMap<string, number> {
    return this.#lastWritten;
  }

  /** Sends an event of the connection's own (ApplicationRegistered and the like): unnumbered, not journaled. */
  notice(application: string, wire: WireEvent): void {
    this.#emit(application, wire);
  }

  /** A core event: checked and serialised once for every application it goes to (event-text.ts). */
  #deliver(application: string, event: ApplicationEvent, sequence?: number): void {
    if (this.#closed) return;
    const prepared = eventText(event, application, this.#core.config.general.entityId, this.#dialect, sequence);
    if (prepared.problem !== undefined) {
      this.#notDelivered(event.type, application, prepared.problem);
      return;
    }
    this.#write(sequence !== undefined ? { text: prepared.text, application, sequence } : { text: prepared.text });
  }

  #emit(application: string, wire: WireEvent): void {
    if (this.#closed) return;
    const problem = eventProblem(wire);
    if (problem) {
      this.#notDelivered(wire.type, application, problem);
      return;
    }
    // Checked against the models in SPEC.md's names, then written in the connection's dialect.
    this.#write({ text: JSON.stringify(this.#dialect.event(wire)) });
  }

  #notDelivered(eventType: string, application: string, problem: string): void {
    this.#log.warn({ eventType, application, problem }, 'event does not match its model; not delivered');
  }

  #write(outgoing: Outgoing): void {
    if (this.#socket && this.#queue.length === 0) {
      this.#send(outgoing);
    } else if (this.#queue.length < this.#queueLimit) {
      this.#queue.push(outgoing);
    } else {
      this.#log.warn({ applications: this.applications }, 'too many events waiting for the socket; dropping the connection');
      this.#dispose();
    }
  }

  #send(outgoing: Outgoing): void {
    const socket = this.#socket;
    if (!socket || this.#closed || socket.readyState !== socket.OPEN) return;
    if (socket.bufferedAmount > MAX_BUFFERED_BYTES) {
      this.#drop('send buffer full');
      return;
    }
    this.#pendingWrites += 1;
    this.#corkForThisTick();
    socket.send(outgoing.text, (err) => this.#written(err, outgoing));
    this.#armWatchdog(false);
  }

  /**
   * Each frame would otherwise be its own write system call (and wake the client once per event):
   * the frames of one tick are held and leave together when the tick's synchronous work is done,
   * before any I/O, so no event waits longer than it did.
   */
  #corkForThisTick(): void {
    const stream = this.#stream;
    if (stream === undefined || this.#corked) return;
    this.#corked = true;
    stream.cork();
    process.nextTick(() => {
      this.#corked = false;
      stream.uncork();
    });
  }

  /** Hands queued events to the socket in order without overfilling its buffer; resumed by write callbacks. */
  #flush(): void {
    const socket = this.#socket;
    while (socket && this.#queue.length > 0 && !this.#closed && socket.bufferedAmount < FLUSH_HIGH_WATER_BYTES) {
      this.#send(this.#queue.shift() as Outgoing);
    }
  }

  #written(err: Error | undefined, outgoing: Outgoing): void {
    this.#pendingWrites -= 1;
    this.#lastProgress = Date.now();
    if (err) {
      this.#drop(`write failed: ${err.message}`);
      return;
    }
    if (outgoing.application !== undefined && outgoing.sequence !== undefined)
      this.#lastWritten.set(outgoing.application, outgoing.sequence);
    this.#flush();
    // Progress was made: the timeout counts again from now for whatever is still waiting.
    this.#armWatchdog(true);
  }

  /**
   * The write watchdog is one timer per connection, restarted with `refresh()`: arming it per event
   * with a new setTimeout (and clearing it per write) made two timer objects and two timer-list
   * updates for every event sent. Disarmed, it may still fire once; it then finds nothing to do.
   */
  #armWatchdog(restart: boolean): void {
    if (this.#pendingWrites === 0 || this.#closed) {
      this.#watchdogArmed = false;
      return;
    }
    if (this.#watchdogArmed && !restart) return;
    const timeoutMs = this.#core.config.ari.websocketWriteTimeoutMs;
    if (this.#watchdog !== undefined && this.#watchdogMs === timeoutMs) {
      this.#watchdogArmed = true;
      this.#watchdog.refresh();
      return;
    }
    this.#clearWatchdog();
    this.#watchdogArmed = true;
    this.#watchdogMs = timeoutMs;
    this.#watchdog = setTimeout(() => {
      // After a stall of the event loop, timers run before the I/O callbacks that report the
      // writes completed in the meantime: decide only once those have run (setImmediate).
      setImmediate(() => this.#watchdogFired());
    }, timeoutMs);
  }

  #watchdogFired(): void {
    if (this.#closed || !this.#watchdogArmed) return;
    this.#watchdogArmed = false;
    if (this.#pendingWrites === 0) return;
    if (Date.now() - this.#lastProgress < this.#watchdogMs) {
      this.#armWatchdog(false);
      return;
    }
    // An empty buffer means everything reached the kernel and the consumer is keeping up.
    if ((this.#socket?.bufferedAmount ?? 0) === 0) return;
    this.#drop('write timeout');
  }

  #clearWatchdog(): void {
    if (this.#watchdog) clearTimeout(this.#watchdog);
    this.#watchdog = undefined;
    this.#watchdogArmed = false;
  }

  #drop(reason: string): void {
    if (this.#closed) return;
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
    for (const [name, listener] of this.#listeners) this.#journals.detach(name, listener, { park: this.#parkOnClose });
    this.#log.info({ applications: this.applications }, 'events socket closed');
  }
}
