import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import type { NodeDown } from '../types.js';
import { openPostgresStore, type PostgresStore } from './postgres-store.js';
import { postgresUnavailableReason, startTemporaryPostgres, type TemporaryPostgres } from './temporary-postgres.js';

const unavailable = postgresUnavailableReason();
let server: TemporaryPostgres | undefined;

before(async () => {
  if (!unavailable) server = await startTemporaryPostgres();
});
after(() => server?.stop());

async function eventually(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('node heartbeats in the PostgreSQL store', { skip: unavailable }, () => {
  const stores: PostgresStore[] = [];
  let admin: pg.Client;
  let url: string;
  before(async () => {
    if (!server) return;
    const setup = new pg.Client({ connectionString: server.url });
    await setup.connect();
    await setup.query('CREATE DATABASE node_liveness_test');
    await setup.end();
    url = server.urlFor('node_liveness_test');
    stores.push(await openPostgresStore(url), await openPostgresStore(url), await openPostgresStore(url));
    admin = new pg.Client({ connectionString: url });
    await admin.connect();
  });
  after(async () => {
    await admin?.end();
    await Promise.all(stores.map((s) => s.close()));
  });
  const count = async (sql: string, params: string[]) => Number((await admin.query<{ n: string }>(sql, params)).rows[0].n);

  it('a node whose heartbeat stopped is cleared once, whichever survivors race, and every node is told', async () => {
    const [a, b] = stores;
    // What a node killed outright leaves: its row, directory rows and an application claim.
    await admin.query(`INSERT INTO cluster_nodes (name, store_id, heartbeat_at) VALUES ('three', 'store-3', now() - interval '1 hour')`);
    await admin.query(
      `INSERT INTO cluster_objects (kind, id, node) VALUES ('channel', 'c3', 'three'), ('bridge', 'b3', 'three'), ('channel', 'c1', 'one')`,
    );
    await admin.query(`INSERT INTO application_claims (name, node, seq) VALUES ('app3', 'store-3', nextval('application_claim_seq'))`);
    const heard: { by: string; down: NodeDown }[] = [];
    a.nodeLiveness.onNodeDown((down) => heard.push({ by: 'a', down }));
    b.nodeLiveness.onNodeDown((down) => heard.push({ by: 'b', down }));
    await a.nodeLiveness.start('one', 2000);
    await b.nodeLiveness.start('two', 2000);
    assert.equal(await count(`SELECT count(*) AS n FROM cluster_nodes WHERE name = ANY($1)`, ['{one,two}']), 2);

    await eventually(() => heard.length === 2, 'both nodes told of node three');
    assert.deepEqual(heard.map((h) => h.by).sort(), ['a', 'b']);
    for (const h of heard) assert.deepEqual(h.down, { name: 'three', storeId: 'store-3' });
    assert.equal(await count('SELECT count(*) AS n FROM cluster_objects WHERE node = $1', ['three']), 0);
    assert.equal(await count('SELECT count(*) AS n FROM cluster_objects WHERE node = $1', ['one']), 1, "a live node's rows stay");
    assert.equal(await count('SELECT count(*) AS n FROM application_claims WHERE node = $1', ['store-3']), 0);
    assert.equal(await count('SELECT count(*) AS n FROM cluster_nodes WHERE name = $1', ['three']), 0);
    // Beating nodes are not taken for dead: a few more beats tell nobody anything.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    assert.equal(heard.length, 2);
    assert.equal(await count(`SELECT count(*) AS n FROM cluster_nodes WHERE name = ANY($1)`, ['{one,two}']), 2);
  });

  it('a node that starts again under its name before it was found dead reports its earlier run down', async () => {
    const [, b, c] = stores;
    await admin.query(`INSERT INTO cluster_nodes (name, store_id, heartbeat_at) VALUES ('four', 'store-4', now())`);
    await admin.query(`INSERT INTO application_claims (name, node, seq) VALUES ('app4', 'store-4', nextval('application_claim_seq'))`);
    const heard: NodeDown[] = [];
    b.nodeLiveness.onNodeDown((down) => heard.push(down));
    await c.nodeLiveness.start('four', 2000);
    await eventually(() => heard.length === 1, 'the earlier run reported down');
    assert.deepEqual(heard[0], { name: 'four', storeId: 'store-4' });
    assert.equal(await count('SELECT count(*) AS n FROM application_claims WHERE node = $1', ['store-4']), 0);
    assert.equal(
      (await admin.query<{ store_id: string }>(`SELECT store_id FROM cluster_nodes WHERE name = 'four'`)).rows[0].store_id,
      c.nodeId,
    );
  });

  it('a node shut down on purpose removes its row', async () => {
    const c = stores.pop() as PostgresStore;
    await c.close();
    assert.equal(await count('SELECT count(*) AS n FROM cluster_nodes WHERE name = $1', ['four']), 0);
  });
});
