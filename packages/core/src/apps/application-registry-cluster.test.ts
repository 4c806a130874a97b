/**
 * The subscriptions of an application served on this node to sources another node owns, kept
 * through the shared store (PostgreSQL, a temporary server): when the source ends there, or the
 * run of the node owning it does (the node was killed and starts again), the serving node's
 * Application forgets it too; its own unsubscribe and subscribe again are not undone.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { EventBus } from '../events/event-bus.js';
import { openPostgresStore, type PostgresStore } from '../store/postgres/postgres-store.js';
import { postgresUnavailableReason, startTemporaryPostgres, type TemporaryPostgres } from '../store/postgres/temporary-postgres.js';
import { silentLogger } from '../util/logger.js';
import { ApplicationRegistry } from './application-registry.js';

const unavailable = postgresUnavailableReason();

async function eventually(check: () => boolean, what: string, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("an application served here, subscribed to another node's sources", { skip: unavailable }, () => {
  let server: TemporaryPostgres | undefined;
  const stores: PostgresStore[] = [];
  before(async () => {
    server = await startTemporaryPostgres();
  });
  after(async () => {
    await Promise.all(stores.map((s) => s.close()));
    await server?.stop();
  });
  const open = async () => {
    const store = await openPostgresStore(server?.url ?? '');
    stores.push(store);
    return store;
  };

  it('forgets a source whose node starts again or that ended there, and keeps its own changes', async () => {
    const [here, owner] = [await open(), await open()];
    const apps = new ApplicationRegistry(new EventBus(), silentLogger);
    apps.shareSubscriptionsThrough(here.applicationSubscriptions, 'node1');
    const app = apps.register('served', () => undefined);
    // As the API subscribes to a bridge or channel the directory says node 2 owns.
    const subscribe = (kind: 'bridge' | 'channel', id: string) => {
      app.subscribe(kind, id);
      apps.shareSubscription('served', kind, id, 1, 'node2');
    };
    subscribe('bridge', 'B1');
    subscribe('bridge', 'B1');
    subscribe('channel', 'C1');
    subscribe('bridge', 'B2');
    // Its own last unsubscribe, then a subscribe again: the count-0 notice that arrives after the
    // new subscribe must not undo it.
    app.unsubscribe('bridge', 'B2');
    apps.shareSubscription('served', 'bridge', 'B2', -1);
    subscribe('bridge', 'B2');
    await here.applicationSubscriptions.flush();
    /** The shared rows with a count (subscribeAll off is a row at 0, not listed). */
    const rows = async () => (await owner.applicationSubscriptions.load()).map((s) => `${s.kind}:${s.source}=${s.count}`).sort();
    assert.deepEqual(await rows(), ['bridge:B1=2', 'bridge:B2=1', 'channel:C1=1']);

    // Node 2 ends C1 (dropSource), then starts again after being killed (dropSourcesOf).
    owner.applicationSubscriptions.dropSource('channel', 'C1');
    await eventually(() => app.snapshot().channel_ids.length === 0, 'C1 forgotten');
    assert.deepEqual(app.snapshot().bridge_ids.sort(), ['B1', 'B2'], 'only the source that ended');
    owner.applicationSubscriptions.dropSourcesOf('node2');
    await eventually(() => app.snapshot().bridge_ids.length === 0, 'the bridges of the killed run forgotten, whatever their count');
    assert.deepEqual(await rows(), []);
  });
});
