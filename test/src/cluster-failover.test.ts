/**
 * A cluster (`npm run cluster -- up`, three nodes, node_timeout 4 s) when things cross or leave
 * nodes: a digest challenge of one node answered on another; digits pressed on a phone of node 3
 * reaching the application on node 1 once and the far phone on node 2 through a bridge of node 1;
 * node 3 killed with SIGKILL while its channel is in that bridge, and the survivors clearing what
 * it left (its directory row, its bridge leg, its busy lamp) within node_timeout and a beat or two;
 * node 2 killed and started again under its name at once: its new run takes its heartbeat row,
 * clears what the killed run left (directory rows, claims, subscriptions naming it), and calls
 * through Kamailio reach it again and complete.
 * Skips, naming the reason, when Kamailio or PostgreSQL cannot run here.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pg from 'pg';
import WebSocket from 'ws';
import { type Cluster, ClusterFixture, type ClusterNode, clusterUnavailableReason, nodeRest, waitFor } from './cluster-fixture.js';
import { runSipp, type SippResult } from './harness.js';
import { RtpPeer } from './rtp-peer.js';

const NODE_TIMEOUT_S = 4;
/** RFC 4733 payload type the nodes offer to phones (the scenarios' SDP). */
const TELEPHONE_EVENT_PT = 101;

interface AppEvent {
  type: string;
  channel?: { id: string; name: string; state: string };
  bridge?: { id: string };
  digit?: string;
}

/** The RFC 4733 event codes of the telephone-event packets a peer received (one per digit). */
function digitsReceived(peer: RtpPeer, since: number): number[] {
  const codes: number[] = [];
  let last: number | undefined;
  for (const packet of peer.packets) {
    if (packet.at < since || packet.payloadType !== TELEPHONE_EVENT_PT) continue;
    if (packet.timestamp !== last) codes.push(packet.payload[0]);
    last = packet.timestamp;
  }
  return codes;
}

describe('a cluster when calls cross nodes and a node dies', { skip: clusterUnavailableReason() }, () => {
  const fixture = new ClusterFixture();
  let cluster: Cluster;
  let socket: WebSocket;
  const events: AppEvent[] = [];

  const rest = (node: ClusterNode, method: string, path: string) => nodeRest(cluster, node, method, path);
  const eventsOf = (channelId: string, type: string) => events.filter((e) => e.channel?.id === channelId && e.type === type);
  const sipAddress = (node: ClusterNode) => node.sip.split(':') as [string, string];

  /** `user` calls the application's extension (100) on `node` directly; resolves when sipp ends. */
  const callInto = (
    node: ClusterNode,
    user: { name: string; password: string },
    rtpport: number,
    timeoutSeconds = 30,
  ): Promise<SippResult> => {
    const [host, port] = sipAddress(node);
    return runSipp(
      'uac-auth-wait-bye.xml',
      { host, port: Number(port) },
      { service: '100', keys: { user: user.name, rtpport }, extra: ['-au', user.name, '-ap', user.password], timeoutSeconds },
    );
  };
  const nextStart = (known: Set<string>) =>
    waitFor('AppStart at the application on node 1', () => {
      const start = events.find((e) => e.type === 'AppStart' && e.channel && !known.has(e.channel.id));
      return start?.channel;
    });

  before(async () => {
    cluster = fixture.up({ nodeTimeoutS: NODE_TIMEOUT_S });
    const url = `${cluster.nodes[0].ari.replace(/^http/, 'ws')}/events?app=cluster&api_key=${cluster.ari_user}`;
    socket = new WebSocket(url);
    socket.on('message', (data) => events.push(JSON.parse(String(data)) as AppEvent));
    await new Promise((resolve, reject) => {
      socket.once('open', resolve);
      socket.once('error', reject);
    });
  });
  after(() => {
    socket?.close();
    fixture.down();
  });

  it('a challenge from node 1 is answered on node 2 (the nonce secret comes from the cluster secret)', { timeout: 20_000 }, async () => {
    const [node1, node2] = cluster.nodes;
    const [host1, port1] = sipAddress(node1);
    const [host2, port2] = sipAddress(node2);
    // 300 answers and hangs up: the credentialed INVITE is answered by node 2, which sends the BYE.
    const result = await runSipp(
      'uac-auth-other-node.xml',
      { host: host1, port: Number(port1) },
      {
        service: '300',
        keys: { user: 'alice', rtpport: 4210, other_host: host2, other_port: port2 },
        extra: ['-au', 'alice', '-ap', 'wonderland'],
        timeoutSeconds: 10,
      },
    );
    assert.equal(result.code, 0, result.stdout.slice(-3000) + result.stderr.slice(-1000));
  });

  it(
    "digits cross a bridge of node 1 between node 3's and node 2's phones; node 3 killed leaves nothing behind",
    { timeout: 45_000 },
    async () => {
      const [node1, node2, node3] = cluster.nodes;
      const [alice, bob] = [
        { name: 'alice', password: 'wonderland' },
        { name: 'bob', password: 'builder' },
      ];
      const peers = { a: await RtpPeer.open(), b: await RtpPeer.open() };
      const database = new pg.Client({ connectionString: cluster.postgres });
      await database.connect();
      try {
        const known = new Set<string>();
        // Its node is killed before it hangs up: sipp stops at its own timeout (no BYE comes).
        const callingA = callInto(node3, alice, peers.a.port, 12);
        const a = await nextStart(known);
        known.add(a.id);
        const callingB = callInto(node2, bob, peers.b.port);
        const b = await nextStart(known);
        for (const channel of [a, b]) {
          assert.equal((await rest(node1, 'POST', `/channels/${encodeURIComponent(channel.id)}/answer`)).status, 204);
          assert.equal((await rest(node1, 'POST', `/channels/${encodeURIComponent(channel.id)}/play?media=sound:beep`)).status, 201);
        }
        await waitFor('media from both nodes', () => (peers.a.remote && peers.b.remote ? true : undefined));
        assert.equal((await rest(node1, 'POST', '/bridges?type=mixing&bridgeId=failover')).status, 200);
        const added = await rest(
          node1,
          'POST',
          `/bridges/failover/addChannel?channel=${encodeURIComponent(a.id)},${encodeURIComponent(b.id)}`,
        );
        assert.equal(added.status, 204, await added.text());
        for (const channel of [a, b]) await waitFor(`${channel.id} in the bridge`, () => eventsOf(channel.id, 'ChannelEnteredBridge')[0]);
        await new Promise((resolve) => setTimeout(resolve, 300));

        // Node 3's phone presses 7: the application hears it once (from node 3, not again from the
        // bridge's stand-in), and node 2's phone receives it as telephone-events.
        const pressed = performance.now();
        await peers.a.sendDtmf('7');
        const digit = await waitFor('ChannelDtmfReceived from node 3', () => eventsOf(a.id, 'ChannelDtmfReceived')[0]);
        assert.equal(digit.digit, '7');
        await waitFor("the digit at node 2's phone", () => (digitsReceived(peers.b, pressed).length > 0 ? true : undefined));
        assert.deepEqual(digitsReceived(peers.b, pressed), [7]);
        // And the other way.
        const back = performance.now();
        await peers.b.sendDtmf('3');
        assert.equal((await waitFor('ChannelDtmfReceived from node 2', () => eventsOf(b.id, 'ChannelDtmfReceived')[0])).digit, '3');
        await waitFor("the digit at node 3's phone", () => (digitsReceived(peers.a, back).length > 0 ? true : undefined));
        assert.deepEqual(digitsReceived(peers.a, back), [3]);
        await new Promise((resolve) => setTimeout(resolve, 500));
        assert.equal(eventsOf(a.id, 'ChannelDtmfReceived').length, 1, 'one ChannelDtmfReceived per digit');
        assert.equal(eventsOf(b.id, 'ChannelDtmfReceived').length, 1, 'one ChannelDtmfReceived per digit');

        // alice's lamp is lit by node 3's call, on every node.
        const aliceState = async (node: ClusterNode) =>
          ((await (await rest(node, 'GET', '/deviceStates/SIP%2Falice')).json()) as { state: string }).state;
        await waitFor('SIP/alice in use on node 1', async () => ((await aliceState(node1)) === 'INUSE' ? true : undefined));
        const rowsOf = async (node: string) =>
          Number((await database.query<{ n: string }>('SELECT count(*) AS n FROM cluster_objects WHERE node = $1', [node])).rows[0].n);
        assert.ok((await rowsOf('node3')) > 0);

        process.kill(node3.pid, 'SIGKILL');
        const killed = Date.now();
        const deadline = (NODE_TIMEOUT_S + 4) * 1000;
        // The stand-in of node 3's channel leaves the bridge of node 1, with its hangup.
        await waitFor("ChannelLeftBridge of the dead node's channel", () => eventsOf(a.id, 'ChannelLeftBridge')[0], deadline);
        await waitFor('ChannelDestroyed of its stand-in', () => eventsOf(a.id, 'ChannelDestroyed')[0], 2000);
        const cleared = Date.now() - killed;
        assert.ok(cleared >= (NODE_TIMEOUT_S - 2) * 1000, `not before the node timeout (${cleared} ms)`);
        const bridge = (await (await rest(node1, 'GET', '/bridges/failover')).json()) as { channels: string[] };
        assert.deepEqual(bridge.channels, [b.id]);
        await waitFor('no directory row of node 3', async () => ((await rowsOf('node3')) === 0 ? true : undefined), 2000);
        for (const node of [node1, node2]) {
          const started = Date.now();
          assert.equal((await rest(node, 'GET', `/channels/${encodeURIComponent(a.id)}`)).status, 404);
          assert.ok(Date.now() - started < 1000, 'answered at once: no forwarding to the dead node');
        }
        // Its lamp goes out with it, long before announcements expire on their own.
        await waitFor('SIP/alice no longer in use', async () => ((await aliceState(node1)) !== 'INUSE' ? true : undefined), 2000);
        // Node 2's call is untouched: still up, still in the bridge.
        const stillUp = (await (await rest(node1, 'GET', `/channels/${encodeURIComponent(b.id)}`)).json()) as { state: string };
        assert.equal(stillUp.state, 'Up');

        assert.equal((await rest(node1, 'DELETE', `/channels/${encodeURIComponent(b.id)}`)).status, 204);
        assert.equal((await callingB).code, 0);
        assert.equal((await rest(node1, 'DELETE', '/bridges/failover')).status, 204);
        await callingA.catch(() => undefined);
      } finally {
        peers.a.close();
        peers.b.close();
        await database.end();
      }
    },
  );

  it("node 2's phone holding and resuming in a bridge of node 1: ChannelHold, ChannelUnhold on its id", { timeout: 20_000 }, async () => {
    const [node1, node2] = cluster.nodes;
    const [host2, port2] = sipAddress(node2);
    const known = new Set(events.filter((e) => e.type === 'AppStart').map((e) => e.channel?.id ?? ''));
    const calling = runSipp(
      'uac-auth-hold-wait-bye.xml',
      { host: host2, port: Number(port2) },
      { service: '100', keys: { user: 'bob', rtpport: 4220 }, extra: ['-au', 'bob', '-ap', 'builder'], timeoutSeconds: 15 },
    );
    const held = await nextStart(known);
    assert.equal((await rest(node1, 'POST', `/channels/${encodeURIComponent(held.id)}/answer`)).status, 204);
    assert.equal((await rest(node1, 'POST', '/bridges?type=mixing&bridgeId=holding-across')).status, 200);
    assert.equal((await rest(node1, 'POST', `/bridges/holding-across/addChannel?channel=${encodeURIComponent(held.id)}`)).status, 204);
    await waitFor('ChannelHold', () => eventsOf(held.id, 'ChannelHold')[0]);
    await waitFor('ChannelUnhold', () => eventsOf(held.id, 'ChannelUnhold')[0]);
    const order = events.filter((e) => e.channel?.id === held.id && (e.type === 'ChannelHold' || e.type === 'ChannelUnhold'));
    assert.deepEqual(
      order.map((e) => e.type),
      ['ChannelHold', 'ChannelUnhold'],
      'each once, in order',
    );
    assert.equal((await rest(node1, 'DELETE', `/channels/${encodeURIComponent(held.id)}`)).status, 204);
    const result = await calling;
    assert.equal(result.code, 0, result.stdout.slice(-3000));
    assert.equal((await rest(node1, 'DELETE', '/bridges/holding-across')).status, 204);
  });

  it(
    'node 2 killed and started again under its name: its row is back, what the killed run left is gone, calls reach it again',
    { timeout: 40_000 },
    async () => {
      const [node1, node2] = cluster.nodes;
      const database = new pg.Client({ connectionString: cluster.postgres });
      await database.connect();
      const count = async (sql: string, value: string) => Number((await database.query<{ n: string }>(sql, [value])).rows[0].n);
      const storeIdOf = async (name: string) =>
        (await database.query<{ store_id: string }>('SELECT store_id FROM cluster_nodes WHERE name = $1', [name])).rows[0]?.store_id;
      const leftovers = async (node: string, storeId: string) => ({
        objects: await count('SELECT count(*) AS n FROM cluster_objects WHERE node = $1', node),
        claims: await count('SELECT count(*) AS n FROM application_claims WHERE node = $1', storeId),
        subscriptions: await count('SELECT count(*) AS n FROM application_subscriptions WHERE source_node = $1', node),
      });
      const claimant = new WebSocket(`${node2.ari.replace(/^http/, 'ws')}/events?app=claimed-on-node2&api_key=${cluster.ari_user}`);
      claimant.on('error', () => undefined);
      try {
        // What the run to be killed leaves: a bridge (its directory row), an application it serves
        // (its claim), and node 1's application subscribed to that bridge (a row naming node 2).
        await new Promise((resolve, reject) => {
          claimant.once('open', resolve);
          claimant.once('error', reject);
        });
        assert.equal((await rest(node2, 'POST', '/bridges?type=mixing&bridgeId=left-by-node2')).status, 200);
        assert.equal((await rest(node1, 'POST', '/applications/cluster/subscription?eventSource=bridge:left-by-node2')).status, 200);
        const killedRun = (await storeIdOf('node2')) ?? '';
        assert.notEqual(killedRun, '');
        await waitFor('the rows of node 2', async () => {
          const rows = await leftovers('node2', killedRun);
          return rows.objects > 0 && rows.claims > 0 && rows.subscriptions > 0 ? rows : undefined;
        });

        process.kill(node2.pid, 'SIGKILL');
        claimant.terminate();
        // Before the others find it dead (node_timeout): the new run itself clears the old run's rows.
        const restarted = fixture.startNodeAgain(node2);
        cluster.nodes[1] = restarted;
        const started = Date.now();
        assert.notEqual(restarted.pid, node2.pid);

        const newRun = await waitFor('the heartbeat row of the new run', async () => {
          const id = await storeIdOf('node2');
          return id !== undefined && id !== killedRun ? id : undefined;
        });
        const beat = async () =>
          (
            await database.query<{ at: Date }>('SELECT heartbeat_at AS at FROM cluster_nodes WHERE name = $1', ['node2'])
          ).rows[0]?.at.getTime();
        const firstBeat = (await beat()) ?? 0;
        await waitFor('a heartbeat of the new run', async () => (((await beat()) ?? 0) > firstBeat ? true : undefined), 4000);
        assert.equal(await storeIdOf('node2'), newRun);
        await waitFor('no row of the killed run', async () => {
          const rows = await leftovers('node2', killedRun);
          return rows.objects + rows.claims + rows.subscriptions === 0 ? true : undefined;
        });
        assert.equal((await rest(node1, 'GET', '/bridges/left-by-node2')).status, 404);
        const application = (await (await rest(node1, 'GET', '/applications/cluster')).json()) as { bridge_ids: string[] };
        assert.deepEqual(application.bridge_ids, []);

        // Kamailio's OPTIONS probes find it again: calls through the edge land on it within ~10 s,
        // and complete (300 answers and hangs up), as do those the other node takes.
        const inboundCalls = async (node: ClusterNode) => {
          const text = await (await fetch(node.ari.replace(/\/ari$/, '/metrics'))).text();
          const line = text.split('\n').find((l) => l.startsWith('switchboard_call_attempts_total{direction="inbound"}'));
          return line === undefined ? 0 : Number(line.split(' ').pop());
        };
        const [edgeHost, edgePort] = cluster.sip.split(':');
        let batches = 0;
        while ((await inboundCalls(restarted)) === 0) {
          assert.ok(Date.now() - started < 10_000 && batches < 10, `no call through the edge reached node 2 again (${batches} batches)`);
          batches += 1;
          const result = await runSipp(
            'uac-auth-wait-bye.xml',
            { host: edgeHost, port: Number(edgePort) },
            {
              service: '300',
              keys: { user: 'alice', rtpport: 4230 },
              extra: ['-au', 'alice', '-ap', 'wonderland'],
              calls: 4,
              rate: 20,
              timeoutSeconds: 8,
            },
          );
          assert.equal(result.code, 0, result.stdout.slice(-3000) + result.stderr.slice(-1000));
        }
      } finally {
        claimant.terminate();
        await database.end();
      }
    },
  );
});
