/**
 * Page() against the real process: the caller's voice reaches two answering phones at once
 * through one bridge; when both pages hang up, the caller continues in the dialplan.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { freePort, type RunningSwitchboard, runSipp, startSwitchboard } from './harness.js';
import { RtpPeer } from './rtp-peer.js';

const DIALPLAN = `
exten => 800,1,Answer()
 same => n,Playback(beep)
 same => n,Page(SIP/pagea&SIP/pageb,,10)
 same => n,Log(NOTICE,page over)
 same => n,Hangup()
`;

describe('Page()', () => {
  let sb: RunningSwitchboard;
  const ports = { pagea: 0, pageb: 0 };

  before(async () => {
    ports.pagea = await freePort('udp');
    ports.pageb = await freePort('udp');
    sb = await startSwitchboard({ dialplan: DIALPLAN });
    const phone = (name: string, port: number) =>
      `\n[${name}]\ntype = endpoint\ncontext = from-internal\nallow = ulaw\naors = ${name}\n\n[${name}]\ntype = aor\ncontact = sip:${name}@127.0.0.1:${port}\n`;
    const pjsip = readFileSync(join(sb.confDir, 'pjsip.conf'), 'utf8');
    writeFileSync(join(sb.confDir, 'pjsip.conf'), pjsip + phone('pagea', ports.pagea) + phone('pageb', ports.pageb));
    await sb.restart();
  });
  after(async () => {
    await sb.stop();
  });

  it('carries the caller to every answering phone and continues when they hang up', { timeout: 60_000 }, async () => {
    const caller = await RtpPeer.open();
    const pageA = await RtpPeer.open();
    const pageB = await RtpPeer.open();
    try {
      const target = { host: '127.0.0.1', port: sb.sipPort };
      const a = runSipp('uas-answer-bye.xml', target, {
        service: 'pagea',
        keys: { rtpport: pageA.port },
        extra: ['-p', String(ports.pagea)],
      });
      const b = runSipp('uas-answer-bye.xml', target, {
        service: 'pageb',
        keys: { rtpport: pageB.port },
        extra: ['-p', String(ports.pageb)],
      });
      await new Promise((resolve) => setTimeout(resolve, 200));
      const call = runSipp('uac-wait-bye.xml', target, { service: '800', keys: { rtpport: caller.port } });
      const deadline = Date.now() + 10_000;
      while (caller.remote === undefined && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      const since = performance.now();
      await caller.sendTone(800, 1500);
      assert.equal((await a).code, 0);
      assert.equal((await b).code, 0);
      const result = await call;
      assert.equal(result.code, 0, result.stdout.slice(-2000));
      assert.ok(pageA.loudnessSince(since) > 500, `page A heard the caller (rms ${pageA.loudnessSince(since)})`);
      assert.ok(pageB.loudnessSince(since) > 500, `page B heard the caller (rms ${pageB.loudnessSince(since)})`);
      assert.ok(sb.logs.some((l) => l.msg === 'page over'));
    } finally {
      caller.close();
      pageA.close();
      pageB.close();
    }
  });
});
