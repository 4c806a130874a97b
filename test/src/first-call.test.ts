/**
 * The first real call end to end: sipp dials 100, the dialplan hands the channel to an ari-client
 * application, which answers, plays hello-world and hangs up on PlaybackFinished. sipp sees 200 OK
 * then BYE, and a real RTP receiver hears about one packet per 20 ms of non-silent audio.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import ari, { type AriChannel, type AriClient, type AriEvent } from 'ari-client';
import { API_PASSWORD, API_USER, type RunningSwitchboard, runSipp, startSwitchboard } from './harness.js';
import { RtpReceiver, median, rms } from './rtp-receiver.js';

const WIRE_DATE = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}[+-]\d{4}$/;

describe('first call through every package', () => {
  let sb: RunningSwitchboard;
  let client: AriClient;

  before(async () => {
    sb = await startSwitchboard({ channelVars: ['FROM_TEST', 'CALLERID(num)', 'CHANNEL(language)'] });
    client = await ari.connect(sb.baseUrl, API_USER, API_PASSWORD);
  });

  after(async () => {
    client?.stop();
    const { code, ms } = await sb.stop();
    assert.equal(code, 0, 'server exits 0 on SIGTERM');
    assert.ok(ms < 5000, `server stopped in ${ms} ms`);
  });

  it('an application answers, plays a prompt and hangs up; the caller hears it', { timeout: 60_000 }, async () => {
    const events: AriEvent[] = [];
    const record = (event: AriEvent) => events.push(event);
    const onStart = (_event: AriEvent, channel: AriChannel) => {
      void (async () => {
        await channel.answer();
        const playback = client.Playback();
        client.on('PlaybackFinished', (finished: AriEvent) => {
          if ((finished.playback as { id: string }).id === playback.id) void channel.hangup();
        });
        await channel.play({ media: 'sound:hello-world' }, playback);
      })();
    };
    client.on('*', record);
    client.on('AppStart', onStart);
    await client.start('demo');

    const rtp = await RtpReceiver.open();
    try {
      const sipp = await runSipp(
        'uac-wait-bye.xml',
        { host: '127.0.0.1', port: sb.sipPort },
        { service: '100', keys: { rtpport: rtp.port } },
      );
      assert.equal(sipp.code, 0, `sipp failed:\n${sipp.stdout.slice(-2000)}\n${sipp.stderr}`);

      const types = events.map((e) => e.type);
      for (const expected of ['AppStart', 'ChannelStateChange', 'PlaybackStarted', 'PlaybackFinished', 'AppEnd', 'ChannelDestroyed']) {
        assert.ok(types.includes(expected), `missing ${expected} in ${types.join(',')}`);
      }
      assert.ok(types.indexOf('AppStart') < types.indexOf('PlaybackStarted'));
      assert.ok(types.indexOf('PlaybackFinished') < types.indexOf('AppEnd'));
      for (const event of events) {
        assert.match(event.timestamp, WIRE_DATE, `${event.type} timestamp`);
        assert.equal(event.application, 'demo');
        assert.match(event.asterisk_id, /^([0-9a-f]{2}:){5}[0-9a-f]{2}$/);
      }
      const start = events.find((e) => e.type === 'AppStart') as AriEvent & { args: string[]; channel: Record<string, unknown> };
      assert.deepEqual(start.args, ['from-sip']);
      const channel = start.channel;
      assert.match(String(channel.name), /^SIP\/local-phone-[0-9a-f]{8}$/);
      assert.equal((channel.dialplan as { exten: string }).exten, '100');
      assert.equal((channel.dialplan as { app_name: string }).app_name, 'App');
      assert.equal(channel.language, 'en');
      // channelvars entries written as dialplan functions carry their values.
      assert.deepEqual(channel.channelvars, { FROM_TEST: '', 'CALLERID(num)': 'caller', 'CHANNEL(language)': 'en' });
      assert.equal((channel.caller as { name: string }).name, 'SIPp Caller');
      const up = events.find((e) => e.type === 'ChannelStateChange') as AriEvent & { channel: { state: string } };
      assert.equal(up.channel.state, 'Up');
      const finished = events.find((e) => e.type === 'PlaybackFinished') as AriEvent & { playback: { state: string; media_uri: string } };
      assert.equal(finished.playback.state, 'complete');
      assert.equal(finished.playback.media_uri, 'sound:hello-world');

      // hello-world is 0.84 s: about 42 packets of 20 ms.
      const packets = rtp.packets;
      assert.ok(packets.length >= 35 && packets.length <= 50, `received ${packets.length} RTP packets`);
      assert.ok(
        packets.every((p) => p.payloadType === 0),
        'PCMU was negotiated',
      );
      assert.ok(packets[0].marker, 'marker bit on the first packet');
      for (let i = 1; i < packets.length; i++) {
        assert.equal((packets[i].sequence - packets[i - 1].sequence) & 0xffff, 1, 'sequence +1');
        assert.equal((packets[i].timestamp - packets[i - 1].timestamp) >>> 0, 160, 'timestamp +160');
        assert.equal(packets[i].ssrc, packets[0].ssrc, 'one SSRC');
      }
      const gap = median(rtp.gaps());
      assert.ok(gap > 15 && gap < 25, `median inter-packet gap ${gap.toFixed(2)} ms`);
      assert.ok(rms(packets.map((p) => p.payload)) > 300, 'audio is not silence');
    } finally {
      client.removeListener('*', record);
      client.removeListener('AppStart', onStart);
      rtp.close();
    }
  });

  it('lists the live channel through the API while the application holds it', { timeout: 30_000 }, async () => {
    let seen: unknown[] = [];
    const handler = (_event: AriEvent, channel: AriChannel) => {
      void (async () => {
        await channel.answer();
        seen = (await client.channels.list()) as unknown[];
        await channel.hangup();
      })();
    };
    client.on('AppStart', handler);
    const rtp = await RtpReceiver.open();
    try {
      const sipp = await runSipp(
        'uac-wait-bye.xml',
        { host: '127.0.0.1', port: sb.sipPort },
        { service: '100', keys: { rtpport: rtp.port } },
      );
      assert.equal(sipp.code, 0, sipp.stdout.slice(-2000));
      assert.equal(seen.length, 1);
      const listed = seen[0] as { name: string; state: string };
      assert.match(listed.name, /^SIP\/local-phone-/);
      assert.equal(listed.state, 'Up');
    } finally {
      client.removeListener('AppStart', handler);
      rtp.close();
    }
  });
});
