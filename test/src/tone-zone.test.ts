/**
 * A channel's tone zone end to end: the caller's endpoint has `tone_zone = uk` in pjsip.conf, and
 * indications.conf defines the UK zone. `tone:ring` played to that channel (no `;tonezone=`) is the
 * UK ring, 400+450 Hz, not the default zone's 440+480 Hz: checked with a Goertzel filter on the
 * μ-law RTP the phone receives.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ulawToLinear } from '@switchboard/media';
import ari, { type AriChannel, type AriClient, type AriEvent, type AriOperation } from 'ari-client';
import { toneAmplitude } from './g722-peer.js';
import { API_PASSWORD, API_USER, type RunningSwitchboard, runSipp, startSwitchboard } from './harness.js';
import { RtpPeer } from './rtp-peer.js';

const INDICATIONS = `[general]
country = us

[us]
ring = 440+480/2000,0/4000

[uk]
description = United Kingdom
ring = 400+450/400,0/200,400+450/400,0/2000
`;

const waitFor = async (what: string, check: () => boolean, ms = 10_000) => {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

describe('channel tone zone', () => {
  let sb: RunningSwitchboard;
  let client: AriClient;

  before(async () => {
    sb = await startSwitchboard({ endpointLines: ['tone_zone = uk'], extraFiles: { 'indications.conf': INDICATIONS } });
    client = await ari.connect(sb.baseUrl, API_USER, API_PASSWORD);
  });

  after(async () => {
    client?.stop();
    await sb.stop();
  });

  it('tone:ring on a channel of a tone_zone=uk endpoint is the UK ring', { timeout: 60_000 }, async () => {
    const channelsApi = client.channels as Record<string, AriOperation>;
    const events: AriEvent[] = [];
    const channels: AriChannel[] = [];
    client.on('*', (event: AriEvent) => events.push(event));
    client.on('AppStart', (_event: AriEvent, channel: AriChannel) => {
      channels.push(channel);
      void channel.answer();
    });
    await client.start('demo');
    const phone = await RtpPeer.open();
    const call = runSipp(
      'uac-wait-bye.xml',
      { host: '127.0.0.1', port: sb.sipPort },
      {
        service: '100',
        keys: { rtpport: phone.port },
        timeoutSeconds: 40,
      },
    );
    try {
      await waitFor('the channel', () => channels.length === 1);
      await waitFor('answered', () => events.some((e) => e.type === 'ChannelStateChange'));
      const since = performance.now();
      await channelsApi.play({ channelId: channels[0].id, media: 'tone:ring', playbackId: 'zone-ring' });
      await waitFor('PlaybackStarted', () => events.some((e) => e.type === 'PlaybackStarted'));
      await waitFor('a second of tone', () => phone.packets.filter((p) => p.at >= since && p.payloadType === 0).length >= 50);
      const audio = phone.packets.filter((p) => p.at >= since && p.payloadType === 0);
      const samples = Int16Array.from(Buffer.concat(audio.map((p) => p.payload)), (code) => ulawToLinear(code));
      // The first 400 ms burst of the UK cadence (400 on, 200 off, 400 on, 2000 off).
      const burst = samples.subarray(0, 3200);
      const uk = Math.min(toneAmplitude(burst, 400, 8000), toneAmplitude(burst, 450, 8000));
      const us = Math.max(toneAmplitude(burst, 440, 8000), toneAmplitude(burst, 480, 8000));
      assert.ok(uk > 3000, `400 and 450 Hz are there (${uk.toFixed(0)})`);
      assert.ok(us < uk / 3, `440/480 Hz are not (${us.toFixed(0)} vs ${uk.toFixed(0)})`);
      // The gap after the first burst: 200 ms of silence at 400–600 ms.
      const gap = samples.subarray(3400, 4600);
      const gapLevel = Math.max(toneAmplitude(gap, 400, 8000), toneAmplitude(gap, 450, 8000));
      assert.ok(gapLevel < 300, `the UK cadence's 200 ms gap (${gapLevel.toFixed(0)})`);

      await channels[0].hangup();
      const result = await call;
      assert.equal(result.code, 0, result.stdout.slice(-1500));
    } finally {
      phone.close();
      await Promise.allSettled([call]);
    }
  });
});
