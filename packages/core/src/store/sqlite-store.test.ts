import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { MIGRATIONS, SchemaVersionError } from './migrations.js';
import { DATABASE_FILE, openStore } from './sqlite-store.js';
import { storeContract } from './store-contract.js';

const LATEST = MIGRATIONS[MIGRATIONS.length - 1].id;

const created: string[] = [];
after(() => {
  for (const dir of created) rmSync(dir, { recursive: true, force: true });
});

/** A data directory that does not exist yet (openStore creates it). */
function dataDir(): string {
  const root = mkdtempSync(join(tmpdir(), 'switchboard-data-'));
  created.push(root);
  return join(root, 'nested', 'var');
}

describe('openStore', () => {
  it('creates the data directory and opens the database in WAL mode with the schema', async () => {
    const dir = dataDir();
    const store = openStore(dir);
    assert.ok(existsSync(join(dir, DATABASE_FILE)));
    assert.equal(store.journalMode, 'wal');
    assert.equal(store.schemaVersion, MIGRATIONS[MIGRATIONS.length - 1].id);
    await store.close();

    const raw = new Database(join(dir, DATABASE_FILE), { readonly: true });
    const tables = raw
      .prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
      .all()
      .map((r) => r.name);
    assert.deepEqual(tables, [
      'astdb',
      'cdr',
      'config_objects',
      'contacts',
      'device_states',
      'global_variables',
      'mailboxes',
      'queue_log',
      'queue_members',
      'schema_migrations',
      'voicemail_messages',
      'voicemail_passwords',
    ]);
    raw.close();
  });

  it('keeps data across a reopen and does not migrate twice', async () => {
    const dir = dataDir();
    const first = openStore(dir);
    await first.globals.set('OPERATOR', '1001');
    await first.deviceStates.set('App:alice', 'INUSE', 1000);
    await first.mailboxes.set({ name: '1001@default', oldMessages: 2, newMessages: 1 });
    await first.close();

    const second = openStore(dir);
    assert.equal(await second.globals.get('OPERATOR'), '1001');
    assert.deepEqual(await second.deviceStates.get('App:alice'), { name: 'App:alice', state: 'INUSE', updatedAt: 1000 });
    assert.deepEqual(await second.mailboxes.all(), [{ name: '1001@default', oldMessages: 2, newMessages: 1 }]);
    assert.equal(second.schemaVersion, LATEST);
    await second.close();
  });

  it('applies new migrations in order, once', async () => {
    const dir = dataDir();
    await openStore(dir).close();
    const extended = [
      ...MIGRATIONS,
      { id: LATEST + 1, name: 'add notes', sql: 'CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL)' },
      { id: LATEST + 2, name: 'seed notes', sql: "INSERT INTO notes (body) VALUES ('hello')" },
    ];
    const upgraded = openStore(dir, undefined, { migrations: extended });
    assert.equal(upgraded.schemaVersion, LATEST + 2);
    await upgraded.close();
    await openStore(dir, undefined, { migrations: extended }).close();
    const raw = new Database(join(dir, DATABASE_FILE), { readonly: true });
    assert.equal(raw.prepare<[], { n: number }>('SELECT COUNT(*) AS n FROM notes').get()?.n, 1);
    raw.close();
  });

  it('rolls back every pending migration when one fails', async () => {
    const dir = dataDir();
    const broken = [...MIGRATIONS, { id: LATEST + 1, name: 'broken', sql: 'CREATE TABLE ok (x); THIS IS NOT SQL' }];
    assert.throws(() => openStore(dir, undefined, { migrations: broken }));
    const store = openStore(dir);
    assert.equal(store.schemaVersion, LATEST);
    await store.close();
    const raw = new Database(join(dir, DATABASE_FILE), { readonly: true });
    assert.equal(raw.prepare("SELECT name FROM sqlite_master WHERE name = 'ok'").get(), undefined);
    raw.close();
  });

  it('refuses a database written by a newer version', async () => {
    const dir = dataDir();
    const newer = [...MIGRATIONS, { id: LATEST + 1, name: 'from the future', sql: 'CREATE TABLE future (x)' }];
    await openStore(dir, undefined, { migrations: newer }).close();
    assert.throws(
      () => openStore(dir),
      (err: unknown) => {
        assert.ok(err instanceof SchemaVersionError);
        assert.equal(err.databaseVersion, LATEST + 1);
        assert.equal(err.knownVersion, LATEST);
        assert.match(err.message, new RegExp(`schema version ${LATEST + 1} is newer than this Switchboard knows \\(${LATEST}\\)`));
        return true;
      },
    );
  });
});

storeContract('sqlite', () => ({
  async fresh() {
    const dir = dataDir();
    return { store: openStore(dir), reopen: async () => openStore(dir) };
  },
}));
