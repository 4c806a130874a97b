/**
 * Node heartbeats in the shared store, and the clearing of what a dead node leaves behind.
 *
 *   every node, every beat (a third of node_timeout, at most 3 s):
 *     UPDATE cluster_nodes SET heartbeat_at = now()            its own row
 *     DELETE FROM cluster_nodes WHERE heartbeat_at < now() - node_timeout RETURNING …
 *       └─ in the same transaction: its cluster_objects rows, its application_claims,
 *          and pg_notify('switchboard_nodes', {name, store}) for every node to drop the rest
 *          (legs of bridges pointing at it, its endpoint device states)
 *
 * Several survivors may reap at once: the DELETE … RETURNING takes the row's lock, so the one that
 * deletes it clears and announces, and the others find nothing left. Times are the database's
 * (now()), so the nodes' clocks need not agree.
 *
 * A node that starts again under its name before it was found dead replaces its row: the earlier
 * run (another store id) is announced down then, and cannot own anything of this run.
 */
import type { Logger } from '../../util/logger.js';
import type { NodeDown, NodeLiveness } from '../types.js';
import { inTransaction, type Queryable } from './transaction.js';

export const NODES_CHANNEL = 'switchboard_nodes';

/** A heartbeat goes out this often at most, and three times per timeout at least. */
const MAX_BEAT_MS = 3000;

const REAP = `WITH dead AS (
    DELETE FROM cluster_nodes WHERE heartbeat_at < now() - make_interval(secs => $1::double precision / 1000) AND name <> $2
    RETURNING name, store_id
  ), objects AS (
    DELETE FROM cluster_objects o USING dead WHERE o.node = dead.name
  ), claims AS (
    DELETE FROM application_claims c USING dead WHERE c.node = dead.store_id
  )
  SELECT name, store_id, pg_notify('${NODES_CHANNEL}', json_build_object('name', name, 'store', store_id)::text) FROM dead`;

export class PostgresNodeLiveness implements NodeLiveness {
  readonly #pool: Queryable;
  readonly #storeId: string;
  readonly #log: Logger;
  readonly #listeners = new Set<(node: NodeDown) => void>();
  #name: string | undefined;
  #timeoutMs = 0;
  #timer: NodeJS.Timeout | undefined;
  #beating: Promise<void> | undefined;
  #stopped = false;

  constructor(pool: Queryable, storeId: string, log: Logger) {
    this.#pool = pool;
    this.#storeId = storeId;
    this.#log = log;
  }

  async start(name: string, timeoutMs: number): Promise<void> {
    if (this.#name !== undefined) throw new Error('node liveness started twice');
    this.#name = name;
    this.#timeoutMs = timeoutMs;
    await this.#replaceEarlierRun(name);
    if (this.#stopped) return;
    const interval = Math.min(MAX_BEAT_MS, Math.floor(timeoutMs / 3));
    this.#timer = setInterval(() => this.#beat(), interval);
    this.#timer.unref();
  }

  onNodeDown(listener: (node: NodeDown) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Handles one notification of NODES_CHANNEL. */
  receive(payload: string | undefined): void {
    let parsed: { name?: unknown; store?: unknown };
    try {
      parsed = JSON.parse(payload ?? '') as { name?: unknown; store?: unknown };
    } catch {
      this.#log.warn('ignored a node notification that is not JSON');
      return;
    }
    if (typeof parsed.name !== 'string' || typeof parsed.store !== 'string' || parsed.store === this.#storeId) return;
    const down: NodeDown = { name: parsed.name, storeId: parsed.store };
    this.#log.warn({ node: down.name }, 'cluster node is gone; dropping what it held');
    for (const listener of this.#listeners) {
      try {
        listener(down);
      } catch (err) {
        this.#log.error({ err, node: down.name }, 'node-down listener failed');
      }
    }
  }

  /** Stops the heartbeat and removes this node's row (a node shut down on purpose is not dead). */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearInterval(this.#timer);
    await this.#beating;
    if (this.#name === undefined) return;
    await this.#pool
      .query('DELETE FROM cluster_nodes WHERE name = $1 AND store_id = $2', [this.#name, this.#storeId])
      .catch((err: unknown) => this.#log.warn({ err }, 'could not remove this node from cluster_nodes'));
  }

  /** One beat, then a look for dead nodes; never two at once (a slow database skips beats). */
  #beat(): void {
    if (this.#beating || this.#stopped) return;
    this.#beating = (async () => {
      const name = this.#name as string;
      const { rowCount } = await this.#pool.query('UPDATE cluster_nodes SET heartbeat_at = now() WHERE name = $1 AND store_id = $2', [
        name,
        this.#storeId,
      ]);
      if (rowCount === 0) {
        // Found dead by the others (this process stalled past the timeout): they have dropped its
        // directory rows and the legs pointing at it. It carries on, visible again from now.
        this.#log.error({ node: name }, 'this node was taken for dead by the cluster; its earlier objects are unreachable');
        await this.#pool.query(
          `INSERT INTO cluster_nodes (name, store_id, heartbeat_at) VALUES ($1, $2, now())
           ON CONFLICT (name) DO UPDATE SET store_id = excluded.store_id, heartbeat_at = excluded.heartbeat_at`,
          [name, this.#storeId],
        );
      }
      const { rows } = await this.#pool.query<{ name: string }>(REAP, [this.#timeoutMs, name]);
      for (const row of rows) this.#log.warn({ node: row.name }, 'cluster node missed its heartbeats; cleared its objects and claims');
    })()
      .catch((err: unknown) => this.#log.error({ err }, 'cluster heartbeat failed'))
      .finally(() => {
        this.#beating = undefined;
      });
  }

  /** Takes this node's row; a row of an earlier run (another store id) is announced down. */
  async #replaceEarlierRun(name: string): Promise<void> {
    await inTransaction(this.#pool, async (client) => {
      const { rows } = await client.query<{ store_id: string }>('DELETE FROM cluster_nodes WHERE name = $1 RETURNING store_id', [name]);
      for (const earlier of rows) {
        await client.query('DELETE FROM application_claims WHERE node = $1', [earlier.store_id]);
        await client.query(`SELECT pg_notify('${NODES_CHANNEL}', json_build_object('name', $1::text, 'store', $2::text)::text)`, [
          name,
          earlier.store_id,
        ]);
      }
      await client.query('INSERT INTO cluster_nodes (name, store_id, heartbeat_at) VALUES ($1, $2, now())', [name, this.#storeId]);
    });
  }
}
