/** Calls that the dialplan handles alone, with no application, against the real process and sipp. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type RunningSwitchboard, runSipp, startSwitchboard } from './harness.js';
import { RtpReceiver, rms } from './rtp-receiver.js';

describe('dialplan without an application', () => {
  let sb: RunningSwitchboard;
  before(async () => {
    sb = await startSwitchboard();
  });
  after(async () => {
    await sb.stop();
  });

  it('200 answers, plays hello-world and hangs up', { timeout: 30_000 }, async () => {
    const rtp = await RtpReceiver.open();
    try {
      const sipp = await runSipp(
        'uac-wait-bye.xml',
        { host: '127.0.0.1', port: sb.sipPort },
        { service: '200', keys: { rtpport: rtp.port } },
      );
      assert.equal(sipp.code, 0, sipp.stdout.slice(-2000));
      assert.ok(rtp.packets.length >= 35, `received ${rtp.packets.length} packets`);
      assert.ok(rms(rtp.packets.map((p) => p.payload)) > 300, 'audio is not silence');
    } finally {
      rtp.close();
    }
  });

  it('an extension that does not exist is refused with 404', { timeout: 30_000 }, async () => {
    const sipp = await runSipp('uac-not-found.xml', { host: '127.0.0.1', port: sb.sipPort }, { service: '999', keys: { rtpport: 4000 } });
    assert.equal(sipp.code, 0, sipp.stdout.slice(-2000));
  });

  it('App() for an application nobody registered falls through to the next priority', { timeout: 30_000 }, async () => {
    // 100 is App(demo) then Hangup(): with no demo application connected, the unanswered call ends.
    const sipp = await runSipp('uac-unavailable.xml', { host: '127.0.0.1', port: sb.sipPort }, { service: '100', keys: { rtpport: 4000 } });
    assert.equal(sipp.code, 0, sipp.stdout.slice(-2000));
    assert.ok(
      sb.logs.some((l) => l.msg === 'could not hand channel to application' && l.application === 'demo'),
      'the failed hand-over is logged',
    );
  });
});
