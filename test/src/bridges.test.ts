/**
 * Two real calls bridged by an application: sipp dials 100 twice, the application answers both,
 * puts them in a mixing bridge, plays a prompt to the bridge, records the bridge while one phone
 * sends a tone that the other must hear, and stores the recording.
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

describe('bridges with real calls', () => {
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

  it('bridges two calls, plays to the bridge, records it and carries audio between the phones', { timeout: 90_000 }, async () => {
    const bridges = client.bridges as Record<string, AriOperation>;
    const recordings = client.recordings as Record<string, AriOperation>;
    const events: AriEvent[] = [];
    const channels: AriChannel[] = [];
    client.on('*', (event: AriEvent) => events.push(event));
    client.on('AppStart', (_event: AriEvent, channel: AriChannel) => {
      channels.push(channel);
      void channel.answer();
    });
    await client.start('demo');

    const [phoneA, phoneB] = [await RtpPeer.open(), await RtpPeer.open()];
    const target = { host: '127.0.0.1', port: sb.sipPort };
    const calls = [phoneA, phoneB].map((phone) =>
      runSipp('uac-wait-bye.xml', target, { service: '100', keys: { rtpport: phone.port }, timeoutSeconds: 60 }),
    );
    try {
      await waitFor('two channels in the application', () => channels.length === 2);
      await waitFor('both answered', () => events.filter((e) => e.type === 'ChannelStateChange').length >= 2);

      const bridge = (await bridges.create({ type: 'mixing', name: 'e2e', bridgeId: 'e2e-bridge' })) as { id: string };
      assert.equal(bridge.id, 'e2e-bridge');
      await bridges.addChannel({ bridgeId: 'e2e-bridge', channel: channels.map((c) => c.id).join(',') });
      await waitFor('both entered', () => events.filter((e) => e.type === 'ChannelEnteredBridge').length === 2);
      const entered = events.filter((e) => e.type === 'ChannelEnteredBridge').at(-1) as AriEvent & { bridge: { channels: string[] } };
      assert.deepEqual([...entered.bridge.channels].sort(), channels.map((c) => c.id).sort());

      // A prompt into the bridge reaches both phones (and tells each where the server's leg is).
      const beforePlay = performance.now();
      await bridges.play({ bridgeId: 'e2e-bridge', media: 'sound:hello-world', playbackId: 'e2e-play' });
      await waitFor('PlaybackFinished', () =>
        events.some((e) => e.type === 'PlaybackFinished' && (e.playback as { id: string }).id === 'e2e-play'),
      );
      const started = events.find((e) => e.type === 'PlaybackStarted') as AriEvent & { playback: { target_uri: string } };
      assert.equal(started.playback.target_uri, 'bridge:e2e-bridge');
      assert.ok(phoneA.loudnessSince(beforePlay) > 300, 'phone A heard the prompt');
      assert.ok(phoneB.loudnessSince(beforePlay) > 300, 'phone B heard the prompt');

      const live = (await bridges.record({ bridgeId: 'e2e-bridge', name: 'e2e/bridge-call', format: 'wav' })) as { state: string };
      assert.equal(live.state, 'queued');
      await waitFor('RecordingStarted', () => events.some((e) => e.type === 'RecordingStarted'));

      // Phone A speaks (a 1 kHz tone); phone B hears it through the mix.
      const beforeTone = performance.now();
      await phoneA.sendTone(1000, 1000);
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.ok(phoneB.loudnessSince(beforeTone) > 300, `phone B heard phone A (${phoneB.loudnessSince(beforeTone).toFixed(0)})`);

      await recordings.stop({ recordingName: 'e2e/bridge-call' });
      await waitFor('RecordingFinished', () => events.some((e) => e.type === 'RecordingFinished'));
      const finished = events.find((e) => e.type === 'RecordingFinished') as AriEvent & {
        recording: { state: string; target_uri: string; duration?: number; total_duration: number };
      };
      assert.equal(finished.recording.state, 'done');
      assert.equal(finished.recording.target_uri, 'bridge:e2e-bridge');
      assert.ok(finished.recording.total_duration >= 1, `recorded ${finished.recording.total_duration} s`);
      // SPEC.md's name only; `duration` is the asterisk dialect's name for it.
      assert.equal(finished.recording.duration, undefined);

      const stored = (await recordings.listStored()) as { name: string; format: string }[];
      assert.deepEqual(
        stored.map(({ name, format }) => ({ name, format })),
        [{ name: 'e2e/bridge-call', format: 'wav' }],
      );
      const file = await fetch(`${sb.baseUrl}/ari/recordings/stored/${encodeURIComponent('e2e/bridge-call')}/file`, {
        headers: { authorization: basicAuth() },
      });
      assert.equal(file.status, 200);
      assert.equal(file.headers.get('content-type'), 'audio/wav');
      const bytes = Buffer.from(await file.arrayBuffer());
      assert.equal(bytes.subarray(0, 4).toString('latin1'), 'RIFF');
      assert.ok(bytes.length > 44 + 8000, `the file holds audio (${bytes.length} bytes)`);

      for (const channel of channels) await channel.hangup();
      const results = await Promise.all(calls);
      for (const result of results) assert.equal(result.code, 0, result.stdout.slice(-1500));
      await waitFor('both left', () => events.filter((e) => e.type === 'ChannelLeftBridge').length === 2);
      await bridges.destroy({ bridgeId: 'e2e-bridge' });
      await waitFor('BridgeDestroyed', () => events.some((e) => e.type === 'BridgeDestroyed'));
    } finally {
      phoneA.close();
      phoneB.close();
      await Promise.allSettled(calls);
    }
  });
});
