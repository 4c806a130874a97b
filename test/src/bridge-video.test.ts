/**
 * Video in bridges with real calls: sipp places the calls (an offer with PCMU audio and VP8 video
 * whose media ports are the test's own sockets), an application puts them in ARI bridges, and
 * each phone sends fake VP8 RTP with its own SSRC. Checked on the wire: video_sfu gives every
 * phone the other phones' video and never its own; video_single gives everyone but the source the
 * source's video in one continuous stream, and asks a new source for a keyframe; a phone that
 * leaves stops getting and giving video; an endpoint without video codecs refuses m=video with
 * port 0; each phone gets video RTCP reports from the server about its own streams. Two media
 * workers, so some legs reach their bridge across workers.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import ari, { type AriChannel, type AriClient, type AriEvent, type AriOperation } from 'ari-client';
import { API_PASSWORD, API_USER, REPO_ROOT, type RunningSwitchboard, type SippResult, runSipp, startSwitchboard } from './harness.js';
import { RtpPeer } from './rtp-peer.js';
import type { ReceivedPacket } from './rtp-receiver.js';
import { VideoPeer } from './video-peer.js';

const waitFor = async (what: string, check: () => boolean, ms = 10_000) => {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A video endpoint for calls from 127.0.0.1, an audio-only one for calls from 127.0.0.2. */
function pjsipConf(sipPort: number): string {
  return [
    '[transport-udp]\ntype = transport\nprotocol = udp',
    `bind = 127.0.0.1:${sipPort}\n`,
    '[video-phone]\ntype = endpoint\ncontext = from-internal\ndisallow = all\nallow = ulaw,vp8,h264\n',
    '[video-phone]\ntype = identify\nendpoint = video-phone\nmatch = 127.0.0.1\n',
    '[audio-phone]\ntype = endpoint\ncontext = from-internal\ndisallow = all\nallow = ulaw\n',
    '[audio-phone]\ntype = identify\nendpoint = audio-phone\nmatch = 127.0.0.2\n',
  ].join('\n');
}

interface Phone {
  audio: RtpPeer;
  video: VideoPeer;
  portFile: string;
  call: Promise<SippResult>;
  /** The server's video port from the 200 OK (0: refused). */
  serverVideoPort: number;
  /** The sipp run, once it ended. */
  ended: SippResult | undefined;
}

describe('bridge video with real calls', () => {
  let sb: RunningSwitchboard;
  let client: AriClient;
  let scratch = '';

  before(async () => {
    sb = await startSwitchboard();
    writeFileSync(join(sb.confDir, 'pjsip.conf'), pjsipConf(sb.sipPort));
    const general = readFileSync(join(sb.confDir, 'switchboard.conf'), 'utf8').replace('mediaworkers = 1', 'mediaworkers = 2');
    writeFileSync(join(sb.confDir, 'switchboard.conf'), general);
    await sb.restart();
    client = await ari.connect(sb.baseUrl, API_USER, API_PASSWORD);
    scratch = mkdtempSync(join(tmpdir(), 'switchboard-video-'));
  });

  after(async () => {
    client?.stop();
    await sb.stop();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('forwards video in video_sfu and video_single bridges, and refuses it for audio-only endpoints', { timeout: 120_000 }, async () => {
    assert.ok(existsSync(join(REPO_ROOT, 'test/sipp/uac-video-wait-bye.xml')));
    const bridges = client.bridges as Record<string, AriOperation>;
    const events: AriEvent[] = [];
    const channels: AriChannel[] = [];
    client.on('*', (event: AriEvent) => events.push(event));
    client.on('AppStart', (_event: AriEvent, channel: AriChannel) => {
      channels.push(channel);
      void channel.answer();
    });
    await client.start('demo');
    const target = { host: '127.0.0.1', port: sb.sipPort };
    const phones: Phone[] = [];
    const dial = async (name: string, fromAddress?: string): Promise<Phone> => {
      const audio = await RtpPeer.open();
      const video = await VideoPeer.open(96);
      const portFile = join(scratch, `${name}.vport`);
      const call = runSipp('uac-video-wait-bye.xml', target, {
        service: '100',
        keys: { rtpport: audio.port, videoport: video.port, videopt: 96, vportfile: portFile },
        timeoutSeconds: 100,
        ...(fromAddress === undefined ? {} : { extra: ['-i', fromAddress] }),
      });
      const phone: Phone = { audio, video, portFile, call, serverVideoPort: -1, ended: undefined };
      void call.then((result) => {
        phone.ended = result;
      });
      phones.push(phone);
      return phone;
    };
    const answered = async (phone: Phone): Promise<void> => {
      await waitFor(
        `the answer of ${phone.portFile}`,
        () => existsSync(phone.portFile) && readFileSync(phone.portFile, 'utf8').trim() !== '',
      );
      // The file holds the port, then the whole m=video match.
      phone.serverVideoPort = Number(readFileSync(phone.portFile, 'utf8').trim().split(/\s+/)[0]);
    };
    /** Every phone sends `count` packets at once; returns what each received meanwhile. */
    const exchange = async (senders: Phone[], everyone: Phone[], count: number): Promise<ReceivedPacket[][]> => {
      for (const phone of everyone) phone.video.take();
      await Promise.all(senders.map((phone) => phone.video.send(phone.serverVideoPort, count)));
      await sleep(300);
      return everyone.map((phone) => phone.video.take());
    };
    const ssrcs = (packets: ReceivedPacket[]) => [...new Set(packets.map((p) => p.ssrc))].sort();

    try {
      // An endpoint that allows no video codec answers the video offer with port 0.
      const audioOnly = await dial('audio-only', '127.0.0.2');
      await answered(audioOnly);
      assert.equal(audioOnly.serverVideoPort, 0, 'm=video refused with port 0');
      await waitFor('the audio-only channel', () => channels.length === 1);
      await channels[0].hangup();
      const audioOnlyResult = await audioOnly.call;
      assert.equal(audioOnlyResult.code, 0, audioOnlyResult.stdout.slice(-1500));
      channels.length = 0;

      // One call at a time, so that the application's channels come in the phones' order.
      const legs: Phone[] = [];
      for (const name of ['a', 'b', 'c']) {
        const phone = await dial(name);
        await answered(phone);
        assert.ok(phone.serverVideoPort > 0 && phone.serverVideoPort % 2 === 0, `video accepted for ${name}`);
        legs.push(phone);
        await waitFor(`channel of ${name}`, () => channels.length === legs.length);
      }
      const [a, b, c] = legs;
      const ids = channels.map((ch) => ch.id);

      // ── video_sfu: everyone sees the two others, never itself ─────────────────────────────
      await bridges.create({ type: 'mixing,video_sfu', bridgeId: 'sfu' });
      await bridges.addChannel({ bridgeId: 'sfu', channel: ids.join(',') });
      await waitFor('three entered', () => events.filter((e) => e.type === 'ChannelEnteredBridge').length === 3);
      const sfu = await exchange([a, b, c], [a, b, c], 20);
      for (const [index, phone] of [a, b, c].entries()) {
        const others = [a, b, c].filter((other) => other !== phone).map((other) => other.video.ssrc);
        assert.deepEqual(ssrcs(sfu[index]), others.sort(), `phone ${index} sees the two others`);
        assert.ok(sfu[index].length >= 36, `phone ${index} got ${sfu[index].length} packets`);
        assert.ok(sfu[index].every((p) => p.payloadType === 96));
      }
      const [chanA, chanB, chanC] = ids;
      await bridges.removeChannel({ bridgeId: 'sfu', channel: chanC });
      await waitFor('c left', () => events.filter((e) => e.type === 'ChannelLeftBridge').length === 1);
      const afterLeave = await exchange([a, b, c], [a, b, c], 10);
      assert.deepEqual(ssrcs(afterLeave[0]), [b.video.ssrc], 'a sees only b once c left');
      assert.deepEqual(ssrcs(afterLeave[1]), [a.video.ssrc], 'b sees only a once c left');
      assert.equal(afterLeave[2].length, 0, 'c gets no video once it left');

      // ── video_single: the source's video to everyone else ───────────────────────────────
      await bridges.create({ type: 'mixing,video_single', bridgeId: 'single' });
      await bridges.addChannel({ bridgeId: 'single', channel: [chanA, chanB, chanC].join(',') });
      await waitFor('three in the single bridge', () => events.filter((e) => e.type === 'ChannelEnteredBridge').length === 6);
      // Before a source is set the bridge follows the talker, which starts on the first member (a);
      // setting a explicitly changes nothing the phones see.
      await bridges.setVideoSource({ bridgeId: 'single', channelId: chanA });
      await waitFor('BridgeVideoSourceChanged', () => events.some((e) => e.type === 'BridgeVideoSourceChanged'));
      const first = await exchange([a, b, c], [a, b, c], 10);
      assert.equal(first[0].length, 0, 'the source receives nothing');
      for (const index of [1, 2]) {
        assert.equal(first[index].length, 10, `phone ${index} got the source's 10 packets`);
        assert.equal(ssrcs(first[index]).length, 1);
        assert.notEqual(first[index][0].ssrc, a.video.ssrc, 'one stream of its own per receiver');
      }

      const plisOfB = b.video.keyframeRequests;
      await bridges.setVideoSource({ bridgeId: 'single', channelId: chanB });
      await waitFor('a keyframe request to the new source', () => b.video.keyframeRequests > plisOfB);
      const second = await exchange([a, b, c], [a, b, c], 10);
      assert.equal(second[1].length, 0, 'the new source receives nothing');
      assert.equal(second[0].length, 10, 'the old source now gets the new one');
      const toC = [...first[2], ...second[2]];
      assert.equal(toC.length, 20);
      assert.ok(
        toC.every((p) => p.ssrc === toC[0].ssrc),
        'c keeps one SSRC across the switch',
      );
      for (let k = 1; k < toC.length; k += 1) {
        assert.equal(toC[k].sequence, (toC[k - 1].sequence + 1) & 0xffff, `c's sequence continues at packet ${k}`);
      }
      assert.ok(((toC[10].timestamp - toC[9].timestamp) | 0) > 0, "c's timestamps move forward across the switch");
      // c lost a picture: its PLI goes to the source it watches.
      await sleep(350);
      const plisToB = b.video.keyframeRequests;
      c.video.sendPli(c.serverVideoPort, toC[0].ssrc);
      await waitFor("c's PLI forwarded to b", () => b.video.keyframeRequests > plisToB);
      // The server is the RTP endpoint of each phone's video: c gets sender reports about the
      // stream it receives, with a reception report block about what c sends (RFC 3550 §6.4.1).
      // (b keeps sending one picture now and then, so that c's stream stays a sending one.)
      const reportedToC = () =>
        c.video.reports.some((r) => r.type === 'sr' && r.senders.includes(toC[0].ssrc) && r.about.includes(c.video.ssrc));
      for (let round = 0; round < 40 && !reportedToC(); round += 1) {
        await b.video.send(b.serverVideoPort, 1);
        await sleep(300);
      }
      assert.ok(reportedToC(), `a video SR at c: ${JSON.stringify(c.video.reports.slice(-5))}`);
      assert.ok(
        [a, b, c].every((phone) => phone.video.reports.every((r) => r.about.every((ssrc) => ssrc === phone.video.ssrc))),
        "no phone gets reports about another phone's stream",
      );

      for (const channel of channels) await channel.hangup();
      const results = await Promise.all([a, b, c].map((phone) => phone.call));
      for (const result of results) assert.equal(result.code, 0, result.stdout.slice(-1500));
    } finally {
      for (const phone of phones) {
        phone.audio.close();
        phone.video.close();
      }
      await Promise.allSettled(phones.map((phone) => phone.call));
    }
  });
});
