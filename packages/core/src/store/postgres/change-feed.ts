/**
 * Keeps the in-memory copies of the synchronous tables (AstDB, voicemail metadata, queue
 * members and log) of every node coherent through PostgreSQL LISTEN/NOTIFY.
 *
 * Those interfaces are synchronous because the dialplan reads them inline (`${DB(f/k)}`), so a
 * node answers reads from memory and writes through: the write changes memory at once and is
 * queued, in order, on one connection; each queued statement carries its own `pg_notify`, so the
 * change reaches the other nodes exactly when it commits, and in commit order.
 *
 *   node A: put ──► memory ──► queue ──► [INSERT … ; pg_notify] ──► commit
 *                                                                  │ (commit order)
 *   every node (A too) ◄── NOTIFY switchboard_store ◄──────────────┘
 *
 * Every node applies every notification in commit order, its own included, so all copies converge
 * on the last committed value. While a node still has its own writes to a key in flight it does
 * not apply others' changes to that key (its own later write wins in the database too); if it
 * skipped one, it reloads the key from the database once its writes are through.
 */
import type pg from 'pg';
import type { Logger } from '../../util/logger.js';

export const STORE_CHANNEL = 'switchboard_store';

/** PostgreSQL refuses NOTIFY payloads of 8000 bytes or more; larger changes are sent as a reload. */
const MAX_PAYLOAD = 7900;

export interface Change {
  /** Which table's memory copy applies it. */
  table: string;
  /** Writes to one key are ordered against each other; see the header. */
  key: string;
  [field: string]: unknown;
}

interface Envelope {
  /** The node instance that wrote it. */
  n: string;
  c: Change;
}

/** One memory copy: applies changes and can reload itself (or one key) from the database. */
export interface SyncedTable {
  readonly name: string;
  apply(change: Change, own: boolean): void;
  /**
   * Reads the rows of `key` (all rows when undefined) and returns what puts them in memory, so
   * the caller can drop the result if this node wrote the key meanwhile.
   */
  reload(db: pg.ClientBase, key?: string): Promise<() => void>;
}

export class ChangeFeed {
  readonly #writer: pg.ClientBase;
  readonly #nodeId: string;
  readonly #log: Logger;
  readonly #tables = new Map<string, SyncedTable>();
  /** Own writes queued or in flight, per key. */
  readonly #pending = new Map<string, number>();
  /** Keys with a foreign change skipped while own writes were pending. */
  readonly #stale = new Set<string>();
  #queue: Promise<void> = Promise.resolve();
  #failures = 0;

  constructor(writer: pg.ClientBase, nodeId: string, log: Logger) {
    this.#writer = writer;
    this.#nodeId = nodeId;
    this.#log = log;
  }

  register(table: SyncedTable): void {
    this.#tables.set(table.name, table);
  }

  /** Writes that failed since the store opened (each is logged; memory keeps the value). */
  get failures(): number {
    return this.#failures;
  }

  /**
   * Queues `statement` (an INSERT, UPDATE or DELETE with parameters `$1…$n`) and its
   * notification as one atomic statement. Memory must already hold the change.
   */
  write(statement: string, params: readonly unknown[], change: Change): void {
    let payload = JSON.stringify({ n: this.#nodeId, c: change } satisfies Envelope);
    if (Buffer.byteLength(payload) > MAX_PAYLOAD) {
      payload = JSON.stringify({ n: this.#nodeId, c: { table: change.table, key: change.key, reload: true } } satisfies Envelope);
    }
    const sql = `WITH written AS (${statement}) SELECT pg_notify('${STORE_CHANNEL}', $${params.length + 1})`;
    this.#pending.set(change.key, (this.#pending.get(change.key) ?? 0) + 1);
    this.#queue = this.#queue.then(async () => {
      try {
        await this.#writer.query(sql, [...params, payload]);
      } catch (err) {
        this.#failures++;
        this.#log.error({ err, table: change.table, key: change.key }, 'store write failed; this node keeps the value in memory only');
        // No notification will come for it: settle the count here.
        this.#settle(change.key);
      }
    });
  }

  /** Resolves when every queued write has been sent (and committed, or failed and logged). */
  flush(): Promise<void> {
    return this.#queue;
  }

  /** Handles one notification of STORE_CHANNEL. */
  receive(payload: string | undefined): void {
    let envelope: Envelope;
    try {
      envelope = JSON.parse(payload ?? '') as Envelope;
    } catch {
      this.#log.warn({ payload }, 'ignored a store notification that is not JSON');
      return;
    }
    const change = envelope.c;
    const table = this.#tables.get(change?.table);
    if (!table) return;
    const own = envelope.n === this.#nodeId;
    if (own) {
      this.#settle(change.key);
      return;
    }
    if ((this.#pending.get(change.key) ?? 0) > 0) {
      this.#stale.add(change.key);
      return;
    }
    if (change.reload === true) {
      this.#reload(table, change.key);
      return;
    }
    table.apply(change, false);
  }

  /** Reloads every table (at start, and after the notification connection was lost). */
  async reloadAll(): Promise<void> {
    for (const table of this.#tables.values()) (await table.reload(this.#writer))();
  }

  #settle(key: string): void {
    const left = (this.#pending.get(key) ?? 1) - 1;
    if (left > 0) {
      this.#pending.set(key, left);
      return;
    }
    this.#pending.delete(key);
    if (!this.#stale.delete(key)) return;
    const tableName = key.slice(0, key.indexOf(':'));
    const table = this.#tables.get(tableName);
    if (table) this.#reload(table, key);
  }

  #reload(table: SyncedTable, key: string): void {
    // Queued behind this node's writes, so it reads at least what this node wrote.
    this.#queue = this.#queue.then(async () => {
      if ((this.#pending.get(key) ?? 0) > 0) {
        this.#stale.add(key);
        return;
      }
      try {
        const apply = await table.reload(this.#writer, key);
        if ((this.#pending.get(key) ?? 0) > 0) this.#stale.add(key);
        else apply();
      } catch (err) {
        this.#log.error({ err, key }, 'store reload failed');
      }
    });
  }
}
