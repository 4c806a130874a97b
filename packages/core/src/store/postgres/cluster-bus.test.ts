import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import type { ApplicationEvent } from '../../apps/application.js';
import { ApplicationRegistry } from '../../apps/application-registry.js';
import { ChannelRegistry } from '../../channels/channel-registry.js';
import { ObjectOwnership } from '../../cluster/object-ownership.js';
import { EventBus } from '../../events/event-bus.js';
import { sipChannelInit, RecordingTechnology } from '../../test-support.js';
import { silentLogger } from '../../util/logger.js';
import { openPostgresStore, type PostgresStore } from './postgres-store.js';
import { postgresUnavailableReason, startTemporaryPostgres, type TemporaryPostgres } from './temporary-postgres.js';

const unavailable = postgresUnavailableReason();
let server: TemporaryPostgres | undefined;
let databases = 0;

before(async () => {
  if (!unavailable) server = await startTemporaryPostgres();
});
after(() => server?.stop());

async function freshDatabase(): Promise<string> {
  if (!server) throw new Error('no PostgreSQL server');
  const name = `cluster_bus_test_${++databases}`;
  const admin = new pg.Client({ connectionString: server.url });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  return server.urlFor(name);
}

async function eventually(check: () => boolean, what: string, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const CLUSTER = {
  secret: 'a-secret-of-the-test-cluster',
  nodes: [
    { name: 'one', ari: 'http://127.0.0.1:1/ari' },
    { name: 'two', ari: 'http://127.0.0.1:2/ari' },
  ],
  nodeTimeoutMs: 10_000,
};

describe('the cluster bus of the PostgreSQL store', { skip: unavailable }, () => {
  const stores: PostgresStore[] = [];
  after(() => Promise.all(stores.map((s) => s.close())));
  const open = async (url: string) => {
    const store = await openPostgresStore(url);
    stores.push(store);
    return store;
  };

  it('records the owner of objects from their creation and end events; a restarted node drops what it left', async () => {
    const url = await freshDatabase();
    const a = await open(url);
    const b = await open(url);
    const busA = new EventBus();
    const ownership = new ObjectOwnership(CLUSTER, 'one', a.clusterDirectory, busA, silentLogger);
    const viewFromTwo = new ObjectOwnership(CLUSTER, 'two', b.clusterDirectory, new EventBus(), silentLogger);
    const channels = new ChannelRegistry(busA, silentLogger);
    const channel = channels.create(sipChannelInit('a', new RecordingTechnology(), { state: 'Ring' }));
    await a.clusterDirectory.flush();
    assert.deepEqual(await viewFromTwo.ownerOf('channel', channel.id), CLUSTER.nodes[0]);
    // Its own objects are not "elsewhere".
    assert.equal(await ownership.ownerOf('channel', channel.id), undefined);
    channel.remoteHangup(16);
    await a.clusterDirectory.flush();
    assert.equal(await viewFromTwo.ownerOf('channel', channel.id), undefined);

    a.clusterDirectory.record('bridge', 'left-behind', 'one');
    await a.clusterDirectory.flush();
    assert.equal(await b.clusterDirectory.ownerOf('bridge', 'left-behind'), 'one');
    new ObjectOwnership(CLUSTER, 'one', a.clusterDirectory, new EventBus(), silentLogger);
    await a.clusterDirectory.flush();
    assert.equal(await b.clusterDirectory.ownerOf('bridge', 'left-behind'), undefined);
  });

  it('delivers events to the node named, in the order sent, large ones through a row', async () => {
    const url = await freshDatabase();
    const a = await open(url);
    const b = await open(url);
    const c = await open(url);
    const atB: string[] = [];
    const atC: string[] = [];
    b.applicationClaims.onEvent((app, event) => atB.push(`${app}:${String(event.n)}:${String(event.pad ?? '').length}`));
    c.applicationClaims.onEvent(() => atC.push('wrong node'));
    const big = 'x'.repeat(9000);
    for (let n = 0; n < 20; n++) a.applicationClaims.sendEvent(b.nodeId, 'demo', n % 5 === 2 ? { n, pad: big } : { n });
    await eventually(() => atB.length === 20, 'twenty events at node b');
    assert.deepEqual(
      atB,
      Array.from({ length: 20 }, (_, n) => `demo:${n}:${n % 5 === 2 ? 9000 : 0}`),
    );
    assert.deepEqual(atC, []);
    // The rows of the large ones are taken by the receiver.
    const { rows } = await a.pool.query<{ count: string }>('SELECT count(*) FROM cluster_events');
    assert.equal(Number(rows[0].count), 0);
    // One addressed to a node that never reads it is swept once stale.
    a.applicationClaims.sendEvent('a-node-that-is-gone', 'demo', { pad: big });
    await a.clusterDirectory.flush();
    await a.clusterDirectory.sweep(Date.now() + 120_000);
    const left = await a.pool.query<{ count: string }>('SELECT count(*) FROM cluster_events');
    assert.equal(Number(left.rows[0].count), 0);
  });

  it('a channel entering an application served by another node: its events go to that node, a released name fails', async () => {
    const url = await freshDatabase();
    const a = await open(url);
    const b = await open(url);
    const busA = new EventBus();
    const registryA = new ApplicationRegistry(busA, silentLogger);
    registryA.shareNamesThrough(a.applicationClaims);
    const registryB = new ApplicationRegistry(new EventBus(), silentLogger);
    registryB.shareNamesThrough(b.applicationClaims);
    const received: ApplicationEvent[] = [];
    const sink = (e: ApplicationEvent) => received.push(e);
    registryB.register('remote-app', sink);
    let served: string | undefined;
    const deadline = Date.now() + 3000;
    while (served === undefined && Date.now() < deadline) served = await a.applicationClaims.servedElsewhere('remote-app');
    assert.equal(served, b.nodeId);

    const channels = new ChannelRegistry(busA, silentLogger);
    const newChannel = () => channels.create(sipChannelInit('a', new RecordingTechnology(), { state: 'Ring' }));
    const channel = newChannel();
    const exit = registryA.enter(channel, 'remote-app', ['x']);
    await eventually(() => received.length === 1, 'AppStart at node b');
    channel.setState('Up');
    channel.remoteHangup(16);
    assert.deepEqual(await exit, { kind: 'hangup' });
    await eventually(() => received.length === 4, 'four events at node b');
    assert.deepEqual(
      received.map((e) => e.type),
      ['AppStart', 'ChannelStateChange', 'AppEnd', 'ChannelDestroyed'],
    );
    assert.ok(received.every((e) => e.timestamp instanceof Date));
    assert.equal(registryA.get('remote-app'), undefined, 'not listed on the node the channels are on');

    // The application reconnects to a third node: channels already in it follow it there.
    const moving = newChannel();
    const movingExit = registryA.enter(moving, 'remote-app', []);
    await eventually(() => received.some((e) => e.type === 'AppStart' && e.channel.id === moving.id), 'AppStart of the second channel');
    const c = await open(url);
    const registryC = new ApplicationRegistry(new EventBus(), silentLogger);
    registryC.shareNamesThrough(c.applicationClaims);
    const atC: ApplicationEvent[] = [];
    const sinkC = (e: ApplicationEvent) => atC.push(e);
    registryC.register('remote-app', sinkC);
    await eventually(() => received.some((e) => e.type === 'ApplicationReplaced'), 'ApplicationReplaced at node b');
    await new Promise((resolve) => setTimeout(resolve, 300));
    moving.setState('Up');
    await eventually(() => atC.some((e) => e.type === 'ChannelStateChange'), "the second channel's events at node c");
    moving.remoteHangup(16);
    await movingExit;

    registryC.unregister('remote-app', sinkC);
    const released = Date.now() + 3000;
    while (served !== undefined && Date.now() < released) served = await a.applicationClaims.servedElsewhere('remote-app');
    assert.equal(served, undefined);
    const late = newChannel();
    assert.deepEqual(await registryA.enter(late, 'remote-app', []), {
      kind: 'failed',
      reason: "application 'remote-app' is not registered",
    });
    late.remoteHangup(16);
  });

  it('a claim of a node that is gone (its connections closed) serves nobody', async () => {
    const url = await freshDatabase();
    const a = await open(url);
    const b = await openPostgresStore(url);
    const registryB = new ApplicationRegistry(new EventBus(), silentLogger);
    registryB.shareNamesThrough(b.applicationClaims);
    registryB.register('orphan', () => undefined);
    let served: string | undefined;
    const deadline = Date.now() + 3000;
    while (served === undefined && Date.now() < deadline) served = await a.applicationClaims.servedElsewhere('orphan');
    assert.equal(served, b.nodeId);
    await b.close();
    assert.equal(await a.applicationClaims.servedElsewhere('orphan'), undefined);
  });
});
