/**
 * The AstDB: the original server's small persistent key/value database, keyed by (family, key).
 * The manager's DBGet/DBPut/DBDel/DBDelTree use it; the dialplan's DB() functions read and write
 * the same table. Family and key are case-sensitive, as in the original.
 */
import type { Database } from 'better-sqlite3';
import type { Migration } from './migrations.js';

export interface AstDbEntry {
  family: string;
  key: string;
  value: string;
}

export interface AstDbStore {
  get(family: string, key: string): Promise<string | undefined>;
  put(family: string, key: string, value: string): Promise<void>;
  /** True when something was deleted. */
  delete(family: string, key: string): Promise<boolean>;
  /** Deletes a whole family, or the keys of it under `keyPrefix/`; returns how many. */
  deleteTree(family: string, keyPrefix?: string): Promise<number>;
  /** Every entry of a family (all families when absent), ordered by family and key. */
  list(family?: string): Promise<AstDbEntry[]>;
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

function settle<T>(fn: () => T): Promise<T> {
  try {
    return Promise.resolve(fn());
  } catch (err) {
    return Promise.reject(err);
  }
}

export class SqliteAstDb implements AstDbStore {
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

  get(family: string, key: string): Promise<string | undefined> {
    return settle(() => this.#get.get(family, key)?.value);
  }

  put(family: string, key: string, value: string): Promise<void> {
    return settle(() => {
      this.#put.run(family, key, value);
    });
  }

  delete(family: string, key: string): Promise<boolean> {
    return settle(() => this.#delete.run(family, key).changes > 0);
  }

  deleteTree(family: string, keyPrefix?: string): Promise<number> {
    return settle(() =>
      keyPrefix === undefined || keyPrefix === ''
        ? this.#deleteFamily.run(family).changes
        : this.#deletePrefix.run(family, keyPrefix, likePrefix(keyPrefix)).changes,
    );
  }

  list(family?: string): Promise<AstDbEntry[]> {
    return settle(() => (family === undefined ? this.#listAll.all() : this.#listFamily.all(family)));
  }
}
