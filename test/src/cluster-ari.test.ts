/**
 * One ARI application across the nodes of a cluster (`npm run cluster -- up`, three nodes): the
 * application connects to node 1 with ari-client, calls are sent straight to node 2 or node 3, and
 * the application sees their events and controls them through node 1, which forwards each request
 * to the node owning the channel. Skips, naming the reason, when Kamailio or PostgreSQL cannot run here.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import ari, { type AriClient, type AriEvent } from 'ari-client';
import WebSocket from 'ws';
import { runSipp, type SippResult } from './harness.js';
import { type Cluster, ClusterFixture, type ClusterNode, clusterUnavailableReason, nodeRest, waitFor } from './cluster-fixture.js';
import { RtpPeer } from './rtp-peer.js';

/** The events the test follows; ari-client emits each by its type. */
const FOLLOWED = [
  'AppStart',
  'ChannelStateChange',
  'ChannelVarset',
  'ChannelDtmfReceived',
  'PlaybackStarted',
  'PlaybackFinished',
  'ChannelEnteredBridge',
  'ChannelLeftBridge',
  'ChannelHangupRequest',
  'AppEnd',
  'ChannelDestroyed',
];

describe('one ARI application across three nodes', { skip: clusterUnavailableReason() }, () => {
  const fixture = new ClusterFixture();
  let cluster: Cluster;
  let client: AriClient;
  const events: AriEvent[] = [];

  const rest = (node: ClusterNode, method: string, path: string) => nodeRest(cluster, node, method, path);
  /** The shared secret `up` wrote into every node's switchboard.conf [cluster]. */
  const clusterSecret = () => fixture.secret();
  const eventsOf = (channelId: string) => events.filter((e) => (e.channel as { id?: string } | undefined)?.id === channelId);

  /** alice calls the application's extension (100) on `node` directly; resolves when sipp ends. */
  const callInto = (node: ClusterNode, timeoutSeconds = 20, rtpport = 4204): Promise<SippResult> => {
    const [host, port] = node.sip.split(':');
    return runSipp(
      'uac-auth-wait-bye.xml',
      { host, port: Number(port) },
      {
        service: '100',
        keys: { user: 'alice', rtpport },
        extra: ['-au', 'alice', '-ap', 'wonderland'],
        timeoutSeconds,
      },
    );
  };

  /** The AppStart of a new call into the application, as the application saw it. */
  const nextStart = (known: Set<string>) =>
    waitFor('AppStart at the application on node 1', () => {
      const start = events.find((e) => e.type === 'AppStart' && !known.has((e.channel as { id: string }).id));
      return start === undefined ? undefined : (start.channel as { id: string; name: string });
    });

  before(async () => {
    cluster = fixture.up();
    const [user, password] = cluster.ari_user.split(':');
    client = await ari.connect(cluster.nodes[0].ari.replace(/\/ari$/, ''), user, password);
    for (const type of FOLLOWED) client.on(type, (event: AriEvent) => events.push(event));
    await client.start('cluster');
  });
  after(() => {
    client?.stop();
    fixture.down();
  });

  it(
    'a call entering the application on node 3 reaches it on node 1; answer, variables and hangup are forwarded',
    { timeout: 40_000 },
    async () => {
      const [node1, , node3] = cluster.nodes;
      const calling = callInto(node3);
      const channel = await nextStart(new Set());
      // ari-client's own requests go to node 1, which forwards them to node 3.
      await client.channels.answer({ channelId: channel.id });
      await waitFor('ChannelStateChange Up', () =>
        eventsOf(channel.id).find((e) => e.type === 'ChannelStateChange' && (e.channel as { state: string }).state === 'Up'),
      );

      const set = await rest(node1, 'POST', `/channels/${encodeURIComponent(channel.id)}/variable?variable=GREETING&value=from-node-1`);
      assert.equal(set.status, 204);
      const read = await rest(node1, 'GET', `/channels/${encodeURIComponent(channel.id)}/variable?variable=GREETING`);
      assert.equal(read.status, 200);
      assert.deepEqual(await read.json(), { value: 'from-node-1' });
      await waitFor('ChannelVarset', () => eventsOf(channel.id).find((e) => e.type === 'ChannelVarset' && e.variable === 'GREETING'));

      // The owner answers as it would itself: a bad request is its 400, unchanged.
      const bad = await rest(node1, 'POST', `/channels/${encodeURIComponent(channel.id)}/variable`);
      assert.equal(bad.status, 400);
      assert.ok(typeof ((await bad.json()) as { message?: string }).message === 'string');

      // Node 1 lists the channel of node 3 (and node 3 itself, once).
      const listed = (await (await rest(node1, 'GET', '/channels')).json()) as { id: string }[];
      assert.equal(listed.filter((c) => c.id === channel.id).length, 1);
      const onOwner = (await (await rest(node3, 'GET', '/channels')).json()) as { id: string }[];
      assert.equal(onOwner.filter((c) => c.id === channel.id).length, 1);

      // REST over the events WebSocket on node 1 is forwarded the same way.
      const answer = await restOverWebSocket(node1, `channels/${encodeURIComponent(channel.id)}`);
      assert.equal(answer.status_code, 200);
      assert.equal((JSON.parse(answer.message_body) as { id: string }).id, channel.id);

      // A playback on node 3's channel, started and looked at through node 1; its events reach node 1.
      const playing = await rest(
        node1,
        'POST',
        `/channels/${encodeURIComponent(channel.id)}/play?media=sound:beep&playbackId=cluster-beep`,
      );
      assert.equal(playing.status, 201);
      assert.equal(((await playing.json()) as { id: string }).id, 'cluster-beep');
      await waitFor('PlaybackFinished', () =>
        events.find((e) => e.type === 'PlaybackFinished' && (e.playback as { id: string }).id === 'cluster-beep'),
      );
      assert.ok(events.some((e) => e.type === 'PlaybackStarted' && (e.playback as { id: string }).id === 'cluster-beep'));

      // A bridge made on node 3; node 1 forwards the addChannel to it, and the application hears the channel enter.
      const bridge = await rest(node3, 'POST', '/bridges?type=mixing&bridgeId=cluster-bridge');
      assert.equal(bridge.status, 200);
      assert.equal((await rest(node1, 'POST', `/bridges/cluster-bridge/addChannel?channel=${encodeURIComponent(channel.id)}`)).status, 204);
      const entered = await waitFor('ChannelEnteredBridge', () => eventsOf(channel.id).find((e) => e.type === 'ChannelEnteredBridge'));
      assert.equal((entered.bridge as { id: string }).id, 'cluster-bridge');
      const shown = (await (await rest(node1, 'GET', '/bridges/cluster-bridge')).json()) as { channels: string[] };
      assert.deepEqual(shown.channels, [channel.id]);
      assert.ok(((await (await rest(node1, 'GET', '/bridges')).json()) as { id: string }[]).some((b) => b.id === 'cluster-bridge'));
      assert.equal((await rest(node1, 'DELETE', '/bridges/cluster-bridge')).status, 204);
      await waitFor('ChannelLeftBridge', () => eventsOf(channel.id).find((e) => e.type === 'ChannelLeftBridge'));

      // A request carrying the cluster secret is another node's forward: answered here, never sent on.
      const peerHeaders = { 'x-switchboard-cluster-secret': clusterSecret() };
      assert.equal((await fetch(`${node1.ari}/channels/${encodeURIComponent(channel.id)}`, { headers: peerHeaders })).status, 404);
      assert.equal((await fetch(`${node3.ari}/channels/${encodeURIComponent(channel.id)}`, { headers: peerHeaders })).status, 200);

      const hangup = await rest(node1, 'DELETE', `/channels/${encodeURIComponent(channel.id)}`);
      assert.equal(hangup.status, 204);
      const result = await calling;
      assert.equal(result.code, 0, result.stdout.slice(-2000));
      await waitFor('AppEnd', () => eventsOf(channel.id).find((e) => e.type === 'AppEnd'));
      // In order, as node 3 raised them.
      const seen = eventsOf(channel.id).map((e) => e.type);
      const order = ['AppStart', 'ChannelStateChange', 'ChannelVarset', 'ChannelHangupRequest', 'AppEnd'].map((type) => seen.indexOf(type));
      assert.ok(
        order.every((at, i) => at >= 0 && (i === 0 || at > order[i - 1])),
        `events in order: ${seen.join(', ')}`,
      );
      // Gone everywhere: node 1 answers 404 for it.
      assert.equal((await rest(node1, 'GET', `/channels/${encodeURIComponent(channel.id)}`)).status, 404);
    },
  );

  it('a request with a wrong cluster secret is refused', async () => {
    const [node1] = cluster.nodes;
    const wrong = await fetch(`${node1.ari}/channels`, { headers: { 'x-switchboard-cluster-secret': 'not-the-secret-of-this-cluster' } });
    assert.equal(wrong.status, 401);
  });

  it(
    "the issue's bridge: a bridge on node 1 holds a call of node 3 and one of node 2, and audio flows both ways",
    { timeout: 40_000 },
    async () => {
      const [node1, node2, node3] = cluster.nodes;
      const peers = { a: await RtpPeer.open(), b: await RtpPeer.open() };
      try {
        const known = new Set(events.filter((e) => e.type === 'AppStart').map((e) => (e.channel as { id: string }).id));
        const callingA = callInto(node3, 25, peers.a.port);
        const a = await nextStart(known);
        known.add(a.id);
        const callingB = callInto(node2, 25, peers.b.port);
        const b = await nextStart(known);
        for (const channel of [a, b]) {
          await client.channels.answer({ channelId: channel.id });
          // A beep tells each phone's RTP peer where its node's leg is (symmetric RTP).
          assert.equal((await rest(node1, 'POST', `/channels/${encodeURIComponent(channel.id)}/play?media=sound:beep`)).status, 201);
        }
        await waitFor('media from both nodes', () => (peers.a.remote && peers.b.remote ? true : undefined));

        assert.equal((await rest(node1, 'POST', '/bridges?type=mixing&bridgeId=across-nodes')).status, 200);
        const added = await rest(
          node1,
          'POST',
          `/bridges/across-nodes/addChannel?channel=${encodeURIComponent(a.id)},${encodeURIComponent(b.id)}`,
        );
        assert.equal(added.status, 204, await added.text());
        for (const channel of [a, b]) {
          await waitFor(`${channel.id} entering the bridge`, () =>
            events.find(
              (e) =>
                e.type === 'ChannelEnteredBridge' &&
                (e.channel as { id: string }).id === channel.id &&
                (e.bridge as { id: string }).id === 'across-nodes',
            ),
          );
        }
        const shown = (await (await rest(node1, 'GET', '/bridges/across-nodes')).json()) as { channels: string[] };
        assert.deepEqual([...shown.channels].sort(), [a.id, b.id].sort());
        // The channels themselves are still answered for by their own nodes.
        const ofA = (await (await rest(node1, 'GET', `/channels/${encodeURIComponent(a.id)}`)).json()) as { name: string };
        assert.match(ofA.name, /^SIP\/alice-/);

        await new Promise((resolve) => setTimeout(resolve, 300));
        const since = performance.now();
        await peers.a.sendTone(600, 1000);
        assert.ok(peers.b.loudnessSince(since) > 300, `node 2's caller hears node 3's (rms ${peers.b.loudnessSince(since).toFixed(0)})`);
        const back = performance.now();
        await peers.b.sendTone(1000, 1000);
        assert.ok(peers.a.loudnessSince(back) > 300, `node 3's caller hears node 2's (rms ${peers.a.loudnessSince(back).toFixed(0)})`);

        // A digit pressed on node 3's phone reaches the application on node 1.
        await peers.a.sendDtmf('5');
        const digit = await waitFor('ChannelDtmfReceived', () => eventsOf(a.id).find((e) => e.type === 'ChannelDtmfReceived'));
        assert.equal(digit.digit, '5');

        // Taken out of the bridge, B stays up on its node and can join again.
        const entries = () => eventsOf(b.id).filter((e) => e.type === 'ChannelEnteredBridge').length;
        assert.equal((await rest(node1, 'POST', `/bridges/across-nodes/removeChannel?channel=${encodeURIComponent(b.id)}`)).status, 204);
        await waitFor('B leaving', () => eventsOf(b.id).find((e) => e.type === 'ChannelLeftBridge'));
        await new Promise((resolve) => setTimeout(resolve, 1500));
        const stillUp = (await (await rest(node1, 'GET', `/channels/${encodeURIComponent(b.id)}`)).json()) as { state: string };
        assert.equal(stillUp.state, 'Up');
        assert.equal((await rest(node1, 'POST', `/bridges/across-nodes/addChannel?channel=${encodeURIComponent(b.id)}`)).status, 204);
        await waitFor('B entering again', () => (entries() === 2 ? true : undefined));

        // Hanging up on its own node takes the channel out of the bridge of node 1.
        assert.equal((await rest(node1, 'DELETE', `/channels/${encodeURIComponent(a.id)}`)).status, 204);
        await waitFor('the stand-in leaving', async () => {
          const now = (await (await rest(node1, 'GET', '/bridges/across-nodes')).json()) as { channels: string[] };
          return now.channels.includes(a.id) ? undefined : true;
        });
        assert.equal((await rest(node1, 'DELETE', `/channels/${encodeURIComponent(b.id)}`)).status, 204);
        for (const result of [await callingA, await callingB]) assert.equal(result.code, 0, result.stdout.slice(-2000));
        assert.equal((await rest(node1, 'DELETE', '/bridges/across-nodes')).status, 204);
      } finally {
        peers.a.close();
        peers.b.close();
      }
    },
  );

  it('an id owned by a node that is gone answers 404 on the others', { timeout: 40_000 }, async () => {
    const [node1, node2] = cluster.nodes;
    const known = new Set(events.filter((e) => e.type === 'AppStart').map((e) => (e.channel as { id: string }).id));
    const calling = callInto(node2, 6);
    const channel = await nextStart(known);
    assert.equal((await rest(node1, 'GET', `/channels/${encodeURIComponent(channel.id)}`)).status, 200);
    process.kill(node2.pid, 'SIGKILL');
    const started = Date.now();
    const gone = await rest(node1, 'GET', `/channels/${encodeURIComponent(channel.id)}`);
    assert.equal(gone.status, 404);
    assert.deepEqual(await gone.json(), { message: 'Channel not found' });
    assert.ok(Date.now() - started < 6000, 'answered within the forwarding deadline');
    await calling.catch(() => undefined);
  });

  /** One RESTRequest on an events WebSocket of `node` (a second application). */
  async function restOverWebSocket(node: ClusterNode, uri: string): Promise<{ status_code: number; message_body: string }> {
    const url = `${node.ari.replace(/^http/, 'ws')}/events?app=rest-over-ws&api_key=${cluster.ari_user}`;
    const socket = new WebSocket(url);
    try {
      await new Promise((resolve, reject) => {
        socket.once('open', resolve);
        socket.once('error', reject);
      });
      const answered = new Promise<{ status_code: number; message_body: string }>((resolve) => {
        socket.on('message', (data) => {
          const message = JSON.parse(String(data)) as { type: string; status_code: number; message_body: string };
          if (message.type === 'RESTResponse') resolve(message);
        });
      });
      socket.send(JSON.stringify({ type: 'RESTRequest', transaction_id: 't1', request_id: 'r1', method: 'GET', uri }));
      return await answered;
    } finally {
      socket.close();
    }
  }
});
