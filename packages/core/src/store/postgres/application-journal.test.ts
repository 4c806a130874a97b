import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { SharedSubscription } from '../types.js';
import { openPostgresStore, type PostgresStore } from './postgres-store.js';
import { postgresUnavailableReason, startTemporaryPostgres, type TemporaryPostgres } from './temporary-postgres.js';

const unavailable = postgresUnavailableReason();
let server: TemporaryPostgres | undefined;

before(async () => {
  if (!unavailable) server = await startTemporaryPostgres();
});
after(() => server?.stop());

const LIMITS = { windowMs: 60_000, maxEvents: 10_000 };
const event = (n: number) => ({ type: 'ChannelVarset', timestamp: new Date(0).toISOString(), value: String(n) });

async function eventually(check: () => boolean, what: string, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('the shared application journal and subscriptions of the PostgreSQL store', { skip: unavailable }, () => {
  const stores: PostgresStore[] = [];
  after(() => Promise.all(stores.map((s) => s.close())));
  const open = async () => {
    const store = await openPostgresStore(server?.url ?? '');
    stores.push(store);
    return store;
  };

  it('numbers batches of two writers one after the other and reads back what it keeps', async () => {
    const [a, b] = [await open(), await open()];
    assert.equal(await a.applicationJournal.append('numbered', [event(1), event(2), event(3)], LIMITS), 1);
    assert.equal(await b.applicationJournal.append('numbered', [event(4)], LIMITS), 4);
    assert.equal(await a.applicationJournal.append('numbered', [event(5), event(6)], LIMITS), 5);
    const slice = await b.applicationJournal.since('numbered', 2);
    assert.deepEqual(
      slice.entries.map((e) => [e.sequence, e.event.value]),
      [
        [3, '3'],
        [4, '4'],
        [5, '5'],
        [6, '6'],
      ],
    );
    assert.equal(slice.last, 6);
    assert.equal(slice.droppedThrough, 0);
    assert.deepEqual(await a.applicationJournal.since('nobody', 0), { entries: [], droppedThrough: 0, last: 0 });
  });

  it("gives the journal's head to any node, and nothing for an application it has no journal of", async () => {
    const [a, b] = [await open(), await open()];
    assert.equal(await b.applicationJournal.head('headed'), undefined);
    await a.applicationJournal.append('headed', [event(1), event(2)], LIMITS);
    assert.equal(await b.applicationJournal.head('headed'), 2);
    // Dropping what is beyond the limits leaves the head where it was.
    await a.applicationJournal.append('headed', [event(3)], { windowMs: 60_000, maxEvents: 1 });
    assert.equal(await b.applicationJournal.head('headed'), 3);
    await a.applicationJournal.drop('headed');
    assert.equal(await b.applicationJournal.head('headed'), undefined);
  });

  it('drops what is beyond resume_max_events and older than resume_window, and tells how far', async () => {
    const store = await open();
    await store.applicationJournal.append('counted', [1, 2, 3, 4, 5].map(event), { windowMs: 60_000, maxEvents: 3 });
    await store.applicationJournal.append('counted', [event(6)], { windowMs: 60_000, maxEvents: 3 });
    const counted = await store.applicationJournal.since('counted', 0);
    // The statement that stores 6 keeps the three newest with it.
    assert.deepEqual(
      counted.entries.map((e) => e.sequence),
      [4, 5, 6],
    );
    assert.equal(counted.droppedThrough, 3);

    await store.applicationJournal.append('timed', [event(1), event(2)], LIMITS);
    await new Promise((resolve) => setTimeout(resolve, 30));
    await store.applicationJournal.append('timed', [event(3)], { windowMs: 10, maxEvents: 100 });
    const timed = await store.applicationJournal.since('timed', 0);
    assert.deepEqual(
      timed.entries.map((e) => e.sequence),
      [3],
    );
    assert.equal(timed.droppedThrough, 2);

    await store.applicationJournal.drop('timed');
    assert.equal((await store.applicationJournal.since('timed', 0)).last, 0);
  });

  it('counts subscriptions, tells every node the new count and drops them with their source or node', async () => {
    const [a, b] = [await open(), await open()];
    const heard: SharedSubscription[] = [];
    b.applicationSubscriptions.onChange((s) => heard.push(s));
    a.applicationSubscriptions.change('app', 'channel', 'C1', 1, 'node2');
    a.applicationSubscriptions.change('app', 'channel', 'C1', 1, 'node2');
    a.applicationSubscriptions.change('app', 'endpoint', 'SIP/alice', 1);
    a.applicationSubscriptions.setAll('app', true);
    await eventually(() => heard.length === 4, 'four notifications');
    assert.deepEqual(
      heard.map((s) => [s.kind, s.source, s.count]),
      [
        ['channel', 'C1', 1],
        ['channel', 'C1', 2],
        ['endpoint', 'SIP/alice', 1],
        ['all', '', 1],
      ],
    );
    a.applicationSubscriptions.change('app', 'channel', 'C1', -1);
    await eventually(() => heard.length === 5, 'the count taken off');
    assert.equal(heard[4]?.count, 1);
    assert.equal((await b.applicationSubscriptions.load()).length, 3);

    a.applicationSubscriptions.dropSourcesOf('node2');
    await eventually(() => heard.length === 6, 'the source node dropped');
    assert.deepEqual(heard[5], { application: 'app', kind: 'channel', source: 'C1', count: 0, sourceGone: true });
    a.applicationSubscriptions.change('app', 'bridge', 'B1', 1, 'node3');
    a.applicationSubscriptions.dropSource('bridge', 'B1');
    await eventually(() => heard.length === 8, 'the bridge ended');
    assert.deepEqual(heard[7], { application: 'app', kind: 'bridge', source: 'B1', count: 0, sourceGone: true });
    a.applicationSubscriptions.dropApplication('app');
    await eventually(() => heard.length === 10, 'the application dropped');
    assert.deepEqual(
      heard.slice(8).map((s) => [s.count, s.sourceGone]),
      [
        [0, undefined],
        [0, undefined],
      ],
      'the application is gone, not its sources',
    );
    assert.deepEqual(await b.applicationSubscriptions.load(), []);
  });
});
