/**
 * The AstDB: the original server's small persistent key/value database, keyed by (family, key).
 * The dialplan's DB(), DB_EXISTS() and DB_DELETE() and the manager's DBGet/DBPut/DBDel/DBDelTree
 * read and write the same table. Family and key are case-sensitive, as in the original.
 *
 * The interface is synchronous: the dialplan expands `${DB(f/k)}` while it evaluates an argument,
 * and with SQLite each operation is one indexed statement.
 */
import type { Database } from 'better-sqlite3';
import type { Migration } from './migrations.js';

export interface AstDbEntry {
  family: string;
  key: string;
  value: string;
}

export interface AstDb {
  get(family: string, key: string): string | undefined;
  put(family: string, key: string, value: string): void;
  /** True when something was deleted. */
  delete(family: string, key: string): boolean;
  /** Deletes a whole family, or the keys of it under `keyPrefix/`; returns how many. */
  deleteTree(family: string, keyPrefix?: string): number;
  /** Every entry of a family (all families when absent), ordered by family and key. */
  list(family?: string): AstDbEntry[];
}

export const ASTDB_MIGRATION: Migration = {
  id: 2,
  name: 'astdb key/value table',
  sql: `
    CREATE TABLE astdb (
      family TEXT NOT NULL,
      key    TEXT NOT NULL,
      value  TEXT NOT NULL,
      PRIMARY KEY (family, key)
    );
  `,
};

/** Escapes LIKE wildcards so a key prefix matches literally. */
function likePrefix(prefix: string): string {
  return `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}/%`;
}

export class SqliteAstDb implements AstDb {
  readonly #get;
  readonly #put;
  readonly #delete;
  readonly #deleteFamily;
  readonly #deletePrefix;
  readonly #listFamily;
  readonly #listAll;

  constructor(db: Database) {
    this.#get = db.prepare<[string, string], { value: string }>('SELECT value FROM astdb WHERE family = ? AND key = ?');
    this.#put = db.prepare<[string, string, string]>(
      'INSERT INTO astdb (family, key, value) VALUES (?, ?, ?) ON CONFLICT (family, key) DO UPDATE SET value = excluded.value',
    );
    this.#delete = db.prepare<[string, string]>('DELETE FROM astdb WHERE family = ? AND key = ?');
    this.#deleteFamily = db.prepare<[string]>('DELETE FROM astdb WHERE family = ?');
    this.#deletePrefix = db.prepare<[string, string, string]>("DELETE FROM astdb WHERE family = ? AND (key = ? OR key LIKE ? ESCAPE '\\')");
    this.#listFamily = db.prepare<[string], AstDbEntry>('SELECT family, key, value FROM astdb WHERE family = ? ORDER BY key');
    this.#listAll = db.prepare<[], AstDbEntry>('SELECT family, key, value FROM astdb ORDER BY family, key');
  }

  get(family: string, key: string): string | undefined {
    return this.#get.get(family, key)?.value;
  }

  put(family: string, key: string, value: string): void {
    this.#put.run(family, key, value);
  }

  delete(family: string, key: string): boolean {
    return this.#delete.run(family, key).changes > 0;
  }

  deleteTree(family: string, keyPrefix?: string): number {
    return keyPrefix === undefined || keyPrefix === ''
      ? this.#deleteFamily.run(family).changes
      : this.#deletePrefix.run(family, keyPrefix, likePrefix(keyPrefix)).changes;
  }

  list(family?: string): AstDbEntry[] {
    return family === undefined ? this.#listAll.all() : this.#listFamily.all(family);
  }
}

/** An AstDB in memory, for configurations without a store (tests, embedded use). */
export class MemoryAstDb implements AstDb {
  readonly #entries = new Map<string, AstDbEntry>();

  get(family: string, key: string): string | undefined {
    return this.#entries.get(`${family}\u0000${key}`)?.value;
  }

  put(family: string, key: string, value: string): void {
    this.#entries.set(`${family}\u0000${key}`, { family, key, value });
  }

  delete(family: string, key: string): boolean {
    return this.#entries.delete(`${family}\u0000${key}`);
  }

  deleteTree(family: string, keyPrefix?: string): number {
    let deleted = 0;
    for (const [id, entry] of this.#entries) {
      if (entry.family !== family) continue;
      if (keyPrefix !== undefined && keyPrefix !== '' && entry.key !== keyPrefix && !entry.key.startsWith(`${keyPrefix}/`)) continue;
      this.#entries.delete(id);
      deleted++;
    }
    return deleted;
  }

  list(family?: string): AstDbEntry[] {
    return [...this.#entries.values()]
      .filter((entry) => family === undefined || entry.family === family)
      .sort((a, b) => (a.family === b.family ? a.key.localeCompare(b.key) : a.family.localeCompare(b.family)));
  }
}
