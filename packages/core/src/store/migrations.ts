/**
 * Versioned schema changes. Each migration is an ordered entry (id + SQL) that never changes once
 * released: a schema change is a new entry at the end. `schema_migrations` records which ran.
 * All pending migrations run in one transaction, so a failed upgrade leaves the database as it was.
 */
import type { Database } from 'better-sqlite3';
import type { Logger } from '../util/logger.js';

export interface Migration {
  /** Strictly increasing, starting at 1. */
  id: number;
  name: string;
  sql: string;
}

/** The database was written by a newer Switchboard (or a different program): refuse to touch it. */
export class SchemaVersionError extends Error {
  readonly databaseVersion: number;
  readonly knownVersion: number;
  constructor(path: string, databaseVersion: number, knownVersion: number, reason: string) {
    super(`${path}: ${reason}. Run the Switchboard version that wrote it, or point --data at another directory.`);
    this.name = 'SchemaVersionError';
    this.databaseVersion = databaseVersion;
    this.knownVersion = knownVersion;
  }
}

export const MIGRATIONS: readonly Migration[] = [
  {
    id: 1,
    name: 'initial schema',
    sql: `
      CREATE TABLE global_variables (
        name  TEXT PRIMARY KEY NOT NULL,
        value TEXT NOT NULL
      );
      CREATE TABLE device_states (
        name       TEXT PRIMARY KEY NOT NULL,
        state      TEXT NOT NULL,
        updated_at INTEGER NOT NULL
      );
      CREATE TABLE mailboxes (
        name         TEXT PRIMARY KEY NOT NULL,
        old_messages INTEGER NOT NULL DEFAULT 0,
        new_messages INTEGER NOT NULL DEFAULT 0
      );
      CREATE TABLE contacts (
        aor         TEXT NOT NULL,
        uri         TEXT NOT NULL,
        expires_at  INTEGER NOT NULL,
        path        TEXT,
        user_agent  TEXT,
        via_address TEXT,
        via_port    INTEGER,
        call_id     TEXT,
        cseq        INTEGER,
        endpoint    TEXT,
        PRIMARY KEY (aor, uri)
      );
      CREATE INDEX contacts_expires_at ON contacts (expires_at);
      CREATE TABLE config_objects (
        config_class TEXT NOT NULL,
        object_type  TEXT NOT NULL,
        id           TEXT NOT NULL,
        fields_json  TEXT NOT NULL,
        PRIMARY KEY (config_class, object_type, id)
      );
      CREATE TABLE cdr (
        id          INTEGER PRIMARY KEY,
        start       TEXT NOT NULL,
        answer      TEXT,
        "end"       TEXT NOT NULL,
        duration    INTEGER NOT NULL,
        billsec     INTEGER NOT NULL,
        src         TEXT NOT NULL,
        dst         TEXT NOT NULL,
        dcontext    TEXT NOT NULL,
        channel     TEXT NOT NULL,
        dstchannel  TEXT NOT NULL,
        lastapp     TEXT NOT NULL,
        lastdata    TEXT NOT NULL,
        disposition TEXT NOT NULL,
        amaflags    TEXT NOT NULL,
        accountcode TEXT NOT NULL,
        uniqueid    TEXT NOT NULL,
        linkedid    TEXT NOT NULL,
        userfield   TEXT NOT NULL
      );
      CREATE INDEX cdr_start ON cdr (start);
    `,
  },
];

/** Brings the database up to the latest migration; returns the version before and after. */
export function migrate(
  db: Database,
  path: string,
  log: Logger,
  migrations: readonly Migration[] = MIGRATIONS,
): { from: number; to: number } {
  checkOrdered(migrations);
  const known = migrations.length === 0 ? 0 : migrations[migrations.length - 1].id;

  const run = db.transaction(() => {
    db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
      id         INTEGER PRIMARY KEY,
      name       TEXT NOT NULL,
      applied_at TEXT NOT NULL
    )`);
    const applied = db
      .prepare<[], { id: number }>('SELECT id FROM schema_migrations ORDER BY id')
      .all()
      .map((row) => row.id);
    const current = applied.length === 0 ? 0 : applied[applied.length - 1];
    if (current > known) {
      throw new SchemaVersionError(
        path,
        current,
        known,
        `database schema version ${current} is newer than this Switchboard knows (${known})`,
      );
    }
    const knownIds = new Set(migrations.map((m) => m.id));
    const foreign = applied.find((id) => !knownIds.has(id));
    if (foreign !== undefined) {
      throw new SchemaVersionError(path, current, known, `database has migration ${foreign}, which this Switchboard does not know`);
    }

    const done = new Set(applied);
    const record = db.prepare<[number, string, string]>('INSERT INTO schema_migrations (id, name, applied_at) VALUES (?, ?, ?)');
    for (const migration of migrations) {
      if (done.has(migration.id)) continue;
      db.exec(migration.sql);
      record.run(migration.id, migration.name, new Date().toISOString());
      log.info({ migration: migration.id, name: migration.name }, 'applied database migration');
    }
    return { from: current, to: known };
  });
  // IMMEDIATE takes the write lock up front, so two processes opening one database cannot both migrate.
  return run.immediate();
}

function checkOrdered(migrations: readonly Migration[]): void {
  migrations.forEach((migration, index) => {
    const previous = index === 0 ? 0 : migrations[index - 1].id;
    if (!Number.isInteger(migration.id) || migration.id <= previous) {
      throw new Error(`migration ids must increase: ${migration.id} follows ${previous}`);
    }
  });
}
