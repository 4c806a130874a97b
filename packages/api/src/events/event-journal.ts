/**
 * The event journal of each application (no lost events): every event core delivers to an
 * application is numbered (1, 2, 3… per application, no holes) and kept for the resume window
 * (ari.conf `resume_window`, `resume_max_events`). A connection that reconnects with
 * `?resume=<last sequence seen>` is first given what it missed, in order, then the live stream.
 *
 * The journal, not the connection, is the application's sink in core. When the connection that
 * serves an application goes away, the application stays registered ("parked") for the resume
 * window, so channels keep their subscriptions and their events keep being numbered and kept;
 * when the window passes without a new connection, the application is unregistered as before.
 *
 *   (none) --attach--> served --detach--> parked --window passes--> (none: unregistered, dropped)
 *                        ^                  |
 *                        +------attach------+
 *
 * With `resume_window = 0` nothing is kept: detaching unregisters at once, as without a journal.
 *
 * In a cluster the journal is also the cluster's (core's applicationJournal, in the shared store):
 * the store numbers the events, in batches (what arrives while one batch is written is the next),
 * and an event reaches the connection once its batch is stored, so a client never saw a number
 * the shared journal does not have. An application that reconnects to another node with
 * `?resume=N` is given what that journal kept after N. Numbers the store gave while this node was
 * not writing (another node kept the events of the application while its node was dead) show as a
 * hole before a batch's first number, and are read back and delivered before that batch.
 */
import { type ApplicationEvent, type ApplicationJournalStore, eventOrigin, type Logger, type SwitchboardCore } from '@switchboard/core';
import { type ApiError, badRequest } from '../http/api-error.js';

/** The connection serving an application. */
export interface JournalListener {
  /** A live event with its sequence number. */
  event(sequence: number, event: ApplicationEvent): void;
  /** Another connection took the application over; this one receives nothing more for it. */
  replaced(): void;
  /** Events the shared journal no longer has (a cluster's resume on another node). */
  gap(gap: ResumeGap): void;
}

export interface JournalEntry {
  readonly sequence: number;
  readonly event: ApplicationEvent;
}

/** Events a resuming client asked for that are no longer kept. */
export interface ResumeGap {
  readonly firstLost: number;
  /** Absent when the journal itself is gone (window passed, server restarted): the extent is unknown. */
  readonly lastLost?: number;
  readonly reason: string;
}

/** What a newly attached connection is owed before the live stream. */
export interface Attachment {
  readonly gap?: ResumeGap;
  readonly replay: readonly JournalEntry[];
}

export interface AttachOptions {
  readonly subscribeAll: boolean;
  /** The last sequence number the client saw; undefined for a fresh start. */
  readonly resumeAfter?: number;
  /** A cluster's store holds no journal of the application (checkSharedResume said so). */
  readonly sharedJournalMissing?: boolean;
}

interface KeptEvent extends JournalEntry {
  readonly at: number;
}

type JournalState = 'served' | 'parked';

/** Dropped events left at the front of the kept array before it is cut (ApplicationJournal.#trim). */
const MAX_DROPPED_FRONT = 1024;

/** Events stored in the shared journal in one statement at most. */
const MAX_SHARED_BATCH = 500;

const SHARED_GAP_REASON = 'events older than the resume window (resume_window, resume_max_events) are no longer kept';

function resumeAhead(name: string, after: number, last: number): ApiError {
  return badRequest(`resume=${after} is ahead of application ${name}'s last event (${last})`);
}

/** A stored event as core delivers it (its timestamp a Date again). */
function revive(event: Record<string, unknown>): ApplicationEvent {
  return { ...event, timestamp: new Date(String(event.timestamp)) } as unknown as ApplicationEvent;
}

class ApplicationJournal {
  readonly name: string;
  /** The stable sink core delivers to for as long as this journal exists. */
  readonly sink = (event: ApplicationEvent) => this.#record(event);
  state: JournalState = 'served';
  listener: JournalListener | undefined;
  parkTimer: NodeJS.Timeout | undefined;
  #next = 1;
  /** The kept events are `#kept[#head..]`: the dropped front is cut off only now and then (see #trim). */
  #kept: KeptEvent[] = [];
  #head = 0;
  /** The highest sequence number dropped from the journal (0: nothing dropped yet). */
  #droppedThrough = 0;
  readonly #limits: () => { windowMs: number; maxEvents: number };

  readonly #lost: (journal: ApplicationJournal) => void;
  readonly #shared: ApplicationJournalStore | undefined;
  readonly #log: Logger;
  /** Shared mode: events waiting for their batch, and whether one is being written. */
  readonly #unnumbered: ApplicationEvent[] = [];
  #writing = false;
  /** Shared mode: read the shared journal after this number before anything else (a resume). */
  #readAfter: number | undefined;

  constructor(
    name: string,
    limits: () => { windowMs: number; maxEvents: number },
    lost: (journal: ApplicationJournal) => void,
    shared: ApplicationJournalStore | undefined,
    log: Logger,
  ) {
    this.name = name;
    this.#limits = limits;
    this.#lost = lost;
    this.#shared = shared;
    this.#log = log;
    // Shared mode: numbering follows the store's; 0 until the first batch says where it is.
    if (shared) this.#next = 0;
  }

  /** Shared mode, a new journal: what the shared journal kept after `after` comes first. */
  resumeShared(after: number): void {
    this.#next = after + 1;
    this.#readAfter = after;
    void this.#writeShared();
  }

  get lastSequence(): number {
    return Math.max(0, this.#next - 1);
  }

  /** The events after `after`, and the gap before them when some were already dropped. */
  since(after: number): Attachment {
    this.#trim(Date.now());
    const replay: JournalEntry[] = [];
    for (let index = this.#head; index < this.#kept.length; index += 1) {
      const { sequence, event } = this.#kept[index] as KeptEvent;
      if (sequence > after) replay.push({ sequence, event });
    }
    if (after >= this.#droppedThrough) return { replay };
    const gap: ResumeGap = {
      firstLost: after + 1,
      lastLost: this.#droppedThrough,
      reason: 'events older than the resume window (resume_window, resume_max_events) are no longer kept',
    };
    return { gap, replay };
  }

  #record(event: ApplicationEvent): void {
    // Connections on this node replace each other through the journal (attach), never through core.
    // Core says ApplicationReplaced only when another node of a cluster took the name.
    if (event.type === 'ApplicationReplaced') {
      const listener = this.listener;
      this.listener = undefined;
      listener?.replaced();
      this.#lost(this);
      return;
    }
    if (this.#shared) {
      this.#unnumbered.push(event);
      void this.#writeShared();
      return;
    }
    const sequence = this.#next;
    this.#next += 1;
    this.#keep(sequence, event);
  }

  #keep(sequence: number, event: ApplicationEvent): void {
    const { windowMs } = this.#limits();
    if (windowMs > 0) {
      const now = Date.now();
      this.#kept.push({ sequence, event, at: now });
      this.#trim(now);
    } else {
      this.#droppedThrough = sequence;
    }
    this.listener?.event(sequence, event);
  }

  /** Shared mode: one batch at a time, so the store numbers events in the order they came. */
  async #writeShared(): Promise<void> {
    const store = this.#shared;
    if (!store || this.#writing) return;
    this.#writing = true;
    try {
      while (this.#readAfter !== undefined || this.#unnumbered.length > 0) {
        if (this.#readAfter !== undefined) {
          const after = this.#readAfter;
          this.#readAfter = undefined;
          await this.#readShared(store, after, Number.POSITIVE_INFINITY);
          continue;
        }
        const batch = this.#unnumbered.splice(0, MAX_SHARED_BATCH);
        let first: number;
        try {
          first = await store.append(
            this.name,
            batch,
            this.#limits(),
            batch.map((event) => eventOrigin(event)),
          );
        } catch (err) {
          // The store is unreachable: the events are numbered here alone (a resume elsewhere misses them).
          this.#log.error({ err, application: this.name, events: batch.length }, 'could not write the shared event journal');
          first = Math.max(this.#next, 1);
        }
        if (this.#next > 0 && first > this.#next) await this.#readShared(store, this.#next - 1, first);
        for (const [i, event] of batch.entries()) this.#keep(first + i, event);
        this.#next = first + batch.length;
      }
    } finally {
      this.#writing = false;
    }
  }

  /** Delivers what the shared journal kept after `after` and before `before`, after a gap notice for what it dropped. */
  async #readShared(store: ApplicationJournalStore, after: number, before: number): Promise<void> {
    let slice: Awaited<ReturnType<ApplicationJournalStore['since']>>;
    try {
      slice = await store.since(this.name, after);
    } catch (err) {
      this.#log.error({ err, application: this.name }, 'could not read the shared event journal');
      return;
    }
    const kept = slice.entries.filter((entry) => entry.sequence < before);
    const firstKept = kept[0]?.sequence ?? Math.min(before, slice.last + 1);
    if (firstKept > after + 1 && slice.droppedThrough > after) {
      this.listener?.gap({ firstLost: after + 1, lastLost: firstKept - 1, reason: SHARED_GAP_REASON });
    }
    for (const entry of kept) this.#keep(entry.sequence, revive(entry.event));
    const last = kept[kept.length - 1]?.sequence;
    if (last !== undefined) this.#next = Math.max(this.#next, last + 1);
  }

  #trim(now: number): void {
    const { windowMs, maxEvents } = this.#limits();
    let drop = Math.max(this.#head, this.#kept.length - maxEvents);
    while (drop < this.#kept.length && (this.#kept[drop] as KeptEvent).at < now - windowMs) drop += 1;
    if (drop === this.#head) return;
    this.#droppedThrough = (this.#kept[drop - 1] as KeptEvent).sequence;
    // Cutting the front copies every kept event: with a full journal that was once per new event.
    // Cut once the dropped part is long (it holds at most that many old events) or outweighs the rest.
    if (drop >= MAX_DROPPED_FRONT || drop >= this.#kept.length - drop) {
      this.#kept = this.#kept.slice(drop);
      this.#head = 0;
    } else {
      this.#head = drop;
    }
  }
}

/** The journals of one server's applications. */
export class EventJournals {
  static readonly #byCore = new WeakMap<SwitchboardCore, EventJournals>();

  /** The journals of a core (one set per core, shared by every connection to its API). */
  static of(core: SwitchboardCore, log: Logger): EventJournals {
    let journals = EventJournals.#byCore.get(core);
    if (!journals) {
      journals = new EventJournals(core, log);
      EventJournals.#byCore.set(core, journals);
    }
    return journals;
  }

  readonly #core: SwitchboardCore;
  readonly #log: Logger;
  readonly #journals = new Map<string, ApplicationJournal>();
  #closed = false;

  private constructor(core: SwitchboardCore, log: Logger) {
    this.#core = core;
    this.#log = log;
  }

  /** The last sequence number given to an application's events (0 when it has no journal). */
  lastSequence(name: string): number {
    return this.#journals.get(name)?.lastSequence ?? 0;
  }

  /**
   * Makes `listener` the connection of application `name`, registering it in core when needed.
   * A resume point beyond the last event is refused (400) before anything changes.
   */
  attach(name: string, listener: JournalListener, options: AttachOptions): Attachment {
    const existing = this.#journals.get(name);
    const after = options.resumeAfter;
    this.checkResume(name, after);
    const journal =
      existing ??
      new ApplicationJournal(
        name,
        () => this.#limits(),
        (lost) => this.#drop(lost),
        this.#core.applicationJournal,
        this.#log,
      );
    this.#core.applications.register(name, journal.sink, { subscribeAll: options.subscribeAll });
    this.#journals.set(name, journal);
    if (journal.parkTimer) clearTimeout(journal.parkTimer);
    journal.parkTimer = undefined;
    const previous = journal.listener;
    journal.listener = listener;
    journal.state = 'served';
    if (previous && previous !== listener) previous.replaced();
    const shared = !existing && this.#core.applicationJournal !== undefined;
    if (shared && !options.sharedJournalMissing) {
      // A cluster: the application may have been served by another node; its journal is shared.
      if (after !== undefined) journal.resumeShared(after);
      return { replay: [] };
    }
    if (after === undefined || after === 0) return existing && after === 0 ? journal.since(0) : { replay: [] };
    if (!existing) {
      return {
        replay: [],
        gap: {
          firstLost: after + 1,
          reason: shared
            ? 'the application has no journal in the cluster (the resume window passed or it was never served); numbering starts again at 1'
            : 'the application has no journal (the resume window passed or the server restarted); numbering starts again at 1',
        },
      };
    }
    return journal.since(after);
  }

  /** Refuses (400) a resume point beyond the application's last event. */
  checkResume(name: string, after: number | undefined): void {
    const existing = this.#journals.get(name);
    if (after !== undefined && existing && after > existing.lastSequence) throw resumeAhead(name, after, existing.lastSequence);
  }

  /**
   * In a cluster, an application this node has no journal of may have been served by another node:
   * the shared journal's head is its last event, and a resume point beyond it is refused (400) as
   * on one node. No journal in the store either (never written, or dropped with the application):
   * accepted, and, as on one node, the client is told that what it asked for is gone and numbering
   * starts again (the answer is true then, for `attach`'s `sharedJournalMissing`). A store that cannot
   * be read refuses nothing (the events are then numbered by this node alone, as when it cannot be
   * written).
   */
  async checkSharedResume(name: string, after: number | undefined): Promise<boolean> {
    const shared = this.#core.applicationJournal;
    if (after === undefined || after === 0 || shared === undefined || this.#journals.has(name)) return false;
    let head: number | undefined;
    try {
      head = await shared.head(name);
    } catch (err) {
      this.#log.error({ err, application: name }, "could not read the shared event journal's head");
      return false;
    }
    if (head !== undefined && after > head) throw resumeAhead(name, after, head);
    return head === undefined;
  }

  /** The connection went away: the application is parked for the resume window, then unregistered. */
  detach(name: string, listener: JournalListener, options: { park?: boolean } = {}): void {
    const journal = this.#journals.get(name);
    if (!journal || journal.listener !== listener) return;
    journal.listener = undefined;
    const { windowMs } = this.#limits();
    if (windowMs === 0 || this.#closed || options.park === false) {
      this.#drop(journal);
      return;
    }
    journal.state = 'parked';
    journal.parkTimer = setTimeout(() => this.#drop(journal), windowMs);
    journal.parkTimer.unref();
    this.#log.debug({ application: name, windowMs }, 'application parked for resume');
  }

  /** Stops every park timer and unregisters parked applications (server shutdown); nothing is parked after. */
  close(): void {
    this.#closed = true;
    for (const journal of [...this.#journals.values()]) if (journal.state === 'parked') this.#drop(journal);
  }

  #drop(journal: ApplicationJournal): void {
    if (journal.parkTimer) clearTimeout(journal.parkTimer);
    journal.parkTimer = undefined;
    if (this.#journals.get(journal.name) === journal) this.#journals.delete(journal.name);
    this.#core.applications.unregister(journal.name, journal.sink);
  }

  #limits(): { windowMs: number; maxEvents: number } {
    const ari = this.#core.config.ari;
    return { windowMs: ari.resumeWindowSeconds * 1000, maxEvents: ari.resumeMaxEvents };
  }
}
