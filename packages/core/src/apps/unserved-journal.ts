/**
 * Events of applications whose node died, kept in the cluster's shared journal until the
 * application reconnects to another node (which resumes from it).
 *
 * A node sends the events of its channels in an application served elsewhere to that node
 * (application-registry.ts). When that node is killed outright nobody takes them; a node finds
 * that out from the claim the dead node left (its lock is gone with its connection: a dead claim)
 * and writes the application's events to the shared journal itself, numbered by the store after
 * those the dead node wrote, until another node claims the application.
 */
import type { ApplicationJournalStore, JournalLimits } from '../store/types.js';
import type { Logger } from '../util/logger.js';
import type { ApplicationSink } from './application.js';

/** Events written in one statement at most. */
const MAX_BATCH = 500;

export class UnservedJournal {
  readonly #store: ApplicationJournalStore;
  readonly #limits: () => JournalLimits;
  readonly #log: Logger;
  readonly #pending = new Map<string, Record<string, unknown>[]>();
  readonly #writing = new Set<string>();

  constructor(store: ApplicationJournalStore, limits: () => JournalLimits, log: Logger) {
    this.#store = store;
    this.#limits = limits;
    this.#log = log;
  }

  /** The sink of a stand-in whose application no node serves now. */
  sinkFor(application: string): ApplicationSink {
    return (event) => {
      if (event.type === 'ApplicationReplaced') return;
      let pending = this.#pending.get(application);
      if (!pending) {
        pending = [];
        this.#pending.set(application, pending);
      }
      pending.push(event as unknown as Record<string, unknown>);
      void this.#write(application);
    };
  }

  /** One batch in flight per application, so the store numbers them in the order they were raised. */
  async #write(application: string): Promise<void> {
    if (this.#writing.has(application)) return;
    this.#writing.add(application);
    try {
      for (;;) {
        const pending = this.#pending.get(application);
        if (!pending || pending.length === 0) break;
        const batch = pending.splice(0, MAX_BATCH);
        try {
          await this.#store.append(application, batch, this.#limits());
        } catch (err) {
          this.#log.error({ err, application, events: batch.length }, 'could not keep events of an unserved application');
        }
      }
      this.#pending.delete(application);
    } finally {
      this.#writing.delete(application);
    }
  }
}
