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
 */
import type { ApplicationEvent, Logger, SwitchboardCore } from '@switchboard/core';
import { badRequest } from '../http/api-error.js';

/** The connection serving an application. */
export interface JournalListener {
  /** A live event with its sequence number. */
  event(sequence: number, event: ApplicationEvent): void;
  /** Another connection took the application over; this one receives nothing more for it. */
  replaced(): void;
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
}

interface KeptEvent extends JournalEntry {
  readonly at: number;
}

type JournalState = 'served' | 'parked';

class ApplicationJournal {
  readonly name: string;
  /** The stable sink core delivers to for as long as this journal exists. */
  readonly sink = (event: ApplicationEvent) => this.#record(event);
  state: JournalState = 'served';
  listener: JournalListener | undefined;
  parkTimer: NodeJS.Timeout | undefined;
  #next = 1;
  #kept: KeptEvent[] = [];
  /** The highest sequence number dropped from the journal (0: nothing dropped yet). */
  #droppedThrough = 0;
  readonly #limits: () => { windowMs: number; maxEvents: number };

  readonly #lost: (journal: ApplicationJournal) => void;

  constructor(name: string, limits: () => { windowMs: number; maxEvents: number }, lost: (journal: ApplicationJournal) => void) {
    this.name = name;
    this.#limits = limits;
    this.#lost = lost;
  }

  get lastSequence(): number {
    return this.#next - 1;
  }

  /** The events after `after`, and the gap before them when some were already dropped. */
  since(after: number): Attachment {
    this.#trim(Date.now());
    const replay = this.#kept.filter((entry) => entry.sequence > after).map(({ sequence, event }) => ({ sequence, event }));
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
    const sequence = this.#next;
    this.#next += 1;
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

  #trim(now: number): void {
    const { windowMs, maxEvents } = this.#limits();
    let drop = Math.max(0, this.#kept.length - maxEvents);
    while (drop < this.#kept.length && (this.#kept[drop] as KeptEvent).at < now - windowMs) drop += 1;
    if (drop === 0) return;
    this.#droppedThrough = (this.#kept[drop - 1] as KeptEvent).sequence;
    this.#kept = this.#kept.slice(drop);
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
      );
    this.#core.applications.register(name, journal.sink, { subscribeAll: options.subscribeAll });
    this.#journals.set(name, journal);
    if (journal.parkTimer) clearTimeout(journal.parkTimer);
    journal.parkTimer = undefined;
    const previous = journal.listener;
    journal.listener = listener;
    journal.state = 'served';
    if (previous && previous !== listener) previous.replaced();
    if (after === undefined || after === 0) return existing && after === 0 ? journal.since(0) : { replay: [] };
    if (!existing) {
      return {
        replay: [],
        gap: {
          firstLost: after + 1,
          reason: 'the application has no journal (the resume window passed or the server restarted); numbering starts again at 1',
        },
      };
    }
    return journal.since(after);
  }

  /** Refuses (400) a resume point beyond the application's last event. */
  checkResume(name: string, after: number | undefined): void {
    const existing = this.#journals.get(name);
    if (after !== undefined && existing && after > existing.lastSequence) {
      throw badRequest(`resume=${after} is ahead of application ${name}'s last event (${existing.lastSequence})`);
    }
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
