/**
 * `?resume=N` on a node of a cluster that has no journal of the application (it was served by
 * another node): the shared journal's head, in PostgreSQL, is the application's last event, and a
 * resume point beyond it is refused with 400 as on one node, and one the store has no journal of is
 * told its events are gone (EventsLost) as on one node. Two nodes on one temporary server.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ClusterConfig } from '@switchboard/core';
import { postgresUnavailableReason, startTemporaryPostgres, type TemporaryPostgres } from '@switchboard/core/testing';
import WebSocket from 'ws';
import { type Harness, startHarness } from '../testing/harness.js';
import { openInbox } from '../testing/ws-inbox.js';

const unavailable = postgresUnavailableReason();

/** Opens a socket expecting a refusal; resolves with the HTTP status and the body's message. */
function refusal(url: string): Promise<{ status: number; message: string }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, ['ari']);
    ws.once('open', () => {
      ws.close();
      reject(new Error('the upgrade was accepted'));
    });
    ws.once('unexpected-response', (_request, response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => {
        body += chunk.toString();
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, message: (JSON.parse(body) as { message: string }).message }));
    });
    ws.once('error', reject);
  });
}

describe('resume on a node that never served the application', { skip: unavailable }, () => {
  let postgres: TemporaryPostgres;
  const nodes: { h: Harness; base: string }[] = [];

  before(async () => {
    postgres = await startTemporaryPostgres();
    const cluster: ClusterConfig = {
      secret: 'cluster-resume-test',
      nodeTimeoutMs: 10_000,
      nodes: [
        { name: 'first', ari: 'http://127.0.0.1:9/ari' },
        { name: 'second', ari: 'http://127.0.0.1:9/ari' },
      ],
    };
    for (const systemName of ['first', 'second']) {
      const h = await startHarness({ node: { systemName, cluster, store: { backend: 'postgres', url: postgres.url } } });
      const { port } = await h.server.listen('127.0.0.1', 0);
      nodes.push({ h, base: `ws://127.0.0.1:${port}/ari/events?api_key=alice:secret` });
    }
  });
  after(async () => {
    for (const { h } of nodes) await h.close();
    await postgres?.stop();
  });

  test("beyond the shared journal's head: 400; at the head: accepted, numbered on from it", async () => {
    const [first, second] = nodes as [(typeof nodes)[0], (typeof nodes)[0]];
    // The first node serves the application; its events are numbered in the shared journal.
    const served = await openInbox(`${first.base}&app=travelling`);
    const channel = first.h.createChannel();
    first.h.enterApplication(channel, 'travelling');
    channel.setVariable('A', '1');
    channel.setVariable('B', '2');
    await served.count(3);
    const head = served.seen.at(-1)?.sequence as number;
    assert.equal(head, 3);

    const ahead = await refusal(`${second.base}&app=travelling&resume=${head + 1}`);
    assert.deepEqual(ahead, { status: 400, message: `resume=${head + 1} is ahead of application travelling's last event (${head})` });
    const paired = await refusal(`${second.base}&app=travelling,other&resume=travelling:${head + 5},other:0`);
    assert.equal(paired.status, 400);
    assert.equal(second.h.core.applications.get('travelling'), undefined, 'a refusal registers nothing');

    // At the head: accepted; the second node serves the application from now on, numbering on.
    const resumed = await openInbox(`${second.base}&app=travelling&resume=${head}`);
    await served.next((e) => e.type === 'ApplicationReplaced');
    const local = second.h.createChannel();
    second.h.enterApplication(local, 'travelling');
    const start = await resumed.next((e) => e.type === 'StasisStart' || e.type === 'AppStart');
    assert.equal(start.sequence, head + 1);
    assert.equal(
      resumed.seen.some((e) => e.type === 'EventsLost'),
      false,
    );
    await resumed.close();
    await served.close();
  });

  test('an application the shared journal has never seen: accepted, told that events 41… are gone, numbered from 1', async () => {
    const [, second] = nodes as [(typeof nodes)[0], (typeof nodes)[0]];
    const fresh = await openInbox(`${second.base}&app=never-served&resume=40`);
    const lost = await fresh.next((e) => e.type === 'EventsLost');
    assert.equal(lost.first_lost_sequence, 41);
    assert.equal(lost.last_lost_sequence, undefined, 'the extent is unknown');
    const channel = second.h.createChannel();
    second.h.enterApplication(channel, 'never-served');
    const start = await fresh.next((e) => e.type === 'StasisStart' || e.type === 'AppStart');
    assert.equal(start.sequence, 1);
    await fresh.close();
  });
});
