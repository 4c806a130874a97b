/**
 * The PostgreSQL schema, as numbered migrations (the same rules as the SQLite list in
 * ../migrations.ts: an entry never changes once released; a change is a new entry at the end).
 * Every node of a cluster runs the same list at start; an advisory lock makes the first one
 * migrate while the others wait, and all pending entries run in one transaction.
 */
import type pg from 'pg';
import type { Logger } from '../../util/logger.js';
import { type Migration, SchemaVersionError } from '../migrations.js';

export const POSTGRES_MIGRATIONS: readonly Migration[] = [
  {
    id: 1,
    name: 'initial schema',
    sql: `
      CREATE TABLE global_variables (
        name  TEXT PRIMARY KEY,
        value TEXT NOT NULL
      );
      CREATE TABLE device_states (
        name       TEXT PRIMARY KEY,
        state      TEXT NOT NULL,
        updated_at BIGINT NOT NULL
      );
      CREATE TABLE mailboxes (
        name         TEXT PRIMARY KEY,
        old_messages INTEGER NOT NULL DEFAULT 0,
        new_messages INTEGER NOT NULL DEFAULT 0
      );
      CREATE TABLE contacts (
        aor         TEXT NOT NULL,
        uri         TEXT NOT NULL,
        expires_at  BIGINT NOT NULL,
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
        fields_json  JSONB NOT NULL,
        PRIMARY KEY (config_class, object_type, id)
      );
      CREATE TABLE cdr (
        id          BIGSERIAL PRIMARY KEY,
        start       TIMESTAMPTZ NOT NULL,
        answer      TIMESTAMPTZ,
        "end"       TIMESTAMPTZ NOT NULL,
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
        userfield   TEXT NOT NULL,
        clid        TEXT NOT NULL DEFAULT '',
        peeraccount TEXT NOT NULL DEFAULT '',
        sequence    INTEGER NOT NULL DEFAULT 0
      );
      CREATE INDEX cdr_start ON cdr (start);
      CREATE TABLE astdb (
        family TEXT NOT NULL,
        key    TEXT NOT NULL,
        value  TEXT NOT NULL,
        PRIMARY KEY (family, key)
      );
      CREATE TABLE voicemail_messages (
        id        TEXT PRIMARY KEY,
        context   TEXT NOT NULL,
        mailbox   TEXT NOT NULL,
        folder    TEXT NOT NULL,
        recording TEXT NOT NULL,
        format    TEXT NOT NULL,
        caller_id TEXT NOT NULL,
        orig_time BIGINT NOT NULL,
        duration  INTEGER NOT NULL
      );
      CREATE INDEX voicemail_messages_box ON voicemail_messages (context, mailbox, folder);
      CREATE TABLE voicemail_passwords (
        context  TEXT NOT NULL,
        mailbox  TEXT NOT NULL,
        password TEXT NOT NULL,
        PRIMARY KEY (context, mailbox)
      );
      CREATE TABLE queue_members (
        queue           TEXT NOT NULL,
        interface       TEXT NOT NULL,
        name            TEXT NOT NULL,
        state_interface TEXT NOT NULL,
        penalty         INTEGER NOT NULL,
        paused          BOOLEAN NOT NULL,
        paused_reason   TEXT NOT NULL,
        PRIMARY KEY (queue, interface)
      );
      CREATE TABLE queue_log (
        id        BIGSERIAL PRIMARY KEY,
        time      BIGINT NOT NULL,
        callid    TEXT NOT NULL,
        queuename TEXT NOT NULL,
        agent     TEXT NOT NULL,
        event     TEXT NOT NULL,
        data      TEXT NOT NULL
      );
    `,
  },
  {
    id: 2,
    name: 'application names claimed by nodes',
    sql: `
      CREATE SEQUENCE application_claim_seq;
      CREATE TABLE application_claims (
        name TEXT PRIMARY KEY,
        node TEXT NOT NULL,
        seq  BIGINT NOT NULL
      );
    `,
  },
  {
    id: 3,
    name: 'cluster object directory and large cross-node events',
    sql: `
      CREATE TABLE cluster_objects (
        kind TEXT NOT NULL,
        id   TEXT NOT NULL,
        node TEXT NOT NULL,
        PRIMARY KEY (kind, id)
      );
      CREATE INDEX cluster_objects_node ON cluster_objects (node);
      CREATE TABLE cluster_events (
        id         BIGSERIAL PRIMARY KEY,
        payload    TEXT NOT NULL,
        created_at BIGINT NOT NULL
      );
    `,
  },
  {
    id: 4,
    name: 'cluster node heartbeats',
    sql: `
      CREATE TABLE cluster_nodes (
        name         TEXT PRIMARY KEY,
        store_id     TEXT NOT NULL,
        heartbeat_at TIMESTAMPTZ NOT NULL
      );
    `,
  },
  {
    id: 5,
    name: 'application subscriptions shared by the nodes',
    sql: `
      CREATE TABLE application_subscriptions (
        application TEXT NOT NULL,
        kind        TEXT NOT NULL,
        source      TEXT NOT NULL,
        count       INTEGER NOT NULL,
        source_node TEXT,
        PRIMARY KEY (application, kind, source)
      );
      CREATE INDEX application_subscriptions_source ON application_subscriptions (kind, source);
      CREATE INDEX application_subscriptions_source_node ON application_subscriptions (source_node);
    `,
  },
  {
    id: 6,
    name: 'application event journals shared by the nodes',
    sql: `
      CREATE TABLE application_journal_heads (
        application TEXT PRIMARY KEY,
        last_seq    BIGINT NOT NULL
      );
      CREATE TABLE application_journal (
        application TEXT NOT NULL,
        seq         BIGINT NOT NULL,
        at          BIGINT NOT NULL,
        event       TEXT NOT NULL,
        origin_run  TEXT,
        origin_seq  BIGINT,
        PRIMARY KEY (application, seq)
      );
      CREATE INDEX application_journal_origin ON application_journal (application, origin_run, origin_seq);
    `,
  },
];

/** Any number the nodes agree on: the key of the advisory lock held while migrating. */
const MIGRATION_LOCK_KEY = 0x5b0a4d;

/** Brings the database up to the latest migration; returns the version before and after. */
export async function migratePostgres(
  client: pg.ClientBase,
  where: string,
  log: Logger,
  migrations: readonly Migration[] = POSTGRES_MIGRATIONS,
): Promise<{ from: number; to: number }> {
  const known = migrations.length === 0 ? 0 : migrations[migrations.length - 1].id;
  await client.query('BEGIN');
  try {
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK_KEY]);
    await client.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
      id         INTEGER PRIMARY KEY,
      name       TEXT NOT NULL,
      applied_at TIMESTAMPTZ NOT NULL DEFAULT now()
    )`);
    const applied = (await client.query<{ id: number }>('SELECT id FROM schema_migrations ORDER BY id')).rows.map((r) => r.id);
    const current = applied.length === 0 ? 0 : applied[applied.length - 1];
    if (current > known) {
      throw new SchemaVersionError(
        where,
        current,
        known,
        `database schema version ${current} is newer than this Switchboard knows (${known})`,
      );
    }
    const done = new Set(applied);
    for (const migration of migrations) {
      if (done.has(migration.id)) continue;
      await client.query(migration.sql);
      await client.query('INSERT INTO schema_migrations (id, name) VALUES ($1, $2)', [migration.id, migration.name]);
      log.info({ migration: migration.id, name: migration.name }, 'applied database migration');
    }
    await client.query('COMMIT');
    return { from: current, to: known };
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  }
}
