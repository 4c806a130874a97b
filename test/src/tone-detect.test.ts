/**
 * Tone detection on a real call (reference events.md ChannelToneDetected): an application sets
 * TONE_DETECT(1000,300) on its channel; the phone sends a 1 kHz tone over RTP and the application
 * hears ChannelToneDetected once; a 600 Hz tone is not reported; TONE_DETECT(remove) stops it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import WebSocket from 'ws';
import { API_PASSWORD, API_USER, basicAuth, type RunningSwitchboard, runSipp, startSwitchboard } from './harness.js';
import { RtpPeer } from './rtp-peer.js';

type Event = { type: string; channel?: { id: string }; [field: string]: unknown };

const waitFor = async (what: string, check: () => boolean, ms = 10_000) => {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

describe('ChannelToneDetected', () => {
  let sb: RunningSwitchboard;
  const api = (method: string, path: string) => fetch(`${sb.baseUrl}/ari${path}`, { method, headers: { authorization: basicAuth() } });

  before(async () => {
    sb = await startSwitchboard();
  });
  after(async () => {
    await sb.stop();
  });

  it('reports a 1 kHz tone sent by the phone, not another frequency', { timeout: 60_000 }, async () => {
    const socket = new WebSocket(`ws://127.0.0.1:${sb.httpPort}/ari/events?app=demo&api_key=${API_USER}:${API_PASSWORD}`);
    const events: Event[] = [];
    socket.on('message', (data: Buffer) => events.push(JSON.parse(data.toString()) as Event));
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
    });
    const phone = await RtpPeer.open();
    try {
      const call = runSipp('uac-wait-bye.xml', { host: '127.0.0.1', port: sb.sipPort }, { service: '100', keys: { rtpport: phone.port } });
      await waitFor('AppStart', () => events.some((e) => e.type === 'AppStart'));
      const id = (events.find((e) => e.type === 'AppStart')?.channel as { id: string }).id;
      assert.equal((await api('POST', `/channels/${id}/answer`)).status, 204);
      const variable = encodeURIComponent('TONE_DETECT(1000,300)');
      assert.equal((await api('POST', `/channels/${id}/variable?variable=${variable}&value=`)).status, 204);
      assert.equal((await api('POST', `/channels/${id}/variable?variable=${encodeURIComponent('TONE_DETECT(x)')}&value=`)).status, 400);
      // The server sends silence so the phone learns where its RTP goes.
      assert.equal((await api('POST', `/channels/${id}/silence`)).status, 204);
      await waitFor('RTP from the server', () => phone.remote !== undefined);

      await phone.sendTone(600, 600);
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.ok(!events.some((e) => e.type === 'ChannelToneDetected'), 'a 600 Hz tone is not the one asked for');
      await phone.sendTone(1000, 800);
      await waitFor('ChannelToneDetected', () => events.some((e) => e.type === 'ChannelToneDetected'));
      const detected = events.filter((e) => e.type === 'ChannelToneDetected');
      assert.equal(detected.length, 1, 'one report per tone');
      assert.equal(detected[0]?.channel?.id, id);

      assert.equal(
        (await api('POST', `/channels/${id}/variable?variable=${encodeURIComponent('TONE_DETECT(remove)')}&value=`)).status,
        204,
      );
      await phone.sendTone(1000, 800);
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.equal(events.filter((e) => e.type === 'ChannelToneDetected').length, 1, 'removed: no more reports');

      assert.equal((await api('DELETE', `/channels/${id}`)).status, 204);
      assert.equal((await call).code, 0);
    } finally {
      phone.close();
      socket.close();
    }
  });
});
