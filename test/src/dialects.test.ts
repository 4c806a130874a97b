/**
 * Dialects: an application written against the reference's names (StasisStart, `client.asterisk`,
 * playback state `done`, `PJSIP/` channel names, LiveRecording `duration`) runs a whole call
 * through a user with `dialect = asterisk`, while a second application, connected as a user in
 * SPEC.md's dialect, owns the other leg of the same bridged call and sees AppStart/AppEnd. The
 * second application speaks plain HTTP and WebSocket: ari-client keeps its credentials in a
 * process-wide registry, so two of its clients in one process cannot be two users.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import ari, { type AriChannel, type AriClient, type AriEvent, type AriOperation } from 'ari-client';
import WebSocket from 'ws';
import { basicAuth, type RunningSwitchboard, runSipp, startSwitchboard } from './harness.js';
import { RtpPeer } from './rtp-peer.js';

const waitFor = async (what: string, check: () => boolean, ms = 15_000) => {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

const ARI_CONF = `[general]
enabled = yes

[classic]
type = user
password = classic-pass
dialect = asterisk

[modern]
type = user
password = modern-pass
`;

const DIALPLAN = `
exten => 300,1,Stasis(ref-app,inbound)
 same => n,Hangup()
exten => 301,1,App(observer)
 same => n,Hangup()
`;

/**
 * The application as its author wrote it from the reference: nothing in it names Switchboard's
 * own words. It answers, plays a prompt, waits for `done`, bridges its caller with the other
 * call, records the bridge for a second and hangs up both.
 */
function referenceApplication(client: AriClient): void {
  const channels = client.channels as Record<string, AriOperation>;
  const bridges = client.bridges as Record<string, AriOperation>;
  client.on('StasisStart', (_event: AriEvent, channel: AriChannel) => {
    void (async () => {
      await channel.answer();
      const playback = client.Playback();
      client.on('PlaybackFinished', (finished: AriEvent) => {
        const played = finished.playback as { id: string; state: string };
        if (played.id !== playback.id || played.state !== 'done') return;
        void (async () => {
          const all = (await channels.list()) as { id: string; name: string }[];
          const other = all.find((c) => c.id !== channel.id && c.name.startsWith('PJSIP/'));
          if (!other) return;
          const bridge = (await bridges.create({ type: 'mixing', bridgeId: 'ref-bridge' })) as { id: string };
          await bridges.addChannel({ bridgeId: bridge.id, channel: `${channel.id},${other.id}` });
          await bridges.record({ bridgeId: bridge.id, name: 'ref/call', format: 'wav', maxDurationSeconds: 1 });
        })();
      });
      client.on('RecordingFinished', () => {
        void (async () => {
          const all = (await channels.list()) as { id: string }[];
          for (const c of all) await channels.hangup({ channelId: c.id });
        })();
      });
      await channel.play({ media: 'sound:hello-world' }, playback);
    })();
  });
}

/** The second application, in SPEC.md's names: answers the channels that enter it. */
async function observerApplication(sb: RunningSwitchboard, app: string, events: AriEvent[]): Promise<WebSocket> {
  const auth = { authorization: basicAuth('modern', 'modern-pass') };
  const socket = new WebSocket(`ws://127.0.0.1:${sb.httpPort}/ari/events?app=${app}`, { headers: auth });
  socket.on('message', (data) => {
    const event = JSON.parse(String(data)) as AriEvent;
    events.push(event);
    if (event.type === 'AppStart') {
      const id = (event.channel as { id: string }).id;
      void fetch(`${sb.baseUrl}/ari/channels/${id}/answer`, { method: 'POST', headers: auth });
    }
  });
  await new Promise((resolve, reject) => {
    socket.once('open', resolve);
    socket.once('error', reject);
  });
  return socket;
}

describe('dialects per API user', () => {
  let sb: RunningSwitchboard;
  let classic: AriClient;
  let observer: WebSocket | undefined;

  before(async () => {
    sb = await startSwitchboard({ dialplan: DIALPLAN, extraFiles: { 'ari.conf': ARI_CONF } });
    classic = await ari.connect(sb.baseUrl, 'classic', 'classic-pass');
  });

  after(async () => {
    classic?.stop();
    observer?.close();
    await sb.stop();
  });

  it('a reference-named application and a SPEC-named one share one bridged call', { timeout: 90_000 }, async () => {
    // The reference's resource is there under its own name.
    const asterisk = classic.asterisk as Record<string, AriOperation>;
    const info = (await asterisk.getInfo({ only: 'system' })) as { system: { entity_id: string } };
    assert.match(info.system.entity_id, /^([0-9a-f]{2}:){5}[0-9a-f]{2}$/);
    assert.equal(((await asterisk.ping()) as { ping: string }).ping, 'pong');
    assert.equal(classic.system, undefined, 'the asterisk dialect has no system resource');
    const specListing = await fetch(`${sb.baseUrl}/ari/api-docs/resources.json`, {
      headers: { authorization: basicAuth('modern', 'modern-pass') },
    });
    const listed = ((await specListing.json()) as { apis: { path: string }[] }).apis.map((a) => a.path);
    assert.ok(listed.includes('/api-docs/system.{format}') && !listed.includes('/api-docs/asterisk.{format}'));

    const refEvents: AriEvent[] = [];
    const observed: AriEvent[] = [];
    classic.on('*', (event: AriEvent) => refEvents.push(event));
    referenceApplication(classic);
    await classic.start('ref-app');
    observer = await observerApplication(sb, 'observer', observed);

    const [phoneA, phoneB] = [await RtpPeer.open(), await RtpPeer.open()];
    const target = { host: '127.0.0.1', port: sb.sipPort };
    try {
      const observerCall = runSipp('uac-wait-bye.xml', target, { service: '301', keys: { rtpport: phoneB.port }, timeoutSeconds: 60 });
      await waitFor('AppStart in the observer', () => observed.some((e) => e.type === 'AppStart'));
      const refCall = runSipp('uac-wait-bye.xml', target, { service: '300', keys: { rtpport: phoneA.port }, timeoutSeconds: 60 });
      const [a, b] = await Promise.all([refCall, observerCall]);
      const seen = () => `reference saw ${refEvents.map((e) => e.type).join(',')}; observer saw ${observed.map((e) => e.type).join(',')}`;
      assert.equal(a.code, 0, `reference call failed; ${seen()}\n${a.stderr.slice(-1500)}`);
      assert.equal(b.code, 0, `observer call: ${b.stdout.slice(-1500)}`);
      await waitFor('StasisEnd', () => refEvents.some((e) => e.type === 'StasisEnd'));
      await waitFor('AppEnd', () => observed.some((e) => e.type === 'AppEnd'));

      const refTypes = refEvents.map((e) => e.type);
      for (const expected of [
        'StasisStart',
        'PlaybackStarted',
        'PlaybackFinished',
        'ChannelEnteredBridge',
        'RecordingStarted',
        'RecordingFinished',
        'StasisEnd',
      ]) {
        assert.ok(refTypes.includes(expected), `reference application missed ${expected}: ${refTypes.join(',')}`);
      }
      assert.ok(!refTypes.includes('AppStart') && !refTypes.includes('AppEnd'));
      const start = refEvents.find((e) => e.type === 'StasisStart') as AriEvent & {
        args: string[];
        channel: { name: string; dialplan: { app_name: string } };
      };
      assert.deepEqual(start.args, ['inbound']);
      assert.match(start.channel.name, /^PJSIP\/local-phone-/);
      assert.equal(start.channel.dialplan.app_name, 'Stasis');
      const finished = refEvents.find((e) => e.type === 'PlaybackFinished') as AriEvent & { playback: { state: string } };
      assert.equal(finished.playback.state, 'done');
      const recorded = refEvents.find((e) => e.type === 'RecordingFinished') as AriEvent & { recording: Record<string, unknown> };
      assert.equal(typeof recorded.recording.duration, 'number');
      assert.equal(recorded.recording.total_duration, undefined);
      // The reference application saw the other leg under the reference's technology name.
      const entered = refEvents.filter((e) => e.type === 'ChannelEnteredBridge') as (AriEvent & { channel: { name: string } })[];
      assert.ok(entered.length >= 1 && entered.every((e) => e.channel.name.startsWith('PJSIP/')));

      const observedTypes = observed.map((e) => e.type);
      for (const expected of ['AppStart', 'ChannelEnteredBridge', 'ChannelLeftBridge', 'AppEnd']) {
        assert.ok(observedTypes.includes(expected), `observer missed ${expected}: ${observedTypes.join(',')}`);
      }
      assert.ok(!observedTypes.includes('StasisStart') && !observedTypes.includes('StasisEnd'));
      const appStart = observed.find((e) => e.type === 'AppStart') as AriEvent & {
        channel: { name: string; dialplan: { app_name: string } };
      };
      assert.match(appStart.channel.name, /^SIP\/local-phone-/);
      assert.equal(appStart.channel.dialplan.app_name, 'App');
      // Both saw the same bridge, each in its own names.
      const seenBridge = observed.find((e) => e.type === 'ChannelEnteredBridge') as AriEvent & { bridge: { id: string } };
      assert.equal(seenBridge.bridge.id, 'ref-bridge');
    } finally {
      phoneA.close();
      phoneB.close();
    }
  });

  it('module reload res_ari changes the dialect of a user for the next request', { timeout: 30_000 }, async () => {
    const modern = { authorization: basicAuth('modern', 'modern-pass') };
    const listing = async () =>
      ((await (await fetch(`${sb.baseUrl}/ari/api-docs/resources.json`, { headers: modern })).json()) as { apis: { path: string }[] })
        .apis[0]?.path;
    assert.equal(await listing(), '/api-docs/system.{format}');
    writeFileSync(join(sb.confDir, 'ari.conf'), `${ARI_CONF}dialect = asterisk\n`);
    const reload = await fetch(`${sb.baseUrl}/ari/system/modules/res_ari`, { method: 'PUT', headers: modern });
    assert.equal(reload.status, 204);
    assert.equal(await listing(), '/api-docs/asterisk.{format}');
    writeFileSync(join(sb.confDir, 'ari.conf'), `${ARI_CONF}dialect = klingon\n`);
    const refused = await fetch(`${sb.baseUrl}/ari/asterisk/modules/res_ari`, { method: 'PUT', headers: modern });
    assert.equal(refused.status, 409, 'an unusable file changes nothing');
    assert.equal(await listing(), '/api-docs/asterisk.{format}');
  });
});
