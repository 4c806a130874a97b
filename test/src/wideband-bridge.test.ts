/**
 * Wideband mixing end to end: three real G.722 calls (sipp signalling, real UDP RTP) in one mixing
 * bridge. The bridge mixes at 16 kHz, so the 6 kHz tone one phone sends reaches the other two,
 * which an 8 kHz mix cannot carry, and the sender does not hear itself (minus-one).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import ari, { type AriChannel, type AriClient, type AriEvent, type AriOperation } from 'ari-client';
import { G722Peer, toneAmplitude } from './g722-peer.js';
import { API_PASSWORD, API_USER, type RunningSwitchboard, runSipp, startSwitchboard } from './harness.js';

const waitFor = async (what: string, check: () => boolean, ms = 10_000) => {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

/** The decoded audio a phone received from `since` on (performance.now() time), settled 200 ms in. */
function heardSince(phone: G722Peer, since: number): Int16Array {
  const { samples, packetAt } = phone.decoded();
  const first = packetAt.findIndex((at) => at >= since + 200);
  if (first < 0) return new Int16Array(0);
  return samples.subarray(first * 320);
}

describe('wideband mixing bridge with real G.722 calls', () => {
  let sb: RunningSwitchboard;
  let client: AriClient;

  before(async () => {
    sb = await startSwitchboard({ endpointLines: ['allow = g722'] });
    client = await ari.connect(sb.baseUrl, API_USER, API_PASSWORD);
  });

  after(async () => {
    client?.stop();
    await sb.stop();
  });

  it('G.722 phones in a 3-party mixing bridge hear each other above 4 kHz, not themselves', { timeout: 90_000 }, async () => {
    const bridges = client.bridges as Record<string, AriOperation>;
    const events: AriEvent[] = [];
    const channels: AriChannel[] = [];
    client.on('*', (event: AriEvent) => events.push(event));
    client.on('AppStart', (_event: AriEvent, channel: AriChannel) => {
      channels.push(channel);
      void channel.answer();
    });
    await client.start('demo');

    const phones = [await G722Peer.open(), await G722Peer.open(), await G722Peer.open()];
    const target = { host: '127.0.0.1', port: sb.sipPort };
    const calls = phones.map((phone) =>
      runSipp('uac-wait-bye-g722.xml', target, { service: '100', keys: { rtpport: phone.port }, timeoutSeconds: 60 }),
    );
    try {
      await waitFor('three channels in the application', () => channels.length === 3);
      await waitFor('all answered', () => events.filter((e) => e.type === 'ChannelStateChange').length >= 3);
      await bridges.create({ type: 'mixing', bridgeId: 'wide' });
      await bridges.addChannel({ bridgeId: 'wide', channel: channels.map((c) => c.id).join(',') });
      await waitFor('all entered', () => events.filter((e) => e.type === 'ChannelEnteredBridge').length === 3);
      // The mix is sent to every member from the first tick: each phone learns where its leg is.
      await waitFor('every phone hears its leg', () => phones.every((p) => p.remote !== undefined));
      assert.ok(
        phones.every((p) => p.packets.some((packet) => packet.payloadType === 9)),
        'the server sends G.722 (payload type 9)',
      );

      const [talker, first, second] = phones;
      const since = performance.now();
      await talker.sendTones([6000, 1000], 1500);
      await new Promise((resolve) => setTimeout(resolve, 200));

      for (const [name, phone] of [
        ['second phone', first],
        ['third phone', second],
      ] as const) {
        const heard = heardSince(phone, since);
        assert.ok(heard.length >= 16000, `${name} received a second of audio (${heard.length} samples)`);
        const high = toneAmplitude(heard, 6000, 16000);
        const low = toneAmplitude(heard, 1000, 16000);
        assert.ok(high > 1500, `${name} hears the 6 kHz tone (amplitude ${high.toFixed(0)}; 8 kHz mixing would leave ~0)`);
        assert.ok(low > 1500, `${name} hears the 1 kHz tone (amplitude ${low.toFixed(0)})`);
      }
      const self = heardSince(talker, since);
      const echo = toneAmplitude(self, 6000, 16000);
      assert.ok(echo < 150, `the talker does not hear itself (6 kHz amplitude ${echo.toFixed(0)})`);

      for (const channel of channels) await channel.hangup();
      const results = await Promise.all(calls);
      for (const result of results) assert.equal(result.code, 0, result.stdout.slice(-1500));
      await bridges.destroy({ bridgeId: 'wide' });
    } finally {
      for (const phone of phones) phone.close();
      await Promise.allSettled(calls);
    }
  });
});
