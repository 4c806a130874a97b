/**
 * The SQLite store: one database file, `<dataDir>/switchboard.db`, in WAL mode so readers never
 * wait for the writer. `synchronous = NORMAL` is durable across process crashes in WAL mode and
 * only risks the last transactions on power loss, which is the usual trade for a PBX.
 */
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { type Logger, silentLogger } from '../util/logger.js';
import { SqliteAstDb } from './astdb.js';
import { MIGRATIONS, type Migration, migrate } from './migrations.js';
import {
  SqliteCdr,
  SqliteConfigObjects,
  SqliteContacts,
  SqliteDeviceStates,
  SqliteGlobalVariables,
  SqliteMailboxes,
} from './sqlite-repositories.js';
import { SqliteQueues } from './sqlite-queues.js';
import { SqliteVoicemail } from './sqlite-voicemail.js';
import type { Store } from './types.js';

export const DATABASE_FILE = 'switchboard.db';

/** How long a statement waits for another connection's write lock before failing. */
const BUSY_TIMEOUT_MS = 5000;

export interface OpenStoreOptions {
  /** Replaces the built-in migration list (tests of the migration runner). */
  migrations?: readonly Migration[];
}

export class SqliteStore implements Store {
  readonly path: string;
  readonly astdb: SqliteAstDb;
  readonly globals: SqliteGlobalVariables;
  readonly deviceStates: SqliteDeviceStates;
  readonly mailboxes: SqliteMailboxes;
  readonly contacts: SqliteContacts;
  readonly cdr: SqliteCdr;
  readonly configObjects: SqliteConfigObjects;
  readonly voicemail: SqliteVoicemail;
  readonly queues: SqliteQueues;
  readonly #db: Database.Database;
  readonly #log: Logger;
  #closed = false;

  /** Takes an open, migrated database; use openStore(). */
  constructor(db: Database.Database, path: string, log: Logger) {
    this.#db = db;
    this.path = path;
    this.#log = log;
    this.astdb = new SqliteAstDb(db);
    this.globals = new SqliteGlobalVariables(db);
    this.deviceStates = new SqliteDeviceStates(db);
    this.mailboxes = new SqliteMailboxes(db);
    this.contacts = new SqliteContacts(db);
    this.cdr = new SqliteCdr(db);
    this.configObjects = new SqliteConfigObjects(db);
    this.voicemail = new SqliteVoicemail(db);
    this.queues = new SqliteQueues(db);
  }

  /** `journal_mode` as SQLite reports it (`wal` once open). */
  get journalMode(): string {
    return String(this.#db.pragma('journal_mode', { simple: true }));
  }

  get schemaVersion(): number {
    const row = this.#db.prepare<[], { version: number | null }>('SELECT MAX(id) AS version FROM schema_migrations').get();
    return row?.version ?? 0;
  }

  close(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.#closed = true;
    try {
      // Fold the WAL back into the main file so the directory holds one self-contained database.
      this.#db.pragma('wal_checkpoint(TRUNCATE)');
    } catch (err) {
      this.#log.warn({ err }, 'WAL checkpoint at close failed');
    }
    this.#db.close();
    this.#log.debug({ path: this.path }, 'store closed');
    return Promise.resolve();
  }
}

/** Opens (creating if needed) `<dataDir>/switchboard.db` and applies pending migrations. */
export function openStore(dataDir: string, log: Logger = silentLogger, options: OpenStoreOptions = {}): SqliteStore {
  const storeLog = log.child({ module: 'switchboard:core:store' });
  const dir = resolve(dataDir);
  mkdirSync(dir, { recursive: true });
  const path = join(dir, DATABASE_FILE);
  const db = new Database(path, { timeout: BUSY_TIMEOUT_MS });
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    const { from, to } = migrate(db, path, storeLog, options.migrations ?? MIGRATIONS);
    storeLog.info({ path, schemaVersion: to, upgradedFrom: from === to ? undefined : from }, 'store opened');
  } catch (err) {
    db.close();
    throw err;
  }
  return new SqliteStore(db, path, storeLog);
}
