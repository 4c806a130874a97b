/// <reference lib="dom" />
/**
 * Browser video through Switchboard: two pages of a headless Chromium (puppeteer-core), each a
 * SIP.js phone on a `webrtc = yes` endpoint that allows Opus and VP8, call an extension that puts
 * them in an ARI bridge of type `mixing,video_sfu`. Each page's camera is Chromium's fake device
 * (a moving test pattern) and its microphone a tone file. Audio and video are BUNDLEd on one
 * ICE/DTLS-SRTP transport (RFC 8843); the server answers m=video on the audio's port. Each page
 * must decode the other's video frames (getStats() framesDecoded) and hear the other's tone, and
 * the keyframe requests (PLI/FIR) for a joining receiver must reach a sending browser. Then one page
 * calls the other through Dial() (our offer to a browser BUNDLEs video too) and both decode frames.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { extname, join, normalize } from 'node:path';
import { after, before, describe, it } from 'node:test';
import ari, { type AriChannel, type AriClient, type AriEvent, type AriOperation } from 'ari-client';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { toneWav, waitFor } from './audio-analysis.js';
import { API_PASSWORD, API_USER, freePort, REPO_ROOT, type RunningSwitchboard, startSwitchboard } from './harness.js';
import { digestPhone, udpTransport } from './pjsip-phones.js';

const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((path) => existsSync(path));
const PAGE_DIR = join(REPO_ROOT, 'test', 'webrtc-page');
const SIPJS_DIR = join(REPO_ROOT, 'node_modules', 'sip.js', 'lib');

interface VideoPhone {
  register(o: { server: string; user: string; password: string; domain: string }): Promise<void>;
  call(target: string, video: boolean): Promise<void>;
  answered(): Promise<void>;
  answerWithVideo: boolean;
  level(): number;
  descriptions(): { local: string; remote: string };
  videoStats(): Promise<
    Record<
      string,
      { framesDecoded?: number; framesSent?: number; packetsReceived?: number; pliCount?: number; firCount?: number; nackCount?: number }
    >
  >;
  hangup(): Promise<void>;
}

async function servePage(): Promise<{ server: Server; url: string }> {
  const types: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript' };
  const server = createServer((request, response) => {
    const path = normalize(decodeURIComponent(new URL(request.url ?? '/', 'http://localhost').pathname));
    const [root, rest] = path.startsWith('/sip.js/')
      ? [SIPJS_DIR, path.slice('/sip.js/'.length)]
      : [PAGE_DIR, path.slice(1) || 'index.html'];
    const file = join(root, rest);
    if (!file.startsWith(root) || !existsSync(file) || types[extname(file)] === undefined) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(200, { 'content-type': types[extname(file)] }).end(readFileSync(file));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  assert.ok(address !== null && typeof address === 'object');
  return { server, url: `http://127.0.0.1:${address.port}/` };
}

const skip = CHROMIUM === undefined ? 'chromium is not installed (scripts/ensure-tools.mjs installs it)' : false;

describe('WebRTC video: two browsers in a video_sfu bridge', { skip }, () => {
  let sb: RunningSwitchboard;
  let client: AriClient;
  let browser: Browser;
  const pages: Page[] = [];
  let web: { server: Server; url: string };
  let dir: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'switchboard-webrtc-video-'));
    const microphone = join(dir, 'microphone.wav');
    writeFileSync(microphone, toneWav(440, 30, 48000));
    const sipPort = await freePort('udp');
    const wsPort = await freePort('tcp');
    const pjsip = [
      udpTransport(sipPort),
      `[transport-ws]\ntype = transport\nprotocol = ws\nbind = 127.0.0.1:${wsPort}\n`,
      digestPhone('alice', 'alice-secret', { disallowAll: true, allow: 'opus,vp8', endpoint: ['webrtc = yes'] }),
      digestPhone('bob', 'bob-secret', { disallowAll: true, allow: 'opus,vp8', endpoint: ['webrtc = yes'] }),
    ].join('\n');
    sb = await startSwitchboard({
      dialplan: 'exten => 710,1,Stasis(video)\nexten => 711,1,Dial(SIP/bob,20)\n same => n,Hangup()\n',
      sipPort,
      extraFiles: { 'pjsip.conf': pjsip },
    });
    client = await ari.connect(sb.baseUrl, API_USER, API_PASSWORD);
    web = await servePage();
    browser = await puppeteer.launch({
      executablePath: CHROMIUM as string,
      headless: true,
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-dev-shm-usage',
        '--use-fake-ui-for-media-stream',
        '--use-fake-device-for-media-stream',
        `--use-file-for-fake-audio-capture=${microphone}`,
        '--allow-loopback-in-peer-connection',
        '--disable-features=WebRtcHideLocalIpsWithMdns',
        '--autoplay-policy=no-user-gesture-required',
        // Two pages: the one in the background must keep capturing and playing at full rate.
        '--disable-background-timer-throttling',
        '--disable-renderer-backgrounding',
        '--disable-backgrounding-occluded-windows',
      ],
    });
    for (const [user, password] of [
      ['alice', 'alice-secret'],
      ['bob', 'bob-secret'],
    ]) {
      const page = await browser.newPage();
      page.on('pageerror', (err) => process.stderr.write(`page error: ${String(err)}\n`));
      await page.goto(web.url);
      await page.waitForFunction(() => (window as unknown as { phone?: unknown }).phone !== undefined, { timeout: 10_000 });
      await page.evaluate(
        (server, u, p) =>
          (window as unknown as { phone: VideoPhone }).phone.register({ server, user: u, password: p, domain: '127.0.0.1' }),
        `ws://127.0.0.1:${wsPort}`,
        user,
        password,
      );
      pages.push(page);
    }
  });
  after(async () => {
    client?.stop();
    await browser?.close();
    await new Promise((resolve) => (web ? web.server.close(resolve) : resolve(undefined)));
    await sb?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('each browser decodes the other one video and hears its audio', { timeout: 40_000 }, async (t) => {
    const bridges = client.bridges as Record<string, AriOperation>;
    await bridges.create({ type: 'mixing,video_sfu', bridgeId: 'video' });
    client.on('AppStart', (_event: AriEvent, channel: AriChannel) => {
      void channel.answer().then(() => bridges.addChannel({ bridgeId: 'video', channel: channel.id }));
    });
    await client.start('video');

    for (const page of pages) await page.evaluate(() => (window as unknown as { phone: VideoPhone }).phone.call('sip:710@127.0.0.1', true));
    const { remote } = await pages[0].evaluate(() => (window as unknown as { phone: VideoPhone }).phone.descriptions());
    const audioPort = /^m=audio (\d+) /m.exec(remote)?.[1];
    assert.match(remote, new RegExp(`^m=video ${audioPort} UDP/TLS/RTP/SAVPF 96\\r?$`, 'm'), 'video answered on the audio port');
    assert.match(remote, /^a=group:BUNDLE 0 1/m);
    assert.match(remote, /^a=rtcp-fb:96 nack pli/m);

    const decoded = async (page: Page): Promise<number> =>
      (await page.evaluate(() => (window as unknown as { phone: VideoPhone }).phone.videoStats()))['inbound-rtp']?.framesDecoded ?? 0;
    await waitFor('frames decoded on both pages', async () => (await decoded(pages[0])) > 10 && (await decoded(pages[1])) > 10, 15_000);
    const levels: number[] = [];
    for (const page of pages) {
      let level = 0;
      for (let i = 0; i < 20; i++) {
        level = Math.max(level, await page.evaluate(() => (window as unknown as { phone: VideoPhone }).phone.level()));
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      levels.push(level);
    }
    const frames = [await decoded(pages[0]), await decoded(pages[1])];
    const stats = [];
    for (const page of pages) stats.push(await page.evaluate(() => (window as unknown as { phone: VideoPhone }).phone.videoStats()));
    const requests = stats.map((s) => ({
      sent: (s['inbound-rtp']?.pliCount ?? 0) + (s['inbound-rtp']?.firCount ?? 0),
      received: (s['outbound-rtp']?.pliCount ?? 0) + (s['outbound-rtp']?.firCount ?? 0),
    }));
    t.diagnostic(`keyframe requests (sent, received): ${requests.map((r) => `${r.sent}, ${r.received}`).join('; ')}`);
    t.diagnostic(`frames decoded ${frames.join(', ')}; audio levels ${levels.map((l) => l.toFixed(4)).join(', ')}`);
    // A joining receiver's picture comes from a keyframe the server asks the source for (PLI/FIR on the shared transport).
    assert.ok(
      requests.some((r) => r.received > 0),
      'keyframe requests reached a browser sending video',
    );
    for (const [i, level] of levels.entries()) assert.ok(level > 0.01, `page ${i} hears the other browser (level ${level.toFixed(4)})`);
    for (const page of pages) await page.evaluate(() => (window as unknown as { phone: VideoPhone }).phone.hangup());
  });

  it('one browser calls the other through Dial(): our offer BUNDLEs video and both decode frames', { timeout: 30_000 }, async () => {
    await pages[1].evaluate(() => {
      (window as unknown as { phone: VideoPhone }).phone.answerWithVideo = true;
    });
    await pages[0].evaluate(() => (window as unknown as { phone: VideoPhone }).phone.call('sip:711@127.0.0.1', true));
    await pages[1].evaluate(() => (window as unknown as { phone: VideoPhone }).phone.answered());
    const { remote } = await pages[1].evaluate(() => (window as unknown as { phone: VideoPhone }).phone.descriptions());
    assert.match(remote, /^a=group:BUNDLE 0 1/m, 'our offer to the called browser bundles audio and video');
    const decoded = async (page: Page): Promise<number> =>
      (await page.evaluate(() => (window as unknown as { phone: VideoPhone }).phone.videoStats()))['inbound-rtp']?.framesDecoded ?? 0;
    await waitFor('frames decoded on both pages', async () => (await decoded(pages[0])) > 10 && (await decoded(pages[1])) > 10, 15_000);
    await pages[0].evaluate(() => (window as unknown as { phone: VideoPhone }).phone.hangup());
  });
});
