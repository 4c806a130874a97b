/**
 * Echo() and TIMEOUT(absolute) against the real process: the caller's tone comes back to it, and
 * the absolute timeout ends the call.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type RunningSwitchboard, runSipp, startSwitchboard } from './harness.js';
import { RtpPeer } from './rtp-peer.js';

const DIALPLAN = `
exten => 700,1,Answer()
 same => n,Set(TIMEOUT(absolute)=4)
 same => n,Playback(beep)
 same => n,Echo()
`;

describe('Echo()', () => {
  let sb: RunningSwitchboard;

  before(async () => {
    sb = await startSwitchboard({ dialplan: DIALPLAN });
  });
  after(async () => {
    await sb.stop();
  });

  it('plays the caller’s audio back until the absolute timeout hangs up', { timeout: 40_000 }, async () => {
    const phone = await RtpPeer.open();
    try {
      const started = Date.now();
      const call = runSipp('uac-wait-bye.xml', { host: '127.0.0.1', port: sb.sipPort }, { service: '700', keys: { rtpport: phone.port } });
      const deadline = Date.now() + 10_000;
      while (phone.remote === undefined && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      // After the beep (0.25 s), only the echo can be loud.
      await new Promise((resolve) => setTimeout(resolve, 600));
      const since = performance.now();
      await phone.sendTone(1000, 1500);
      await new Promise((resolve) => setTimeout(resolve, 200));
      const loudness = phone.loudnessSince(since + 200);
      assert.ok(loudness > 500, `the tone came back (rms ${loudness})`);
      const result = await call;
      assert.equal(result.code, 0, result.stdout.slice(-2000));
      const seconds = (Date.now() - started) / 1000;
      assert.ok(seconds >= 3.5 && seconds < 10, `TIMEOUT(absolute)=4 ended the call (${seconds}s)`);
    } finally {
      phone.close();
    }
  });
});
