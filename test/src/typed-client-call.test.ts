/**
 * The typed client (@switchboard/client, generated from /ari/openapi.json) drives a whole call:
 * a sipp caller reaches the application, which answers it, bridges it, plays a tone the caller's
 * RTP must carry, and hangs it up. Midway the events connection is dropped; the client reconnects
 * with ?resume= and the stream goes on with nothing lost or repeated.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AriError, type AriEvent, type ClientOptions, createApi, EventStream } from '@switchboard/client';
import { API_PASSWORD, API_USER, type RunningSwitchboard, runSipp, startSwitchboard } from './harness.js';
import { RtpPeer } from './rtp-peer.js';

async function waitFor(what: string, check: () => boolean, ms = 10_000): Promise<void> {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('the typed client', () => {
  let sb: RunningSwitchboard;
  let options: ClientOptions;

  before(async () => {
    sb = await startSwitchboard();
    options = { baseUrl: sb.baseUrl, username: API_USER, password: API_PASSWORD };
  });
  after(async () => {
    await sb?.stop();
  });

  it(
    'answers, bridges, plays to and hangs up a sipp call, resuming its events across a dropped connection',
    { timeout: 60_000 },
    async () => {
      const api = createApi(options);
      const events = new EventStream(options, ['demo'], { reconnectIntervalMs: 100 });
      const seen: AriEvent[] = [];
      events.on('*', (event) => seen.push(event));
      await events.open();
      const phone = await RtpPeer.open();
      const call = runSipp(
        'uac-wait-bye.xml',
        { host: '127.0.0.1', port: sb.sipPort },
        { service: '100', keys: { rtpport: phone.port }, timeoutSeconds: 40 },
      );
      try {
        const start = await events.next('AppStart');
        const channelId = start.channel.id; // typed: AppStart.channel is a Channel
        assert.deepEqual(start.args, ['from-sip']);
        // Waiters are set before the request: an event may arrive before the request's answer.
        const up = events.next('ChannelStateChange', (e) => e.channel.id === channelId && e.channel.state === 'Up');
        await api.channels.answer({ channelId });
        await up;

        const bridge = await api.bridges.create({ type: 'mixing' });
        const enters = events.next('ChannelEnteredBridge', (e) => e.bridge.id === bridge.id);
        await api.bridges.addChannel({ bridgeId: bridge.id, channel: [channelId] });
        const entered = await enters;
        assert.ok(entered.bridge.channels.includes(channelId));

        const since = performance.now();
        const started = events.next('PlaybackStarted', (e) => e.playback.target_uri === `bridge:${bridge.id}`);
        const playback = await api.bridges.play({ bridgeId: bridge.id, media: ['tone:ring'] });
        assert.equal(playback.media_uri, 'tone:ring');
        assert.equal((await started).playback.id, playback.id);
        await waitFor('the tone at the caller', () => phone.packets.filter((p) => p.at >= since).length >= 25);
        assert.ok(phone.loudnessSince(since) > 500, `the caller hears the tone (${phone.loudnessSince(since).toFixed(0)})`);
        await api.playbacks.stop({ playbackId: playback.id });

        // Drop the events connection; what happens meanwhile arrives after the resume.
        events.interrupt();
        const replayed = events.next('ChannelVarset', (e) => e.variable === 'WHILE_AWAY');
        await api.channels.setChannelVar({ channelId, variable: 'WHILE_AWAY', value: 'yes' });
        const varset = await replayed;
        assert.equal(varset.value, 'yes');

        await assert.rejects(
          api.channels.get({ channelId: 'no-such-channel' }),
          (err: unknown) => err instanceof AriError && err.status === 404,
        );

        const destroyed = events.next('ChannelDestroyed', (e) => e.channel.id === channelId);
        const ended = events.next('AppEnd', (e) => e.channel.id === channelId);
        await api.channels.hangup({ channelId });
        await Promise.all([destroyed, ended]);
        await api.bridges.destroy({ bridgeId: bridge.id });
        const result = await call;
        assert.equal(result.code, 0, result.stdout.slice(-1500));

        const numbered = seen.filter((e) => e.application === 'demo' && e.sequence !== undefined).map((e) => e.sequence as number);
        assert.deepEqual(
          numbered,
          numbered.map((_, i) => (numbered[0] as number) + i),
          'every event once, in order, across the reconnect',
        );
        assert.equal(
          seen.some((e) => e.type === 'EventsLost'),
          false,
        );
      } finally {
        events.close();
        phone.close();
        await Promise.allSettled([call]);
      }
    },
  );
});
