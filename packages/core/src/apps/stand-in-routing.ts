/**
 * Where the stand-ins of applications served by other nodes send their events (see
 * application-registry.ts), and what happens to those events when that node dies:
 *
 *   send to node 1 ──(node 1 killed)──► dead claim found (checked every second) ──► shared journal
 *        │                                                                              │
 *        └───────────── application claimed on node 2 ◄──────────────────────────────────┘
 *                       (from either state: send to node 2)
 *
 * Events sent to a node that died and it had not stored are sent again (event-origins.ts): to the
 * shared journal when the death is noticed, or to the node that claims the application next when
 * that comes first.
 */
import type { ApplicationClaimStore, ApplicationJournalStore, JournalLimits } from '../store/types.js';
import type { Logger } from '../util/logger.js';
import type { Application, ApplicationEvent, ApplicationSink } from './application.js';
import { RecentSends } from './event-origins.js';
import { UnservedJournal } from './unserved-journal.js';

/** How often a node looks for applications whose serving node died. */
const DEAD_CLAIM_CHECK_MS = 1000;

interface Journaling {
  readonly store: ApplicationJournalStore;
  readonly unserved: UnservedJournal;
  readonly recent: RecentSends;
}

export class StandInRouting {
  readonly #claims: ApplicationClaimStore;
  readonly #log: Logger;
  #journaling: Journaling | undefined;
  /** The node each stand-in sends to (store node ids). */
  readonly #target = new Map<string, string>();
  /** Stand-ins whose application's node died: their events go to the shared journal. */
  readonly #orphaned = new Set<string>();
  /** Stand-ins holding their events while a handover is decided (sendTo, #journalUnserved). */
  readonly #holding = new Set<string>();

  constructor(claims: ApplicationClaimStore, log: Logger) {
    this.#claims = claims;
    this.#log = log;
  }

  /** Keeps the events of applications whose node died in the shared journal, checking every DEAD_CLAIM_CHECK_MS. */
  useJournal(store: ApplicationJournalStore, limits: () => JournalLimits, standIns: () => ReadonlyMap<string, Application>): void {
    this.#journaling = { store, unserved: new UnservedJournal(store, limits, this.#log), recent: new RecentSends() };
    setInterval(() => this.#checkServingNodes(standIns()), DEAD_CLAIM_CHECK_MS).unref();
  }

  /** The application is served here now. */
  forget(name: string): void {
    this.#target.delete(name);
    this.#orphaned.delete(name);
  }

  /** Points a stand-in at the node serving its application now. */
  sendTo(name: string, app: Application, node: string): void {
    const previous = this.#target.get(name);
    // Looked up again (a channel entering the application): a handover under way stays in charge.
    if (previous === node && this.#holding.has(name)) return;
    this.#target.set(name, node);
    const wasOrphaned = this.#orphaned.delete(name);
    const sink = this.#sinkTo(name, node);
    const journaling = this.#journaling;
    const nodeAlive = this.#claims.nodeAlive?.bind(this.#claims);
    if (previous === undefined || previous === node || wasOrphaned || !journaling || !nodeAlive) {
      app.sink = sink;
      return;
    }
    // The previous node may have died with events it had not stored: those go to the new node first.
    const { store, recent } = journaling;
    const held: ApplicationEvent[] = [];
    const holding: ApplicationSink = (event) => held.push(event);
    app.sink = holding;
    this.#holding.add(name);
    nodeAlive(previous)
      .then(async (alive) => (alive ? [] : recent.takeAfter(name, await store.lastOrigin(name, recent.run))))
      .catch((err: unknown) => {
        this.#log.warn({ err, application: name }, 'could not tell which events the previous node stored');
        return [];
      })
      .then((missed) => {
        for (const event of missed) sink(event as unknown as ApplicationEvent);
        if (app.sink === holding) app.sink = sink;
        this.#holding.delete(name);
        for (const event of held) app.sink(event);
        if (missed.length > 0)
          this.#log.info({ application: name, missed: missed.length }, 'events the dead node had not stored sent again');
      });
  }

  #sinkTo(name: string, node: string): ApplicationSink {
    const claims = this.#claims;
    const recent = this.#journaling?.recent;
    return (event) => {
      const sent = event as unknown as Record<string, unknown>;
      claims.sendEvent(node, name, recent ? recent.tag(name, sent) : sent);
    };
  }

  #checkServingNodes(standIns: ReadonlyMap<string, Application>): void {
    const deadClaim = this.#claims.deadClaim?.bind(this.#claims);
    if (!deadClaim) return;
    for (const [name, app] of standIns) {
      if (this.#orphaned.has(name)) continue;
      const target = this.#target.get(name);
      deadClaim(name).then(
        (dead) => {
          if (!dead || standIns.get(name) !== app || this.#orphaned.has(name) || this.#target.get(name) !== target) return;
          this.#orphaned.add(name);
          this.#journalUnserved(name, app);
        },
        (err: unknown) => this.#log.warn({ err, application: name }, 'could not check the node serving the application'),
      );
    }
  }

  /**
   * From now on the stand-in's events go to the shared journal. First, what it sent to the dead node
   * that the journal does not have; events raised meanwhile wait behind them.
   */
  #journalUnserved(name: string, app: Application): void {
    const journaling = this.#journaling;
    if (!journaling) return;
    const { store, unserved, recent } = journaling;
    const held: ApplicationEvent[] = [];
    const holding: ApplicationSink = (event) => held.push(event);
    app.sink = holding;
    this.#holding.add(name);
    store
      .lastOrigin(name, recent.run)
      .catch((err: unknown) => {
        this.#log.warn({ err, application: name }, 'could not tell which events the dead node stored; they are written again');
        return 0;
      })
      .then((stored) => {
        const sink = unserved.sinkFor(name);
        const missed = recent.takeAfter(name, stored);
        for (const event of missed) sink(event as unknown as ApplicationEvent);
        // Claimed again meanwhile: the held events go where the stand-in's events go now.
        if (app.sink === holding && this.#orphaned.has(name)) app.sink = sink;
        this.#holding.delete(name);
        for (const event of held) app.sink(event);
        this.#log.info(
          { application: name, missed: missed.length },
          'the node serving the application is gone: its events are journaled until it reconnects',
        );
      });
  }
}
