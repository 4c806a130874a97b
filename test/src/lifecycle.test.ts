/** The `switchboard` process itself: refusing a malformed configuration, and shutting down mid-call. */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import ari, { type AriChannel } from 'ari-client';
import { API_PASSWORD, API_USER, REPO_ROOT, freePort, runSipp, startSwitchboard, writeConf } from './harness.js';
import { RtpReceiver } from './rtp-receiver.js';

describe('the switchboard process', () => {
  it('stops at startup on a malformed config file, naming file, line and reason', { timeout: 20_000 }, async () => {
    const root = mkdtempSync(join(tmpdir(), 'switchboard-badconf-'));
    try {
      const confDir = join(root, 'conf');
      writeConf(confDir, { httpPort: await freePort('tcp'), sipPort: await freePort('udp'), rtpStart: 40000, rtpEnd: 40100 });
      writeFileSync(join(confDir, 'http.conf'), '[general]\nenabled = yes\nbindport = not-a-port\n');
      const child = spawn(
        process.execPath,
        [join(REPO_ROOT, 'packages/server/dist/main.js'), '--conf', confDir, '--data', join(root, 'var')],
        {
          stdio: ['ignore', 'pipe', 'pipe'],
        },
      );
      let stderr = '';
      child.stderr.on('data', (c: Buffer) => {
        stderr += c.toString();
      });
      const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
      assert.equal(code, 1);
      assert.match(stderr, /http\.conf:3: .*bindport/);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('hangs up live calls on SIGTERM and exits 0 within 5 s', { timeout: 40_000 }, async () => {
    const sb = await startSwitchboard();
    const client = await ari.connect(sb.baseUrl, API_USER, API_PASSWORD);
    const answered = new Promise<void>((resolve) => {
      client.on('AppStart', (_event: unknown, channel: AriChannel) => {
        void channel.answer().then(() => resolve());
      });
    });
    await client.start('demo');
    const rtp = await RtpReceiver.open();
    try {
      const call = runSipp('uac-wait-bye.xml', { host: '127.0.0.1', port: sb.sipPort }, { service: '100', keys: { rtpport: rtp.port } });
      await answered;
      client.stop();
      const { code, ms } = await sb.stop();
      assert.equal(code, 0);
      assert.ok(ms < 5000, `stopped in ${ms} ms`);
      const sipp = await call;
      assert.equal(sipp.code, 0, `the caller got a BYE:\n${sipp.stdout.slice(-2000)}`);
    } finally {
      rtp.close();
    }
  });
});
