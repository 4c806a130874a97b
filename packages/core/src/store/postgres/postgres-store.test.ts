import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import { ApplicationRegistry } from '../../apps/application-registry.js';
import { ChannelRegistry } from '../../channels/channel-registry.js';
import { DeviceStateRegistry } from '../../device-states/device-state-registry.js';
import { EndpointRegistry } from '../../endpoints/endpoint-registry.js';
import { EventBus } from '../../events/event-bus.js';
import { MailboxRegistry } from '../../mailboxes/mailbox-registry.js';
import type { MailboxSnapshot } from '../../model/snapshots.js';
import { silentLogger } from '../../util/logger.js';
import { SchemaVersionError } from '../migrations.js';
import { storeContract } from '../store-contract.js';
import { openPostgresStore, type PostgresStore, redactUrl } from './postgres-store.js';
import { POSTGRES_MIGRATIONS } from './schema.js';
import { postgresUnavailableReason, startTemporaryPostgres, type TemporaryPostgres } from './temporary-postgres.js';

const unavailable = postgresUnavailableReason();
let server: TemporaryPostgres | undefined;
let databases = 0;

before(async () => {
  if (!unavailable) server = await startTemporaryPostgres();
});
after(() => server?.stop());

/** A URL of a new, empty database on the throwaway server. */
async function freshDatabase(): Promise<string> {
  if (!server) throw new Error('no PostgreSQL server');
  const name = `store_test_${++databases}`;
  const admin = new pg.Client({ connectionString: server.url });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  return server.urlFor(name);
}

/** Polls `check` until it holds (the other node hears of a change when it commits). */
async function eventually(check: () => boolean, what: string, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

if (unavailable) {
  describe('store contract (postgres)', () => {
    it('runs against a throwaway PostgreSQL server', { skip: unavailable }, () => {});
  });
} else {
  storeContract('postgres', () => ({
    async fresh() {
      const url = await freshDatabase();
      return { store: await openPostgresStore(url), reopen: () => openPostgresStore(url) };
    },
  }));

  describe('PostgreSQL store', () => {
    it('migrates once when several nodes open a new database at the same time', async () => {
      const url = await freshDatabase();
      const nodes = await Promise.all([openPostgresStore(url), openPostgresStore(url), openPostgresStore(url)]);
      const latest = POSTGRES_MIGRATIONS[POSTGRES_MIGRATIONS.length - 1].id;
      assert.deepEqual(
        nodes.map((n) => n.schemaVersion),
        [latest, latest, latest],
      );
      const check = new pg.Client({ connectionString: url });
      await check.connect();
      assert.equal((await check.query('SELECT count(*)::int AS n FROM schema_migrations')).rows[0].n, POSTGRES_MIGRATIONS.length);
      await check.end();
      await Promise.all(nodes.map((n) => n.close()));
    });

    it('refuses a database written by a newer version', async () => {
      const url = await freshDatabase();
      const newer = [...POSTGRES_MIGRATIONS, { id: 99, name: 'from the future', sql: 'CREATE TABLE future (x int)' }];
      await (await openPostgresStore(url, undefined, { migrations: newer })).close();
      await assert.rejects(openPostgresStore(url), (err: unknown) => err instanceof SchemaVersionError && err.databaseVersion === 99);
    });

    it('keeps every node’s in-memory AstDB, voicemail and queue copies coherent through NOTIFY', async () => {
      const url = await freshDatabase();
      const a: PostgresStore = await openPostgresStore(url);
      const b: PostgresStore = await openPostgresStore(url);
      a.astdb.put('cidname', '100', 'Alice');
      b.astdb.put('cidname', '200', 'Bob');
      await eventually(
        () => b.astdb.get('cidname', '100') === 'Alice' && a.astdb.get('cidname', '200') === 'Bob',
        'both entries on both nodes',
      );
      a.astdb.deleteTree('cidname');
      await eventually(() => b.astdb.list('cidname').length === 0, 'the tree deletion on node b');

      b.voicemail.setPassword('default', '1001', '9999');
      b.queues.saveMember({
        queue: 'q',
        interface: 'PJSIP/x',
        name: 'x',
        stateInterface: 'PJSIP/x',
        penalty: 0,
        paused: false,
        pausedReason: '',
      });
      await eventually(() => a.voicemail.password('default', '1001') === '9999', 'the password on node a');
      await eventually(() => a.queues.members().length === 1, 'the member on node a');

      // Racing writes to one key converge on the value committed last, on every node.
      for (let i = 0; i < 50; i++) {
        a.astdb.put('race', 'k', `a${i}`);
        b.astdb.put('race', 'k', `b${i}`);
      }
      await Promise.all([a.flush(), b.flush()]);
      const check = new pg.Client({ connectionString: url });
      await check.connect();
      const committed = (await check.query<{ value: string }>("SELECT value FROM astdb WHERE family = 'race'")).rows[0].value;
      await check.end();
      await eventually(
        () => a.astdb.get('race', 'k') === committed && b.astdb.get('race', 'k') === committed,
        `both nodes on ${committed}`,
      );
      await Promise.all([a.close(), b.close()]);
    });

    it('device states and mailbox counts set on one node are announced on the others', async () => {
      const url = await freshDatabase();
      const node = (store: PostgresStore) => {
        const bus = new EventBus();
        const lamps: string[] = [];
        bus.subscribe((e) => {
          if (e.type === 'DeviceStateChanged') lamps.push(`${e.device_state.name}=${e.device_state.state}`);
        });
        const channels = new ChannelRegistry(bus, silentLogger);
        const devices = new DeviceStateRegistry({
          bus,
          channels,
          endpoints: new EndpointRegistry(bus, channels),
          store: store.deviceStates,
        });
        const mailboxes = new MailboxRegistry({ store: store.mailboxes, enabled: () => true, log: silentLogger });
        const waiting: [string, MailboxSnapshot | undefined][] = [];
        mailboxes.onMailboxChanged((name, mailbox) => waiting.push([name, mailbox]));
        return { store, devices, mailboxes, lamps, waiting };
      };
      const one = node(await openPostgresStore(url));
      const two = node(await openPostgresStore(url));
      await two.devices.update('App:door', 'INUSE');
      await two.mailboxes.update('1001@default', 1, 2);
      await eventually(() => one.lamps.length === 1 && one.waiting.length === 1, 'the changes on node one');
      assert.deepEqual(one.lamps, ['App:door=INUSE']);
      assert.deepEqual(one.waiting, [['1001@default', { name: '1001@default', old_messages: 1, new_messages: 2 }]]);
      await two.devices.delete('App:door');
      await two.mailboxes.delete('1001@default');
      await eventually(() => one.lamps.length === 2 && one.waiting.length === 2, 'the deletions on node one');
      assert.deepEqual(one.lamps, ['App:door=INUSE', 'App:door=UNKNOWN']);
      assert.deepEqual(one.waiting[1], ['1001@default', undefined]);
      // A node is not told of its own changes twice.
      assert.deepEqual(two.lamps, ['App:door=INUSE', 'App:door=UNKNOWN']);
      assert.equal(two.waiting.length, 2);
      await Promise.all([one.store.close(), two.store.close()]);
    });

    it('keeps application names unique across nodes: the later registration replaces the earlier', async () => {
      const url = await freshDatabase();
      const node = (store: PostgresStore) => {
        const registry = new ApplicationRegistry(new EventBus(), silentLogger);
        registry.shareNamesThrough(store.applicationClaims);
        const told: string[] = [];
        return { store, registry, told, sink: (e: { type: string }) => told.push(e.type) };
      };
      const one = node(await openPostgresStore(url));
      const two = node(await openPostgresStore(url));
      one.registry.register('dialer', one.sink);
      await new Promise((resolve) => setTimeout(resolve, 200));
      two.registry.register('dialer', two.sink);
      await eventually(() => one.told.includes('ApplicationReplaced'), 'ApplicationReplaced on node one');
      assert.equal(one.registry.get('dialer'), undefined);
      assert.ok(two.registry.get('dialer'));
      assert.deepEqual(two.told, []);
      // Taking it back works the same way round.
      one.registry.register('dialer', one.sink);
      await eventually(() => two.told.includes('ApplicationReplaced'), 'ApplicationReplaced on node two');
      assert.ok(one.registry.get('dialer'));
      await Promise.all([one.store.close(), two.store.close()]);
    });

    it('a value too large for one notification reaches the other node by a reload', async () => {
      const url = await freshDatabase();
      const a = await openPostgresStore(url);
      const b = await openPostgresStore(url);
      const big = 'x'.repeat(20_000);
      a.astdb.put('big', 'k', big);
      await eventually(() => b.astdb.get('big', 'k') === big, 'the large value on node b');
      await Promise.all([a.close(), b.close()]);
    });

    it('reports a server that cannot be reached, without the password', async () => {
      assert.equal(redactUrl('postgres://u:secret@127.0.0.1:1/db'), 'postgres://u@127.0.0.1:1/db');
      await assert.rejects(openPostgresStore('postgres://u:secret@127.0.0.1:1/db'), /ECONNREFUSED/);
    });
  });
}
