/**
 * Application subscriptions shared by the nodes of a cluster (ApplicationSubscriptionStore).
 *
 * Why the store and not the node serving the application: a subscription is state of the
 * application (it outlives the connection, and the application may reconnect to any node, in
 * particular after the node serving it died), and the nodes that must act on it are the owners of
 * the sources, which are other nodes. A table every node reads at start, with each write carrying a
 * `pg_notify` of the new count in the same statement, gives every node the same view in commit
 * order without a node having to be alive to answer for it.
 *
 *   node 1: POST /applications/app/subscription?eventSource=channel:C
 *     └─► UPDATE application_subscriptions count+1 ─► NOTIFY switchboard_subscriptions {app, channel, C, count}
 *   node 2 (owns C): its stand-in of `app` subscribes to C; C's events go to node 1 (cluster-bus.ts)
 *
 * Counts, not rows, are notified: two nodes changing one subscription at once commit one after the
 * other (the row is locked), and the last notification carries the final count.
 */
import type pg from 'pg';
import type { Logger } from '../../util/logger.js';
import type { ApplicationSubscriptionStore, SharedSubscription, SharedSubscriptionKind } from '../types.js';

export const SUBSCRIPTIONS_CHANNEL = 'switchboard_subscriptions';

const KINDS: ReadonlySet<string> = new Set<SharedSubscriptionKind>(['channel', 'bridge', 'endpoint', 'deviceState', 'all']);

/** Notifies the rows a statement returns (`application, kind, source, count`; `gone`: SharedSubscription.sourceGone). */
const notify = (gone: boolean) =>
  `SELECT pg_notify('${SUBSCRIPTIONS_CHANNEL}', json_build_object('a', application, 'k', kind, 's', source, 'c', count${gone ? ", 'g', true" : ''})::text)`;
const NOTIFY = notify(false);

const CHANGE = `WITH changed AS (
    INSERT INTO application_subscriptions (application, kind, source, count, source_node) VALUES ($1, $2, $3, $4, $5)
    ON CONFLICT (application, kind, source)
    DO UPDATE SET count = GREATEST(application_subscriptions.count + excluded.count, 0),
                  source_node = COALESCE(excluded.source_node, application_subscriptions.source_node)
    RETURNING application, kind, source, count
  )
  ${NOTIFY} FROM changed`;

const SET_ALL = `WITH changed AS (
    INSERT INTO application_subscriptions (application, kind, source, count) VALUES ($1, 'all', '', $2)
    ON CONFLICT (application, kind, source) DO UPDATE SET count = excluded.count
    RETURNING application, kind, source, count
  )
  ${NOTIFY} FROM changed`;

/** Deletes the rows matching `where` and notifies each at count 0 (`sourceGone`: because their source is). */
const dropWhere = (where: string, sourceGone: boolean) => `WITH gone AS (
    DELETE FROM application_subscriptions WHERE ${where} RETURNING application, kind, source, 0 AS count
  )
  ${notify(sourceGone)} FROM gone`;

export class PostgresApplicationSubscriptions implements ApplicationSubscriptionStore {
  readonly #db: Pick<pg.Pool, 'query'>;
  readonly #log: Logger;
  readonly #listeners = new Set<(subscription: SharedSubscription) => void>();
  /** This node's writes, one after another: a subscribe and the unsubscribe after it commit in that order. */
  #queue: Promise<void> = Promise.resolve();

  constructor(db: Pick<pg.Pool, 'query'>, log: Logger) {
    this.#db = db;
    this.#log = log;
  }

  change(application: string, kind: SharedSubscriptionKind, source: string, delta: number, sourceNode?: string): void {
    void this.#run(CHANGE, [application, kind, source, delta, sourceNode ?? null]);
    if (delta < 0) {
      void this.#run('DELETE FROM application_subscriptions WHERE application = $1 AND kind = $2 AND source = $3 AND count <= 0', [
        application,
        kind,
        source,
      ]);
    }
  }

  setAll(application: string, on: boolean): void {
    void this.#run(SET_ALL, [application, on ? 1 : 0]);
  }

  dropApplication(application: string): void {
    void this.#run(dropWhere('application = $1', false), [application]);
  }

  dropSource(kind: SharedSubscriptionKind, source: string): void {
    void this.#run(dropWhere('kind = $1 AND source = $2', true), [kind, source]);
  }

  dropSourcesOf(node: string): void {
    void this.#run(dropWhere('source_node = $1', true), [node]);
  }

  async load(): Promise<SharedSubscription[]> {
    const { rows } = await this.#db.query<SharedSubscription>(
      'SELECT application, kind, source, count FROM application_subscriptions WHERE count > 0',
    );
    return rows.filter((row) => KINDS.has(row.kind));
  }

  onChange(listener: (subscription: SharedSubscription) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Handles one notification of SUBSCRIPTIONS_CHANNEL. */
  receive(payload: string | undefined): void {
    let parsed: { a?: unknown; k?: unknown; s?: unknown; c?: unknown; g?: unknown };
    try {
      parsed = JSON.parse(payload ?? '') as typeof parsed;
    } catch {
      this.#log.warn('ignored a subscription notification that is not JSON');
      return;
    }
    const { a, k, s, c, g } = parsed;
    if (typeof a !== 'string' || typeof k !== 'string' || !KINDS.has(k) || typeof s !== 'string' || typeof c !== 'number') return;
    const subscription: SharedSubscription = { application: a, kind: k as SharedSubscriptionKind, source: s, count: c };
    if (g === true) subscription.sourceGone = true;
    for (const listener of this.#listeners) {
      try {
        listener(subscription);
      } catch (err) {
        this.#log.error({ err, subscription }, 'subscription change listener failed');
      }
    }
  }

  /** Resolves when every write queued so far has committed (or failed). */
  flush(): Promise<void> {
    return this.#queue;
  }

  #run(sql: string, params: unknown[]): Promise<void> {
    this.#queue = this.#queue.then(async () => {
      try {
        await this.#db.query(sql, params);
      } catch (err) {
        this.#log.error({ err, application: params[0] }, 'could not write an application subscription');
      }
    });
    return this.#queue;
  }
}
