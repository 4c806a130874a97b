/**
 * The cluster's object directory and its node-to-node application events, on one ordered
 * connection so that a directory row always commits before the events sent after it:
 *
 *   node 3: ChannelCreated ──► INSERT cluster_objects ─┐ one connection, one queue,
 *           AppStart (app on node 1) ──► pg_notify ────┘ committed in this order
 *   node 1: NOTIFY switchboard_events ──► the app's connection; its REST request on the channel
 *           finds the row (api forwards it to node 3)
 *
 * NOTIFY payloads must stay under 8000 bytes: a larger event is stored in cluster_events and only
 * its row id is notified; the receiving node reads and deletes the row. Received events are handled
 * one after another (a stored one is read before the next is handed on), so each sender's order
 * is kept.
 */
import type pg from 'pg';
import type { Logger } from '../../util/logger.js';
import type { ClusterDirectory, ClusterObjectKind } from '../types.js';

export const EVENTS_CHANNEL = 'switchboard_events';

/** Stored events older than this are dropped when a node starts (sweep). */
const STALE_EVENT_MS = 60_000;

/** Statements sent in one round trip at most. */
const MAX_BATCH = 200;

/** Below PostgreSQL's 8000-byte NOTIFY limit, with room for the envelope. */
const MAX_INLINE_PAYLOAD = 7800;

/** `n` sender, `t` recipient (store node ids), `a` application, then the event inline or a row id. */
interface EventEnvelope {
  n: string;
  t: string;
  a: string;
  e?: Record<string, unknown>;
  r?: number;
}

export type ClusterEventListener = (application: string, event: Record<string, unknown>) => void;

export class PostgresClusterBus implements ClusterDirectory {
  readonly #connection: pg.ClientBase;
  readonly #pool: Pick<pg.Pool, 'query'>;
  readonly #nodeId: string;
  readonly #log: Logger;
  readonly #listeners = new Set<ClusterEventListener>();
  /** Statements waiting to be sent, with their values written in (see #send). */
  readonly #pending: string[] = [];
  #draining: Promise<void> | undefined;
  #receiveQueue: Promise<void> = Promise.resolve();

  constructor(connection: pg.ClientBase, pool: Pick<pg.Pool, 'query'>, nodeId: string, log: Logger) {
    this.#connection = connection;
    this.#pool = pool;
    this.#nodeId = nodeId;
    this.#log = log;
  }

  record(kind: ClusterObjectKind, id: string, node: string): void {
    this.#send(
      'INSERT INTO cluster_objects (kind, id, node) VALUES ($1, $2, $3) ON CONFLICT (kind, id) DO UPDATE SET node = excluded.node',
      [kind, id, node],
    );
  }

  forget(kind: ClusterObjectKind, id: string): void {
    this.#send('DELETE FROM cluster_objects WHERE kind = $1 AND id = $2', [kind, id]);
  }

  async ownerOf(kind: ClusterObjectKind, id: string): Promise<string | undefined> {
    const { rows } = await this.#pool.query<{ node: string }>('SELECT node FROM cluster_objects WHERE kind = $1 AND id = $2', [kind, id]);
    return rows[0]?.node;
  }

  /** Queued like record/forget, so it never removes a row this run has written since. */
  forgetNode(node: string): Promise<void> {
    this.#send('DELETE FROM cluster_objects WHERE node = $1', [node]);
    return this.flush();
  }

  /** Queues an event for the node `to`; see the header for events too large to notify. */
  sendEvent(to: string, application: string, event: Readonly<Record<string, unknown>>): void {
    const inline = JSON.stringify({ n: this.#nodeId, t: to, a: application, e: event } satisfies EventEnvelope);
    if (Buffer.byteLength(inline) <= MAX_INLINE_PAYLOAD) {
      this.#send(`SELECT pg_notify('${EVENTS_CHANNEL}', $1)`, [inline]);
      return;
    }
    this.#send(
      `WITH stored AS (INSERT INTO cluster_events (payload, created_at) VALUES ($1, $2) RETURNING id)
       SELECT pg_notify('${EVENTS_CHANNEL}', json_build_object('n', $3::text, 't', $4::text, 'a', $5::text, 'r', id)::text) FROM stored`,
      [JSON.stringify(event), Date.now(), this.#nodeId, to, application],
    );
  }

  onEvent(listener: ClusterEventListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Handles one notification of EVENTS_CHANNEL (those for other nodes are ignored). */
  receive(payload: string | undefined): void {
    let envelope: EventEnvelope;
    try {
      envelope = JSON.parse(payload ?? '') as EventEnvelope;
    } catch {
      this.#log.warn('ignored a cluster event notification that is not JSON');
      return;
    }
    if (envelope.t !== this.#nodeId || typeof envelope.a !== 'string') return;
    this.#receiveQueue = this.#receiveQueue.then(async () => {
      try {
        const event = envelope.e ?? (await this.#takeStored(envelope.r));
        if (event) for (const listener of this.#listeners) listener(envelope.a, event);
      } catch (err) {
        this.#log.error({ err, application: envelope.a }, 'cluster event delivery failed');
      }
    });
  }

  /**
   * Deletes stored events nobody took: their node was gone before reading them. An event older than
   * this is of no use to anyone (its channel has long moved on).
   */
  async sweep(now = Date.now()): Promise<void> {
    await this.#pool.query('DELETE FROM cluster_events WHERE created_at < $1', [now - STALE_EVENT_MS]);
  }

  /** Resolves when everything queued so far has been sent. */
  async flush(): Promise<void> {
    while (this.#draining) await this.#draining;
  }

  async #takeStored(id: number | undefined): Promise<Record<string, unknown> | undefined> {
    if (typeof id !== 'number') return undefined;
    const { rows } = await this.#pool.query<{ payload: string }>('DELETE FROM cluster_events WHERE id = $1 RETURNING payload', [id]);
    const payload = rows[0]?.payload;
    return payload === undefined ? undefined : (JSON.parse(payload) as Record<string, unknown>);
  }

  /**
   * Queues one statement. What piles up while a batch is on its way leaves as the next batch: one
   * round trip and one transaction (a multi-statement query), in queue order, so the directory's
   * writes cost a fraction of a transaction each under load. Values are written in as literals
   * (escapeLiteral) since a multi-statement query takes no parameters.
   */
  #send(sql: string, params: readonly (string | number)[]): void {
    const connection = this.#connection;
    this.#pending.push(
      sql.replace(/\$(\d+)/g, (_, n: string) => {
        const value = params[Number(n) - 1];
        return typeof value === 'number' ? String(value) : connection.escapeLiteral(String(value));
      }),
    );
    this.#drain();
  }

  #drain(): void {
    if (this.#draining) return;
    this.#draining = (async () => {
      while (this.#pending.length > 0) {
        const batch = this.#pending.splice(0, MAX_BATCH);
        try {
          await this.#connection.query(batch.join(';\n'));
        } catch (err) {
          this.#log.error({ err, statements: batch.length }, 'cluster bus write failed');
        }
      }
    })().finally(() => {
      this.#draining = undefined;
      // Queued between the loop's last check and here.
      if (this.#pending.length > 0) this.#drain();
    });
  }
}
