/**
 * The PostgreSQL store: the same interfaces as the SQLite one, for several nodes sharing one
 * database (`[store] backend = postgres` in switchboard.conf). Three kinds of connection:
 *
 *   pool (up to POOL_SIZE)  the asynchronous repositories: contacts, CDRs, device states, …
 *   writer (one)            the synchronous tables' write-through queue, in order (change-feed.ts)
 *   bus (one)               the object directory and events for other nodes' applications, in order (cluster-bus.ts)
 *   listener (one)          LISTEN switchboard_store: other nodes' changes to those tables;
 *                           LISTEN switchboard_state: their device state and mailbox changes;
 *                           LISTEN switchboard_events: events for this node's applications;
 *                           LISTEN switchboard_nodes: nodes found dead (node-liveness.ts);
 *                           LISTEN switchboard_subscriptions: applications' subscriptions (application-subscriptions.ts)
 */
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { type Logger, silentLogger } from '../../util/logger.js';
import type { Migration } from '../migrations.js';
import type { Store } from '../types.js';
import { PostgresApplicationClaims } from './application-claims.js';
import { PostgresApplicationJournal } from './application-journal.js';
import { PostgresApplicationSubscriptions, SUBSCRIPTIONS_CHANNEL } from './application-subscriptions.js';
import { ChangeFeed, STORE_CHANNEL } from './change-feed.js';
import { EVENTS_CHANNEL, PostgresClusterBus } from './cluster-bus.js';
import {
  PostgresCdr,
  PostgresConfigObjects,
  PostgresContacts,
  PostgresDeviceStates,
  PostgresGlobalVariables,
  PostgresMailboxes,
} from './postgres-repositories.js';
import { RemoteChanges, STATE_CHANNEL } from './remote-changes.js';
import { NODES_CHANNEL, PostgresNodeLiveness } from './node-liveness.js';
import { migratePostgres, POSTGRES_MIGRATIONS } from './schema.js';
import { SyncedAstDb } from './synced-astdb.js';
import { SyncedQueues } from './synced-queues.js';
import { SyncedVoicemail } from './synced-voicemail.js';

const POOL_SIZE = 8;
/** How long to wait before opening the notification connection again after losing it. */
const RELISTEN_DELAY_MS = 1000;

export interface OpenPostgresStoreOptions {
  /** Replaces the built-in migration list (tests of the migration runner). */
  migrations?: readonly Migration[];
}

/** `postgres://user:secret@host/db` → `postgres://user@host/db`, for logs and errors. */
export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    parsed.password = '';
    return parsed.toString();
  } catch {
    return '(unparsable url)';
  }
}

export class PostgresStore implements Store {
  readonly url: string;
  /** Tells this process's own notifications from other nodes'. */
  readonly nodeId = randomUUID();
  readonly pool: pg.Pool;
  readonly feed: ChangeFeed;
  /** Device state and mailbox changes of the other nodes. */
  readonly remoteChanges: RemoteChanges;
  readonly astdb: SyncedAstDb;
  readonly voicemail: SyncedVoicemail;
  readonly queues: SyncedQueues;
  readonly globals: PostgresGlobalVariables;
  readonly deviceStates: PostgresDeviceStates;
  readonly mailboxes: PostgresMailboxes;
  readonly contacts: PostgresContacts;
  readonly cdr: PostgresCdr;
  readonly configObjects: PostgresConfigObjects;
  readonly applicationClaims: PostgresApplicationClaims;
  readonly clusterDirectory: PostgresClusterBus;
  readonly nodeLiveness: PostgresNodeLiveness;
  readonly applicationSubscriptions: PostgresApplicationSubscriptions;
  readonly applicationJournal: PostgresApplicationJournal;
  readonly #writer: pg.Client;
  readonly #busConnection: pg.Client;
  #listener: pg.Client | undefined;
  readonly #log: Logger;
  #closed = false;
  #relistenTimer: NodeJS.Timeout | undefined;
  schemaVersion = 0;

  /** Use openPostgresStore(). */
  constructor(url: string, log: Logger) {
    this.url = url;
    this.#log = log;
    this.pool = new pg.Pool({ connectionString: url, max: POOL_SIZE });
    // An idle pooled connection that drops (server restart) must not take the process with it.
    this.pool.on('error', (err) => log.warn({ err }, 'idle store connection lost'));
    this.#writer = new pg.Client({ connectionString: url });
    this.#writer.on('error', (err) => log.error({ err }, 'store writer connection lost'));
    this.feed = new ChangeFeed(this.#writer, this.nodeId, log);
    this.astdb = new SyncedAstDb(this.feed);
    this.voicemail = new SyncedVoicemail(this.feed);
    this.queues = new SyncedQueues(this.feed);
    this.globals = new PostgresGlobalVariables(this.pool);
    this.remoteChanges = new RemoteChanges(this.nodeId, log);
    this.deviceStates = new PostgresDeviceStates(this.pool, this.remoteChanges);
    this.mailboxes = new PostgresMailboxes(this.pool, this.remoteChanges);
    this.contacts = new PostgresContacts(this.pool);
    this.cdr = new PostgresCdr(this.pool);
    this.configObjects = new PostgresConfigObjects(this.pool);
    this.#busConnection = new pg.Client({ connectionString: url });
    this.#busConnection.on('error', (err) => log.error({ err }, 'store cluster bus connection lost'));
    this.clusterDirectory = new PostgresClusterBus(this.#busConnection, this.pool, this.nodeId, log);
    this.applicationClaims = new PostgresApplicationClaims(this.pool, this.nodeId, this.remoteChanges, this.clusterDirectory, log);
    this.nodeLiveness = new PostgresNodeLiveness(this.pool, this.nodeId, log);
    this.applicationSubscriptions = new PostgresApplicationSubscriptions(this.pool, log);
    this.applicationJournal = new PostgresApplicationJournal(this.pool);
  }

  /** Connects, migrates, starts listening and loads the synchronous tables into memory. */
  async open(migrations: readonly Migration[]): Promise<void> {
    await this.#writer.connect();
    await this.#busConnection.connect();
    // Held while this node lives: a node killed outright loses it with its connection, so the others
    // can tell its application claims from live ones (application-claims.ts).
    await this.#busConnection.query('SELECT pg_advisory_lock(hashtextextended($1, 0))', [this.nodeId]);
    const { from, to } = await migratePostgres(this.#writer, redactUrl(this.url), this.#log, migrations);
    this.schemaVersion = to;
    await this.#listen();
    await this.clusterDirectory.sweep();
    this.#log.info({ url: redactUrl(this.url), schemaVersion: to, upgradedFrom: from === to ? undefined : from }, 'store opened');
  }

  /** Resolves when every write of the synchronous tables so far has committed (or failed). */
  flush(): Promise<void> {
    return this.feed.flush();
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    clearTimeout(this.#relistenTimer);
    await this.nodeLiveness.stop();
    await this.feed.flush();
    await this.clusterDirectory.flush();
    await this.applicationSubscriptions.flush();
    const listener = this.#listener;
    this.#listener = undefined;
    await listener?.end().catch(() => undefined);
    await this.#writer.end().catch(() => undefined);
    await this.#busConnection.end().catch(() => undefined);
    await this.pool.end();
    this.#log.debug({ url: redactUrl(this.url) }, 'store closed');
  }

  /**
   * LISTEN first, then load the tables: a change committed while loading is both in the load and
   * in a notification, and applying it twice leaves the same row.
   */
  async #listen(): Promise<void> {
    const listener = new pg.Client({ connectionString: this.url });
    const early: (string | undefined)[] = [];
    let loaded = false;
    listener.on('notification', (message) => {
      if (message.channel === STATE_CHANNEL) this.remoteChanges.receive(message.payload);
      if (message.channel === EVENTS_CHANNEL) this.clusterDirectory.receive(message.payload);
      if (message.channel === NODES_CHANNEL) this.nodeLiveness.receive(message.payload);
      if (message.channel === SUBSCRIPTIONS_CHANNEL) this.applicationSubscriptions.receive(message.payload);
      if (message.channel !== STORE_CHANNEL) return;
      if (loaded) this.feed.receive(message.payload);
      else early.push(message.payload);
    });
    listener.on('error', (err) => {
      if (this.#closed || this.#listener !== listener) return;
      this.#log.error({ err }, 'store notification connection lost; reconnecting');
      this.#listener = undefined;
      listener.end().catch(() => undefined);
      this.#relistenTimer = setTimeout(() => this.#relisten(), RELISTEN_DELAY_MS);
    });
    await listener.connect();
    await listener.query(`LISTEN ${STORE_CHANNEL}`);
    await listener.query(`LISTEN ${STATE_CHANNEL}`);
    await listener.query(`LISTEN ${EVENTS_CHANNEL}`);
    await listener.query(`LISTEN ${NODES_CHANNEL}`);
    await listener.query(`LISTEN ${SUBSCRIPTIONS_CHANNEL}`);
    this.#listener = listener;
    await this.feed.reloadAll();
    loaded = true;
    for (const payload of early.splice(0)) this.feed.receive(payload);
  }

  #relisten(): void {
    if (this.#closed) return;
    this.#listen().catch((err: unknown) => {
      this.#log.error({ err }, 'store notification connection failed; retrying');
      this.#relistenTimer = setTimeout(() => this.#relisten(), RELISTEN_DELAY_MS);
    });
  }
}

/** Connects to `url`, applies pending migrations and loads what is kept in memory. */
export async function openPostgresStore(
  url: string,
  log: Logger = silentLogger,
  options: OpenPostgresStoreOptions = {},
): Promise<PostgresStore> {
  const store = new PostgresStore(url, log.child({ module: 'switchboard:core:store' }));
  try {
    await store.open(options.migrations ?? POSTGRES_MIGRATIONS);
  } catch (err) {
    await store.close().catch(() => undefined);
    throw err;
  }
  return store;
}
