import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import Database from 'better-sqlite3';
import { MIGRATIONS, SchemaVersionError } from './migrations.js';
import { DATABASE_FILE, openStore } from './sqlite-store.js';
import type { CdrRecord } from './types.js';

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

const CDR: CdrRecord = {
  start: new Date('2025-03-17T08:32:35.709Z'),
  answer: new Date('2025-03-17T08:32:37.000Z'),
  end: new Date('2025-03-17T08:33:37.000Z'),
  duration: 61,
  billsec: 60,
  src: '1001',
  dst: '200',
  dcontext: 'from-internal',
  channel: 'SIP/alice-00000001',
  dstchannel: '',
  lastapp: 'Hangup',
  lastdata: '',
  disposition: 'ANSWERED',
  amaflags: 'DOCUMENTATION',
  accountcode: '',
  uniqueid: '1742200355.1',
  linkedid: '1742200355.1',
  userfield: '',
};

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

  it('closes idempotently', async () => {
    const store = openStore(dataDir());
    await store.close();
    await store.close();
    await assert.rejects(store.globals.get('x'));
  });
});

describe('repositories', () => {
  it('globals: set, overwrite, list and delete', async () => {
    const store = openStore(dataDir());
    assert.equal(await store.globals.get('A'), undefined);
    await store.globals.set('B', '2');
    await store.globals.set('A', '1');
    await store.globals.set('A', 'one');
    assert.deepEqual(await store.globals.all(), [
      { name: 'A', value: 'one' },
      { name: 'B', value: '2' },
    ]);
    assert.equal(await store.globals.delete('A'), true);
    assert.equal(await store.globals.delete('A'), false);
    assert.deepEqual(await store.globals.all(), [{ name: 'B', value: '2' }]);
    await store.close();
  });

  it('device states and mailboxes: upsert and delete', async () => {
    const store = openStore(dataDir());
    const before = Date.now();
    await store.deviceStates.set('App:a', 'RINGING');
    const state = await store.deviceStates.get('App:a');
    assert.equal(state?.state, 'RINGING');
    assert.ok((state?.updatedAt ?? 0) >= before);
    await store.deviceStates.set('App:a', 'NOT_INUSE', 5);
    assert.deepEqual(await store.deviceStates.all(), [{ name: 'App:a', state: 'NOT_INUSE', updatedAt: 5 }]);
    assert.equal(await store.deviceStates.delete('App:a'), true);
    assert.equal(await store.deviceStates.get('App:a'), undefined);

    await store.mailboxes.set({ name: 'm', oldMessages: 0, newMessages: 3 });
    await store.mailboxes.set({ name: 'm', oldMessages: 3, newMessages: 0 });
    assert.deepEqual(await store.mailboxes.get('m'), { name: 'm', oldMessages: 3, newMessages: 0 });
    assert.equal(await store.mailboxes.delete('m'), true);
    assert.deepEqual(await store.mailboxes.all(), []);
    await store.close();
  });

  it('contacts: put, list by aor, replace, expire', async () => {
    const store = openStore(dataDir());
    const full = {
      aor: 'alice',
      uri: 'sip:alice@192.0.2.5:5060',
      expiresAt: 2000,
      path: '<sip:edge.example;lr>',
      userAgent: 'Phone/1.0',
      viaAddress: '192.0.2.5',
      viaPort: 5060,
      callId: 'abc@192.0.2.5',
      cseq: 7,
      endpoint: 'alice',
    };
    await store.contacts.put(full);
    await store.contacts.put({ aor: 'alice', uri: 'sip:alice@198.51.100.1', expiresAt: 1000 });
    await store.contacts.put({ aor: 'bob', uri: 'sip:bob@198.51.100.2', expiresAt: 3000 });
    assert.deepEqual(await store.contacts.get('alice', full.uri), full);
    assert.deepEqual(
      (await store.contacts.listByAor('alice')).map((c) => c.uri),
      ['sip:alice@192.0.2.5:5060', 'sip:alice@198.51.100.1'],
    );
    assert.equal(await store.contacts.deleteExpired(1000), 1);
    await store.contacts.replaceAor('alice', [{ aor: 'alice', uri: 'sip:alice@203.0.113.9', expiresAt: 9000 }]);
    assert.deepEqual(
      (await store.contacts.all()).map((c) => `${c.aor} ${c.uri}`),
      ['alice sip:alice@203.0.113.9', 'bob sip:bob@198.51.100.2'],
    );
    await assert.rejects(store.contacts.replaceAor('alice', [{ aor: 'bob', uri: 'sip:x@y', expiresAt: 1 }]));
    assert.equal(await store.contacts.delete('bob', 'sip:bob@198.51.100.2'), true);
    await store.close();
  });

  it('cdr: insert and read back', async () => {
    const store = openStore(dataDir());
    const id1 = await store.cdr.insert(CDR);
    const { answer: _unanswered, ...noAnswer } = CDR;
    const id2 = await store.cdr.insert({ ...noAnswer, disposition: 'NO ANSWER', billsec: 0 });
    assert.ok(id2 > id1);
    const [latest, earlier] = await store.cdr.recent(10);
    assert.deepEqual(earlier, { ...CDR, clid: '', peeraccount: '', sequence: 0, id: id1 });
    assert.equal(latest.id, id2);
    const batch = await store.cdr.insertMany?.([
      { ...CDR, clid: '"A" <1>', peeraccount: 'p', sequence: 7 },
      { ...CDR, sequence: 8 },
    ]);
    assert.equal(batch, 2);
    const [newest, before] = await store.cdr.recent(2);
    assert.deepEqual([before.clid, before.peeraccount, before.sequence, newest.sequence], ['"A" <1>', 'p', 7, 8]);
    assert.equal(latest.answer, undefined);
    assert.equal(latest.disposition, 'NO ANSWER');
    await store.close();
  });

  it('config objects: put, replace, list and delete', async () => {
    const store = openStore(dataDir());
    const alice = {
      configClass: 'res_pjsip',
      objectType: 'endpoint',
      id: 'alice',
      fields: [
        { attribute: 'allow', value: 'ulaw' },
        { attribute: 'allow', value: 'alaw' },
      ],
    };
    await store.configObjects.put(alice);
    await store.configObjects.put({ configClass: 'res_pjsip', objectType: 'aor', id: 'alice', fields: [] });
    await store.configObjects.put({ configClass: 'other', objectType: 'x', id: '1', fields: [{ attribute: 'a', value: 'b' }] });
    assert.deepEqual(await store.configObjects.get('res_pjsip', 'endpoint', 'alice'), alice);
    await store.configObjects.put({ ...alice, fields: [{ attribute: 'context', value: 'c' }] });
    assert.deepEqual((await store.configObjects.get('res_pjsip', 'endpoint', 'alice'))?.fields, [{ attribute: 'context', value: 'c' }]);
    assert.equal((await store.configObjects.list()).length, 3);
    assert.deepEqual(
      (await store.configObjects.list('res_pjsip')).map((o) => o.objectType),
      ['aor', 'endpoint'],
    );
    assert.deepEqual(
      (await store.configObjects.list('res_pjsip', 'aor')).map((o) => o.id),
      ['alice'],
    );
    assert.equal(await store.configObjects.delete('res_pjsip', 'aor', 'alice'), true);
    assert.equal(await store.configObjects.delete('res_pjsip', 'aor', 'alice'), false);
    assert.equal(await store.configObjects.get('res_pjsip', 'aor', 'alice'), undefined);
    await store.close();
  });
});
