/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
/**
 * The browser console in a real browser: Debian's headless Chromium driven by puppeteer-core. A
 * real sipp call appears on the page without a reload, is hung up from the page, and disappears;
 * a read-only user sees the same page without the buttons. Screenshots go to test/output/.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { API_PASSWORD, API_USER, REPO_ROOT, type RunningSwitchboard, runSipp, startSwitchboard } from './harness.js';
import { RtpReceiver } from './rtp-receiver.js';

const CHROMIUM = ['/usr/bin/chromium', '/usr/bin/chromium-browser'].find((path) => existsSync(path));
const OUTPUT = join(REPO_ROOT, 'test', 'output');

const screenshotPath = (name: string): `${string}.png` => `${join(OUTPUT, name)}.png`;

const DIALPLAN = `
exten => 300,1,Answer()
 same => n,Wait(20)
 same => n,Hangup()
`;

async function signIn(page: Page, baseUrl: string, user: string, password: string): Promise<void> {
  await page.goto(`${baseUrl}/console/`);
  await page.type('#login-user', user);
  await page.type('#login-password', password);
  await page.click('#login button[type=submit]');
  await page.waitForSelector('body[data-live="yes"]', { timeout: 10_000 });
}

describe('browser console', () => {
  let sb: RunningSwitchboard;
  let browser: Browser;

  before(async () => {
    assert.ok(CHROMIUM, 'chromium is not installed (scripts/ensure-tools.mjs installs it)');
    sb = await startSwitchboard({ dialplan: DIALPLAN });
    browser = await puppeteer.launch({
      executablePath: CHROMIUM,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
    });
    mkdirSync(OUTPUT, { recursive: true });
  });
  after(async () => {
    await browser?.close();
    await sb?.stop();
  });

  it('refuses wrong credentials on the sign-in form', { timeout: 30_000 }, async () => {
    const page = await browser.newPage();
    await page.goto(`${sb.baseUrl}/console/`);
    await page.type('#login-user', API_USER);
    await page.type('#login-password', 'wrong');
    await page.click('#login button[type=submit]');
    await page.waitForFunction(() => document.getElementById('login-error')?.textContent !== '', { timeout: 10_000 });
    assert.match(await page.$eval('#login-error', (e) => e.textContent ?? ''), /Authentication required/);
    assert.equal(await page.$eval('#dashboard', (e) => (e as HTMLElement).hidden), true);
    await page.close();
  });

  it('shows a real call live, hangs it up from the page, and sees it go', { timeout: 60_000 }, async () => {
    const page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 900 });
    const errors: string[] = [];
    page.on('pageerror', (err) => errors.push(String(err)));
    await signIn(page, sb.baseUrl, API_USER, API_PASSWORD);
    assert.match(await page.$eval('#who', (e) => e.textContent ?? ''), new RegExp(`^${API_USER}$`));
    await page.waitForFunction(() => document.querySelector('#endpoints tbody')?.textContent?.includes('SIP/local-phone'), {
      timeout: 10_000,
    });

    const rtp = await RtpReceiver.open();
    try {
      const call = runSipp('uac-wait-bye.xml', { host: '127.0.0.1', port: sb.sipPort }, { service: '300', keys: { rtpport: rtp.port } });
      // The call arrives over the events WebSocket: no reload.
      await page.waitForFunction(
        () =>
          [...document.querySelectorAll('#calls tbody tr')].some((tr) => /SIP\/local-phone-.*Up.*Wait\(20\)/.test(tr.textContent ?? '')),
        { timeout: 15_000 },
      );
      // Codec, loss and jitter come from the periodic poll.
      await page.waitForFunction(() => /\d+\/\d+/.test(document.querySelector('#calls tbody tr')?.children[7]?.textContent ?? ''), {
        timeout: 10_000,
      });
      assert.equal(await page.$eval('#calls tbody tr', (tr) => tr.children[5]?.textContent), 'PCMU');
      await page.screenshot({ path: screenshotPath('console-live-call'), fullPage: true });
      const events = await page.$eval('#events', (e) => e.textContent ?? '');
      assert.match(events, /ChannelCreated SIP\/local-phone-/);

      await page.click('#calls tbody tr button.danger');
      const sipp = await call;
      assert.equal(sipp.code, 0, sipp.stdout.slice(-2000));
    } finally {
      rtp.close();
    }
    await page.waitForFunction(() => document.querySelector('#calls tbody')?.textContent?.includes('No calls'), { timeout: 10_000 });
    await page.screenshot({ path: screenshotPath('console-after-hangup'), fullPage: true });
    assert.deepEqual(errors, []);
    await page.close();
  });

  it('lets a read-only user see but not act', { timeout: 30_000 }, async () => {
    const page = await browser.newPage();
    await signIn(page, sb.baseUrl, 'reader', 'reader-pass');
    assert.match(await page.$eval('#who', (e) => e.textContent ?? ''), /reader \(read-only\)/);
    assert.equal(await page.$eval('#reload-dialplan', (e) => (e as HTMLElement).hidden), true);
    // The server refuses the action itself too, whatever the page shows.
    const status = await page.evaluate(async () => {
      const response = await fetch('/ari/system/modules/pbx_config', {
        method: 'PUT',
        headers: { Authorization: `Basic ${btoa('reader:reader-pass')}` },
      });
      return response.status;
    });
    assert.equal(status, 403);
    await page.close();
  });

  it('serves only the console files', async () => {
    assert.equal((await fetch(`${sb.baseUrl}/console/..%2Fpackage.json`)).status, 404);
    assert.equal((await fetch(`${sb.baseUrl}/console/nothing.js`)).status, 404);
    assert.equal((await fetch(`${sb.baseUrl}/console/api/whoami`)).status, 401);
    const page = await fetch(`${sb.baseUrl}/console/`);
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-security-policy') ?? '', /default-src 'self'/);
  });
});
