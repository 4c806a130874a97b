/**
 * The AstDB on PostgreSQL: answered from memory (the dialplan reads it inline), written through
 * the change feed. Writes to one family are ordered against each other (the feed's key is the
 * family), which also covers DBDelTree.
 */
import type pg from 'pg';
import { type AstDb, type AstDbEntry, MemoryAstDb } from '../astdb.js';
import type { Change, ChangeFeed, SyncedTable } from './change-feed.js';

const TABLE = 'astdb';
const familyKey = (family: string) => `${TABLE}:${family}`;

/** Escapes LIKE wildcards so a key prefix matches literally. */
const likePrefix = (prefix: string) => `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}/%`;

export class SyncedAstDb implements AstDb, SyncedTable {
  readonly name = TABLE;
  readonly #memory = new MemoryAstDb();
  readonly #feed: ChangeFeed;

  constructor(feed: ChangeFeed) {
    this.#feed = feed;
    feed.register(this);
  }

  get(family: string, key: string): string | undefined {
    return this.#memory.get(family, key);
  }

  list(family?: string): AstDbEntry[] {
    return this.#memory.list(family);
  }

  put(family: string, key: string, value: string): void {
    this.#memory.put(family, key, value);
    this.#feed.write(
      'INSERT INTO astdb (family, key, value) VALUES ($1, $2, $3) ON CONFLICT (family, key) DO UPDATE SET value = excluded.value',
      [family, key, value],
      { table: TABLE, key: familyKey(family), op: 'put', family, entry: key, value },
    );
  }

  delete(family: string, key: string): boolean {
    const deleted = this.#memory.delete(family, key);
    this.#feed.write('DELETE FROM astdb WHERE family = $1 AND key = $2', [family, key], {
      table: TABLE,
      key: familyKey(family),
      op: 'delete',
      family,
      entry: key,
    });
    return deleted;
  }

  deleteTree(family: string, keyPrefix?: string): number {
    const deleted = this.#memory.deleteTree(family, keyPrefix);
    const change = { table: TABLE, key: familyKey(family), op: 'tree', family, prefix: keyPrefix ?? '' };
    if (keyPrefix === undefined || keyPrefix === '') {
      this.#feed.write('DELETE FROM astdb WHERE family = $1', [family], change);
    } else {
      this.#feed.write(
        "DELETE FROM astdb WHERE family = $1 AND (key = $2 OR key LIKE $3 ESCAPE '\\')",
        [family, keyPrefix, likePrefix(keyPrefix)],
        change,
      );
    }
    return deleted;
  }

  apply(change: Change): void {
    const family = String(change.family);
    if (change.op === 'put') this.#memory.put(family, String(change.entry), String(change.value));
    else if (change.op === 'delete') this.#memory.delete(family, String(change.entry));
    else if (change.op === 'tree') this.#memory.deleteTree(family, String(change.prefix));
  }

  async reload(db: pg.ClientBase, key?: string): Promise<() => void> {
    const family = key?.slice(TABLE.length + 1);
    const { rows } =
      family === undefined
        ? await db.query<AstDbEntry>('SELECT family, key, value FROM astdb')
        : await db.query<AstDbEntry>('SELECT family, key, value FROM astdb WHERE family = $1', [family]);
    return () => {
      if (family === undefined) for (const entry of this.#memory.list()) this.#memory.delete(entry.family, entry.key);
      else this.#memory.deleteTree(family);
      for (const row of rows) this.#memory.put(row.family, row.key, row.value);
    };
  }
}
