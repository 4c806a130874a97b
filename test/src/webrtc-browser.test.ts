/// <reference lib="dom" />
/**
 * WebRTC end to end with a real browser: Debian's headless Chromium, driven by puppeteer-core,
 * loads a page this test serves (test/webrtc-page) that registers over SIP-over-WebSocket with
 * SIP.js (served from node_modules) on a `webrtc = yes` endpoint. Media is ICE (Chromium a full
 * agent, Switchboard lite), DTLS-SRTP and rtcp-mux, Opus; Chromium's microphone is a tone file.
 *  1. The browser calls an extension that plays a prompt; the page hears it (Web Audio level).
 *  2. The browser calls a baresip desk phone (plain RTP, G.711) through Dial(): the page's analyser
 *     peaks at the phone's tone and the phone's decoder dump holds the browser's tone.
 *  3. The desk phone calls the browser (our offer over the WebSocket flow); both hear each other.
 *  4. The browser calls an SRTP desk phone (baresip `mediaenc=srtp-mand` over TLS): DTLS-SRTP on one
 *     leg, SDES-SRTP on the other, both directions carry the tones.
 * The browser's RFC 4733 digits reach the dialplan's Read().
 * Chromium's SDP of case 1 is kept in test/output/chrome-offer.sdp (the unit tests use a copy).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { extname, join, normalize } from 'node:path';
import { after, before, describe, it, type TestContext } from 'node:test';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { toneShare, toneWav, waitFor } from './audio-analysis.js';
import { BaresipPhone } from './baresip-phone.js';
import { freePort, REPO_ROOT, type RunningSwitchboard, startSwitchboard } from './harness.js';
import { digestPhone, NAT_PHONE, udpTransport } from './pjsip-phones.js';

const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((path) => existsSync(path));
const OUTPUT = join(REPO_ROOT, 'test', 'output');
const PAGE_DIR = join(REPO_ROOT, 'test', 'webrtc-page');
const SIPJS_DIR = join(REPO_ROOT, 'node_modules', 'sip.js', 'lib');

const BROWSER_TONE_HZ = 440;
const DESK_TONE_HZ = 1000;

const DIALPLAN = `
exten => 700,1,Answer()
 same => n,Playback(hello-world&hello-world&hello-world)
 same => n,Hangup()
exten => 703,1,Answer()
 same => n,Read(DIGITS,,3,,1,8)
 same => n,Log(NOTICE,browser digits \${DIGITS})
 same => n,Hangup()
exten => 701,1,Dial(SIP/desk,20)
 same => n,Hangup()
exten => 704,1,Dial(SIP/secure,20)
 same => n,Hangup()
exten => 702,1,Dial(SIP/webphone,20)
 same => n,Hangup()
`;

const has = (command: string): boolean => spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;

/** The page and SIP.js's ES modules, over plain HTTP on loopback (a secure context for getUserMedia). */
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

interface PhonePage {
  register(o: { server: string; user: string; password: string; domain: string }): Promise<void>;
  call(target: string): Promise<void>;
  answered(): Promise<void>;
  level(): number;
  peak(): number;
  descriptions(): { local: string; remote: string };
  rtpStats(): Promise<Record<string, { packetsReceived?: number; packetsSent?: number; dtlsState?: string }>>;
  hangup(): Promise<void>;
  dtmf(tones: string): boolean;
  events: string[];
}

declare global {
  interface Window {
    phone: PhonePage;
  }
}

/** Samples the page's analyser for `ms`: the largest level seen and the peak frequency at that moment. */
async function listen(page: Page, ms: number): Promise<{ level: number; peaks: number[] }> {
  let level = 0;
  const peaks: number[] = [];
  const end = Date.now() + ms;
  while (Date.now() < end) {
    const sample = await page.evaluate(() => ({ level: window.phone.level(), peak: window.phone.peak() }));
    level = Math.max(level, sample.level);
    if (sample.level > 0.01) peaks.push(sample.peak);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { level, peaks };
}

/** How many times the server logged a registration of `aor`. */
function registrations(sb: RunningSwitchboard, aor: string): number {
  return sb.logs.filter((l) => l.msg === 'contact added' && l.aor === aor).length;
}

/** The share of 20 ms blocks of `samples` (above a floor) in which `hz` dominates. */
function loudShareOf(decoded: { rate: number; samples: Int16Array }, hz: number): number {
  const block = decoded.rate / 5;
  let loud = 0;
  let matching = 0;
  for (let start = 0; start + block <= decoded.samples.length; start += block) {
    const part = decoded.samples.subarray(start, start + block);
    let energy = 0;
    for (const s of part) energy += s * s;
    if (Math.sqrt(energy / part.length) < 300) continue;
    loud++;
    if (toneShare(part, decoded.rate, hz) > 0.5) matching++;
  }
  return loud === 0 ? 0 : matching / loud;
}

/**
 * loudShareOf the desk phone's decoder dump once it holds audio: baresip may still be writing the
 * file when the call's end shows in its output. Polls up to 5 s; 0 when nothing loud ever arrives.
 */
async function settledLoudShare(desk: BaresipPhone, hz: number): Promise<number> {
  const deadline = Date.now() + 5000;
  let share = loudShareOf(desk.decoded(), hz);
  while (share === 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 250));
    share = loudShareOf(desk.decoded(), hz);
  }
  return share;
}

/**
 * After the browser hung up: the browser heard the desk phone's tone, and the desk phone (its decoder
 * dump) the browser's.
 */
async function assertBothHeard(t: TestContext, desk: BaresipPhone, heard: { peaks: number[] }): Promise<void> {
  await waitFor('the desk phone to see the call end', () => /terminated|closed/i.test(desk.output), 10_000);
  const share = await settledLoudShare(desk, BROWSER_TONE_HZ);
  t.diagnostic(`browser peaks ${heard.peaks.map(Math.round).join(' ')}; desk hears ${BROWSER_TONE_HZ} Hz in ${(share * 100).toFixed(0)}%`);
  const near = heard.peaks.filter((hz) => Math.abs(hz - DESK_TONE_HZ) < 30).length;
  assert.ok(heard.peaks.length > 10 && near / heard.peaks.length > 0.8, `browser peaks: ${heard.peaks.map(Math.round).join(' ')}`);
  assert.ok(share > 0.8, `the desk phone hears the browser's ${BROWSER_TONE_HZ} Hz in ${(share * 100).toFixed(0)}% of its loud blocks`);
}

const skip = CHROMIUM === undefined ? 'chromium is not installed (scripts/ensure-tools.mjs installs it)' : false;

describe('WebRTC: a browser phone (Chromium, SIP.js over WebSocket) through Switchboard', { skip }, () => {
  let sb: RunningSwitchboard;
  let browser: Browser;
  let page: Page;
  let web: { server: Server; url: string };
  let dir: string;
  let wsPort: number;
  let tlsPort: number;

  before(async () => {
    assert.ok(has('baresip'), 'baresip is not installed: apt-get install baresip-core');
    assert.ok(has('openssl'), 'openssl is not installed: apt-get install openssl');
    dir = mkdtempSync(join(tmpdir(), 'switchboard-webrtc-'));
    const microphone = join(dir, 'microphone.wav');
    writeFileSync(microphone, toneWav(BROWSER_TONE_HZ, 30, 48000));
    const made = spawnSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
      ].concat(['-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem')]),
      { encoding: 'utf8' },
    );
    assert.equal(made.status, 0, made.stderr);
    const sipPort = await freePort('udp');
    wsPort = await freePort('tcp');
    tlsPort = await freePort('tcp');
    const pjsip = [
      udpTransport(sipPort),
      `[transport-ws]\ntype = transport\nprotocol = ws\nbind = 127.0.0.1:${wsPort}\n`,
      digestPhone('webphone', 'browser-secret', { disallowAll: true, allow: 'ulaw,opus', endpoint: ['webrtc = yes'] }),
      digestPhone('desk', 'desk-secret', { ...NAT_PHONE, allow: 'ulaw' }),
      `[transport-tls]\ntype = transport\nprotocol = tls\nbind = 127.0.0.1:${tlsPort}\ncert_file = ${join(dir, 'cert.pem')}\npriv_key_file = ${join(dir, 'key.pem')}\n`,
      digestPhone('secure', 'secure-secret', {
        ...NAT_PHONE,
        allow: 'ulaw',
        endpoint: [...(NAT_PHONE.endpoint ?? []), 'media_encryption = sdes'],
      }),
    ].join('\n');
    sb = await startSwitchboard({ dialplan: DIALPLAN, sipPort, extraFiles: { 'pjsip.conf': pjsip } });
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
        // Host candidates as addresses, not mDNS names Switchboard could not resolve.
        '--disable-features=WebRtcHideLocalIpsWithMdns',
        '--autoplay-policy=no-user-gesture-required',
      ],
    });
    page = await browser.newPage();
    page.on('pageerror', (err) => process.stderr.write(`page error: ${String(err)}\n`));
    await page.goto(web.url);
    await page.waitForFunction(() => window.phone !== undefined, { timeout: 10_000 });
    await page.evaluate(
      (server) => window.phone.register({ server, user: 'webphone', password: 'browser-secret', domain: '127.0.0.1' }),
      `ws://127.0.0.1:${wsPort}`,
    );
    mkdirSync(OUTPUT, { recursive: true });
  });
  after(async () => {
    await browser?.close();
    await new Promise((resolve) => (web ? web.server.close(resolve) : resolve(undefined)));
    await sb?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('calls an extension that plays a prompt and hears it (ICE, DTLS-SRTP, rtcp-mux, Opus)', { timeout: 30_000 }, async (t) => {
    await page.evaluate(() => window.phone.call('sip:700@127.0.0.1'));
    const heard = await listen(page, 2500);
    const { local, remote } = await page.evaluate(() => window.phone.descriptions());
    writeFileSync(join(OUTPUT, 'chrome-offer.sdp'), local);
    const stats = await page.evaluate(() => window.phone.rtpStats());
    await page.evaluate(() => window.phone.hangup());
    assert.match(remote, /^m=audio \d+ UDP\/TLS\/RTP\/SAVPF 111 /m, 'Opus answered on the DTLS-SRTP profile');
    assert.match(remote, /^a=ice-lite/m);
    assert.match(remote, /^a=fingerprint:sha-256 /m);
    assert.match(remote, /^a=setup:passive/m);
    assert.match(remote, /^a=rtcp-mux/m);
    assert.match(remote, /^a=group:BUNDLE 0/m);
    assert.match(remote, /^a=candidate:1 1 udp \d+ 127\.0\.0\.1 \d+ typ host/m);
    assert.equal(stats.transport?.dtlsState, 'connected', JSON.stringify(stats.transport));
    assert.ok((stats['inbound-rtp']?.packetsReceived ?? 0) > 50, `packets received: ${stats['inbound-rtp']?.packetsReceived}`);
    t.diagnostic(`level ${heard.level.toFixed(4)}, ${stats['inbound-rtp']?.packetsReceived} packets received`);
    assert.ok(heard.level > 0.02, `the prompt is heard in the browser (level ${heard.level.toFixed(4)})`);
  });

  it('sends DTMF as RFC 4733 events that the dialplan reads', { timeout: 20_000 }, async () => {
    await page.evaluate(() => window.phone.call('sip:703@127.0.0.1'));
    // Chromium can insert DTMF once its media flows (ICE and DTLS done); the digits go as
    // telephone-events at 48 kHz (Opus's rate), and Read() is listening from the answer on.
    await waitFor('the browser to accept the digits', () => page.evaluate(() => window.phone.dtmf('428')), 5_000);
    await waitFor('the dialplan to log the digits', () => sb.logs.some((l) => l.msg === 'browser digits 428'), 8_000).catch(
      (error: Error) => {
        throw new Error(
          `${error.message}: ${sb.logs
            .filter((l) => /digit|dtmf/i.test(JSON.stringify(l)))
            .map((l) => JSON.stringify(l))
            .join('\n')}`,
        );
      },
    );
  });

  it('calls a plain-RTP desk phone and both hear each other’s tone', { timeout: 45_000 }, async (t) => {
    const deskDir = join(dir, 'desk-called');
    mkdirSync(deskDir);
    const before = registrations(sb, 'desk');
    const desk = await BaresipPhone.start({
      dir: deskDir,
      account: `<sip:desk@127.0.0.1:${sb.sipPort}>;auth_pass=desk-secret;regint=60;audio_codecs=PCMU;answermode=auto`,
      toneHz: DESK_TONE_HZ,
    });
    try {
      await waitFor('the desk phone to register', () => registrations(sb, 'desk') > before, 15_000);
      await page.evaluate(() => window.phone.call('sip:701@127.0.0.1'));
      const heard = await listen(page, 3000);
      await page.evaluate(() => window.phone.hangup());
      await assertBothHeard(t, desk, heard);
    } finally {
      await desk.stop();
    }
  });

  it('is called by the desk phone over its WebSocket registration and both hear each other', { timeout: 45_000 }, async (t) => {
    const deskDir = join(dir, 'desk-calling');
    mkdirSync(deskDir);
    const before = registrations(sb, 'desk');
    const desk = await BaresipPhone.start({
      dir: deskDir,
      account: `<sip:desk@127.0.0.1:${sb.sipPort}>;auth_pass=desk-secret;regint=60;audio_codecs=PCMU`,
      toneHz: DESK_TONE_HZ,
    });
    try {
      await waitFor('the desk phone to register', () => registrations(sb, 'desk') > before, 15_000);
      desk.command(`/dial sip:702@127.0.0.1:${sb.sipPort}`);
      await page.evaluate(() => window.phone.answered());
      const { remote } = await page.evaluate(() => window.phone.descriptions());
      assert.match(remote, /^m=audio \d+ UDP\/TLS\/RTP\/SAVPF 111 /m, 'our offer: Opus first on the DTLS-SRTP profile');
      assert.match(remote, /^a=setup:actpass/m);
      const heard = await listen(page, 3000);
      await page.evaluate(() => window.phone.hangup());
      await assertBothHeard(t, desk, heard);
    } finally {
      await desk.stop();
    }
  });

  it('calls an SRTP desk phone over TLS: DTLS-SRTP and SDES-SRTP legs, both hear each other', { timeout: 45_000 }, async (t) => {
    const deskDir = join(dir, 'secure-called');
    mkdirSync(deskDir);
    const before = registrations(sb, 'secure');
    const desk = await BaresipPhone.start({
      dir: deskDir,
      account:
        `<sip:secure@127.0.0.1:${tlsPort};transport=tls>;auth_pass=secure-secret;regint=60;audio_codecs=PCMU;mediaenc=srtp-mand` +
        `;answermode=auto;outbound="sip:127.0.0.1:${tlsPort};transport=tls"`,
      toneHz: DESK_TONE_HZ,
      modules: ['srtp.so'],
    });
    try {
      await waitFor('the SRTP desk phone to register', () => registrations(sb, 'secure') > before, 15_000);
      await page.evaluate(() => window.phone.call('sip:704@127.0.0.1'));
      const heard = await listen(page, 3000);
      await page.evaluate(() => window.phone.hangup());
      // Both ends refuse plain RTP (srtp-mand; media_encryption = sdes without _optimistic): audio means SRTP.
      await assertBothHeard(t, desk, heard);
    } finally {
      await desk.stop();
    }
  });
});
