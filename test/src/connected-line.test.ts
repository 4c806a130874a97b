/**
 * Connected line end to end: two real calls (sipp, distinct caller ids) in a mixing bridge. Added
 * with `inhibitConnectedLineUpdates=true`, they generate no connected-line update; added without
 * it, each channel's connected line becomes the other's caller id and ChannelConnectedLine is
 * published for both (seen on the application's WebSocket with ari-client, and over plain HTTP).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import ari, { type AriChannel, type AriClient, type AriEvent, type AriOperation } from 'ari-client';
import { API_PASSWORD, API_USER, type RunningSwitchboard, basicAuth, runSipp, startSwitchboard } from './harness.js';
import { RtpPeer } from './rtp-peer.js';

const waitFor = async (what: string, check: () => boolean, ms = 10_000) => {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

type Party = { name: string; number: string };
type ChannelEvent = AriEvent & { channel: { id: string; caller: Party; connected: Party } };

describe('connected line', () => {
  let sb: RunningSwitchboard;
  let client: AriClient;

  before(async () => {
    sb = await startSwitchboard();
    client = await ari.connect(sb.baseUrl, API_USER, API_PASSWORD);
  });

  after(async () => {
    client?.stop();
    await sb.stop();
  });

  it('bridging two calls connects their lines unless inhibitConnectedLineUpdates is set', { timeout: 60_000 }, async () => {
    const bridges = client.bridges as Record<string, AriOperation>;
    const events: AriEvent[] = [];
    const channels: AriChannel[] = [];
    client.on('*', (event: AriEvent) => events.push(event));
    client.on('AppStart', (_event: AriEvent, channel: AriChannel) => {
      channels.push(channel);
      void channel.answer();
    });
    await client.start('demo');

    const phones = [await RtpPeer.open(), await RtpPeer.open()];
    const target = { host: '127.0.0.1', port: sb.sipPort };
    const parties: Party[] = [
      { name: 'Alice', number: '201' },
      { name: 'Bob', number: '202' },
    ];
    const calls: ReturnType<typeof runSipp>[] = [];
    try {
      // One after the other, so that channels[i] is parties[i].
      for (const [index, phone] of phones.entries()) {
        const { name, number } = parties[index];
        calls.push(
          runSipp('uac-wait-bye-from.xml', target, {
            service: '100',
            keys: { rtpport: phone.port, callername: name, callernumber: number },
            timeoutSeconds: 40,
          }),
        );
        await waitFor(`call ${index + 1} in the application`, () => channels.length === index + 1);
      }
      await waitFor('both answered', () => events.filter((e) => e.type === 'ChannelStateChange').length >= 2);
      const ids = channels.map((c) => c.id);
      const connectedEvents = () => events.filter((e): e is ChannelEvent => e.type === 'ChannelConnectedLine');

      await bridges.create({ type: 'mixing', bridgeId: 'quiet' });
      await bridges.addChannel({ bridgeId: 'quiet', channel: ids.join(','), inhibitConnectedLineUpdates: true });
      await waitFor('both entered', () => events.filter((e) => e.type === 'ChannelEnteredBridge').length === 2);
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal(connectedEvents().length, 0, 'no connected-line update while inhibited');
      await bridges.removeChannel({ bridgeId: 'quiet', channel: ids.join(',') });
      await waitFor('both left', () => events.filter((e) => e.type === 'ChannelLeftBridge').length === 2);

      await bridges.create({ type: 'mixing', bridgeId: 'talk' });
      await bridges.addChannel({ bridgeId: 'talk', channel: ids.join(',') });
      await waitFor('two ChannelConnectedLine events', () => connectedEvents().length === 2);
      for (const [index, id] of ids.entries()) {
        const event = connectedEvents().find((e) => e.channel.id === id);
        assert.ok(event, `ChannelConnectedLine for ${parties[index].name}`);
        const other = parties[1 - index];
        assert.deepEqual(event.channel.connected, other, `${parties[index].name} is connected to ${other.name}`);
        assert.deepEqual(event.channel.caller, parties[index]);
        const response = await fetch(`${sb.baseUrl}/ari/channels/${id}`, { headers: { authorization: basicAuth() } });
        const snapshot = (await response.json()) as { connected: Party };
        assert.deepEqual(snapshot.connected, other, 'GET /channels/{id} shows the connected line');
      }

      for (const channel of channels) await channel.hangup();
      const results = await Promise.all(calls);
      for (const result of results) assert.equal(result.code, 0, result.stdout.slice(-1500));
      await bridges.destroy({ bridgeId: 'quiet' });
      await bridges.destroy({ bridgeId: 'talk' });
    } finally {
      for (const phone of phones) phone.close();
      await Promise.allSettled(calls);
    }
  });
});
