/**
 * The original's AstDB: a persistent (family, key) → value store, read and written by the
 * dialplan's DB(), DB_EXISTS() and DB_DELETE() (and by whatever else speaks AstDB). The table is
 * created here if missing, so it does not depend on the migration list:
 *
 *   astdb (family TEXT, key TEXT, value TEXT, PRIMARY KEY (family, key))
 *
 * Reads are synchronous (one indexed lookup), because the dialplan expands `${DB(f/k)}` while
 * evaluating an argument.
 */
import type { Database } from 'better-sqlite3';

export interface AstDbEntry {
  family: string;
  key: string;
  value: string;
}

export interface AstDb {
  get(family: string, key: string): string | undefined;
  put(family: string, key: string, value: string): void;
  /** Returns whether the key existed. */
  delete(family: string, key: string): boolean;
  /** Every entry of a family (or all), ordered by family and key. */
  list(family?: string): AstDbEntry[];
}

export const ASTDB_SCHEMA = `CREATE TABLE IF NOT EXISTS astdb (
  family TEXT NOT NULL,
  key    TEXT NOT NULL,
  value  TEXT NOT NULL,
  PRIMARY KEY (family, key)
)`;

export class SqliteAstDb implements AstDb {
  readonly #get;
  readonly #put;
  readonly #delete;
  readonly #listFamily;
  readonly #listAll;

  constructor(db: Database) {
    db.exec(ASTDB_SCHEMA);
    this.#get = db.prepare<[string, string], { value: string }>('SELECT value FROM astdb WHERE family = ? AND key = ?');
    this.#put = db.prepare<[string, string, string]>(
      'INSERT INTO astdb (family, key, value) VALUES (?, ?, ?) ON CONFLICT (family, key) DO UPDATE SET value = excluded.value',
    );
    this.#delete = db.prepare<[string, string]>('DELETE FROM astdb WHERE family = ? AND key = ?');
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

  list(family?: string): AstDbEntry[] {
    return [...this.#entries.values()]
      .filter((entry) => family === undefined || entry.family === family)
      .sort((a, b) => (a.family === b.family ? a.key.localeCompare(b.key) : a.family.localeCompare(b.family)));
  }
}
