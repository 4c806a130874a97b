/**
 * Subscriptions and event resume across the nodes of a cluster (`npm run cluster -- up`, three
 * nodes): an application connected to node 1 subscribes to a channel of node 2 and hears its
 * events until it unsubscribes; a subscribeAll connection on node 1 hears a call of node 3; node 1
 * is killed and the application, reconnecting to node 2 with ?resume, gets what a call on node 3
 * produced meanwhile, numbered on without a hole.
 * Skips, naming the reason, when Kamailio or PostgreSQL cannot run here.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import WebSocket from 'ws';
import { type Cluster, ClusterFixture, type ClusterNode, clusterUnavailableReason, nodeRest, waitFor } from './cluster-fixture.js';
import { runSipp, type SippResult } from './harness.js';

interface WireEvent {
  type: string;
  sequence?: number;
  channel?: { id: string; name: string };
  variable?: string;
  value?: string;
  [field: string]: unknown;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Opens an events WebSocket expecting a refusal; resolves with the HTTP status and the body's message. */
function refusal(node: ClusterNode, user: string, query: string): Promise<{ status: number; message: string }> {
  const socket = new WebSocket(`${node.ari.replace(/^http/, 'ws')}/events?api_key=${encodeURIComponent(user)}&${query}`);
  return new Promise((resolve, reject) => {
    socket.once('open', () => {
      socket.terminate();
      reject(new Error('the upgrade was accepted'));
    });
    socket.once('unexpected-response', (_request, response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => {
        body += chunk.toString();
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, message: (JSON.parse(body) as { message: string }).message }));
    });
    socket.once('error', reject);
  });
}

/** An events WebSocket of one application, keeping every event it receives. */
class EventSocket {
  readonly events: WireEvent[] = [];
  readonly #socket: WebSocket;
  readonly opened: Promise<void>;

  constructor(node: ClusterNode, user: string, query: string) {
    const url = `${node.ari.replace(/^http/, 'ws')}/events?api_key=${encodeURIComponent(user)}&${query}`;
    this.#socket = new WebSocket(url);
    this.#socket.on('message', (data) => this.events.push(JSON.parse(String(data)) as WireEvent));
    this.opened = new Promise((resolve, reject) => {
      this.#socket.once('open', () => resolve());
      this.#socket.once('error', reject);
    });
  }

  of(channelId: string): WireEvent[] {
    return this.events.filter((e) => e.channel?.id === channelId);
  }

  close(): void {
    this.#socket.terminate();
  }
}

describe('subscriptions across three nodes', { skip: clusterUnavailableReason() }, () => {
  const fixture = new ClusterFixture();
  let cluster: Cluster;
  const sockets: EventSocket[] = [];
  /** The connection serving `resumer` on node 2 once it resumed there (the third test). */
  let resumedOnNode2: EventSocket | undefined;

  const rest = (node: ClusterNode, method: string, path: string) => nodeRest(cluster, node, method, path);

  const connect = async (node: ClusterNode, query: string) => {
    const socket = new EventSocket(node, cluster.ari_user, query);
    sockets.push(socket);
    await socket.opened;
    return socket;
  };

  /** alice calls `service` on `node` directly (400: answer, wait 20 s); resolves when sipp ends. */
  const callInto = (node: ClusterNode, service: string, rtpport: number): Promise<SippResult> => {
    const [host, port] = node.sip.split(':');
    return runSipp(
      'uac-auth-wait-bye.xml',
      { host, port: Number(port) },
      { service, keys: { user: 'alice', rtpport }, extra: ['-au', 'alice', '-ap', 'wonderland'], timeoutSeconds: 25 },
    );
  };

  /** The id of the one channel `node` has that is not in `known`. */
  const newChannelOn = (node: ClusterNode, known: Set<string>) =>
    waitFor('a new channel', async () => {
      const channels = (await (await rest(node, 'GET', '/channels')).json()) as { id: string; state: string; name: string }[];
      return channels.find((c) => !known.has(c.id) && c.state === 'Up');
    });

  before(() => {
    cluster = fixture.up();
  });
  after(() => {
    for (const socket of sockets) socket.close();
    fixture.down();
  });

  it('an application on node 1 subscribed to a channel of node 2 hears it until it unsubscribes', { timeout: 30_000 }, async () => {
    const [node1, node2] = cluster.nodes;
    // The channel is in the application `cluster`, served on node 2 itself; `watcher` on node 1 looks on.
    const owner = await connect(node2, 'app=cluster');
    const watcher = await connect(node1, 'app=watcher');
    const calling = callInto(node2, '100', 4310);
    const start = await waitFor('AppStart on node 2', () => owner.events.find((e) => e.type === 'AppStart'));
    const channelId = start.channel?.id ?? '';
    const setVariable = (name: string) =>
      rest(node2, 'POST', `/channels/${encodeURIComponent(channelId)}/variable?variable=${name}&value=1`).then((r) => r.status);

    // Node 1 does not have the channel; the directory says node 2 does.
    const subscribed = await rest(node1, 'POST', `/applications/watcher/subscription?eventSource=channel:${encodeURIComponent(channelId)}`);
    assert.equal(subscribed.status, 200);
    assert.deepEqual(((await subscribed.json()) as { channel_ids: string[] }).channel_ids, [channelId]);
    const missing = await rest(node1, 'POST', '/applications/watcher/subscription?eventSource=channel:no-such-channel');
    assert.equal(missing.status, 422);

    // Node 2 learns of the subscription through the store: a variable set there crosses to node 1.
    await waitFor('ChannelVarset at node 1', async () => {
      assert.equal(await setVariable('SEEN'), 204);
      await pause(200);
      return watcher.of(channelId).find((e) => e.type === 'ChannelVarset' && e.variable === 'SEEN');
    });
    assert.equal(await rest(node2, 'POST', `/channels/${encodeURIComponent(channelId)}/answer`).then((r) => r.status), 204);
    await waitFor('ChannelStateChange at node 1', () => watcher.of(channelId).find((e) => e.type === 'ChannelStateChange'));

    const unsubscribed = await rest(
      node1,
      'DELETE',
      `/applications/watcher/subscription?eventSource=channel:${encodeURIComponent(channelId)}`,
    );
    assert.equal(unsubscribed.status, 200);
    assert.deepEqual(((await unsubscribed.json()) as { channel_ids: string[] }).channel_ids, []);
    await pause(500);
    // The application serving the channel hears AFTER; the watcher does not.
    assert.equal(await setVariable('AFTER'), 204);
    await waitFor('ChannelVarset AFTER at node 2', () => owner.of(channelId).find((e) => e.variable === 'AFTER'));
    assert.equal((await rest(node1, 'DELETE', `/channels/${encodeURIComponent(channelId)}`)).status, 204);
    await waitFor('ChannelDestroyed at node 2', () => owner.of(channelId).find((e) => e.type === 'ChannelDestroyed'));
    await pause(500);
    assert.deepEqual(
      watcher.of(channelId).filter((e) => e.variable === 'AFTER' || e.type === 'ChannelDestroyed'),
      [],
      'no event of the channel after DELETE',
    );
    await calling;
  });

  it('subscribeAll on node 1 hears a call of node 3 from its start to its end', { timeout: 30_000 }, async () => {
    const [node1, , node3] = cluster.nodes;
    const everything = await connect(node1, 'app=everything&subscribeAll=true');
    // Node 3 learns of the subscribeAll through the store (a notification) before the call.
    await pause(600);
    const calling = callInto(node3, '400', 4320);
    const channel = await newChannelOn(node3, new Set());
    await waitFor('ChannelStateChange from node 3', () => everything.of(channel.id).find((e) => e.type === 'ChannelStateChange')).catch(
      (err: Error) => {
        throw new Error(
          `${err.message}; heard ${everything.events.map((e) => `${e.type}:${e.channel?.id ?? ''}`).join(' ')}; channel ${channel.id}`,
        );
      },
    );
    assert.equal((await rest(node1, 'DELETE', `/channels/${encodeURIComponent(channel.id)}`)).status, 204);
    await waitFor('ChannelDestroyed from node 3', () => everything.of(channel.id).find((e) => e.type === 'ChannelDestroyed'));
    assert.ok(
      everything.of(channel.id).some((e) => e.type === 'ChannelCreated'),
      'ChannelCreated seen',
    );
    await calling;
  });

  it(
    'an application whose node is killed resumes on another node with what a call on a third produced meanwhile',
    { timeout: 40_000 },
    async () => {
      const [node1, node2, node3] = cluster.nodes;
      const first = await connect(node1, 'app=resumer&subscribeAll=true');
      await pause(600);
      // A call on node 3 while node 1 serves the application: its events cross to node 1.
      const before = callInto(node3, '300', 4330);
      await waitFor('ChannelDestroyed of the first call', () => first.events.find((e) => e.type === 'ChannelDestroyed')).catch(
        (err: Error) => {
          throw new Error(`${err.message}; heard ${first.events.map((e) => e.type).join(' ')}`);
        },
      );
      await before;
      const numbered = first.events.filter((e) => typeof e.sequence === 'number');
      const lastSeen = Math.max(...numbered.map((e) => e.sequence as number));
      assert.deepEqual(
        numbered.map((e) => e.sequence),
        numbered.map((_, i) => i + 1),
        'numbered 1, 2, 3… on node 1',
      );

      process.kill(node1.pid, 'SIGKILL');
      first.close();
      // At once: node 3 sends the call's first events to the dead node until it notices (within a
      // second); then it writes those the journal lacks, and the rest, to the shared journal.
      await callInto(node3, '300', 4332);

      const resumed = await connect(node2, `app=resumer&subscribeAll=true&resume=${lastSeen}`);
      resumedOnNode2 = resumed;
      const destroyed = await waitFor('ChannelDestroyed of the call made while no node served the application', () =>
        resumed.events.find((e) => e.type === 'ChannelDestroyed'),
      );
      const created = resumed.events.find((e) => e.type === 'ChannelCreated');
      assert.equal(created?.channel?.id, destroyed.channel?.id, 'the whole call, from ChannelCreated');
      assert.deepEqual(
        resumed.events.filter((e) => e.type === 'EventsLost'),
        [],
        'no gap',
      );
      const sequences = resumed.events.filter((e) => typeof e.sequence === 'number').map((e) => e.sequence);
      assert.deepEqual(
        sequences,
        sequences.map((_, i) => lastSeen + 1 + i),
        'numbered on from the last event seen on node 1, without a hole',
      );
    },
  );

  it("on node 3, which never served it, a resume beyond the shared journal's head is refused; at the head it is accepted", async () => {
    const [, , node3] = cluster.nodes;
    const database = new pg.Client({ connectionString: cluster.postgres });
    await database.connect();
    try {
      const headRow = await database.query<{ last_seq: string }>(
        "SELECT last_seq FROM application_journal_heads WHERE application = 'resumer'",
      );
      const head = Number(headRow.rows[0]?.last_seq);
      assert.ok(head > 0, 'the shared journal has events of resumer');
      // Well beyond it: the head may still move on while this runs (node 2 serves the application).
      const ahead = head + 1000;
      const refused = await refusal(node3, cluster.ari_user, `app=resumer&subscribeAll=true&resume=${ahead}`);
      assert.equal(refused.status, 400);
      const shown = /^resume=(\d+) is ahead of application resumer's last event \((\d+)\)$/.exec(refused.message);
      assert.ok(shown, refused.message);
      assert.equal(Number(shown[1]), ahead);
      assert.ok(Number(shown[2]) >= head && Number(shown[2]) < ahead, refused.message);

      // At the head: node 3 takes the application over from node 2, with nothing lost on the way.
      const taken = await connect(node3, `app=resumer&subscribeAll=true&resume=${head}`);
      await waitFor('ApplicationReplaced on node 2', () => resumedOnNode2?.events.find((e) => e.type === 'ApplicationReplaced'));
      await pause(300);
      assert.deepEqual(
        taken.events.filter((e) => e.type === 'EventsLost'),
        [],
      );
    } finally {
      await database.end();
    }
  });
});
