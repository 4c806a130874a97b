/**
 * The dialplan language against the real process: an IVR where the caller presses 1 during the
 * Background greeting as a SIP INFO and types a PIN as RFC 4733 events for Read(); the PIN is
 * kept with DB() and read back after a restart (AstDB in SQLite); Gosub with arguments; and an
 * unknown application reported with file and line when the dialplan loads.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type RunningSwitchboard, runSipp, startSwitchboard } from './harness.js';
import { RtpPeer } from './rtp-peer.js';

const DIALPLAN = `
exten => 500,1,Answer()
 same => n,Background(hello-world)
 same => n,WaitExten(5)
exten => 1,1,Read(PIN,beep,4,,1,4)
 same => n,Set(DB(ivr/pin)=\${PIN})
 same => n,Gosub(report,s,1(\${PIN},\${READSTATUS}))
 same => n,Log(NOTICE,ivr done \${GOSUB_RETVAL})
 same => n,Hangup()
exten => 2,1,Log(NOTICE,ivr wrong branch)
 same => n,Hangup()
exten => t,1,Log(NOTICE,ivr timeout)
 same => n,Hangup()
exten => 501,1,Answer()
 same => n,GotoIf($["\${DB(ivr/pin)}" = "42"]?known)
 same => n,Log(NOTICE,pin lost)
 same => n,Hangup()
 same => n(known),Log(NOTICE,pin kept \${DB(ivr/pin)})
 same => n,Hangup()
exten => 502,1,Frobnicate()

[report]
exten => s,1,Return(\${ARG1}-\${ARG2})
`;

describe('dialplan: IVR, AstDB and load-time checks', () => {
  let sb: RunningSwitchboard;
  const target = () => ({ host: '127.0.0.1', port: sb.sipPort });

  before(async () => {
    sb = await startSwitchboard({ dialplan: DIALPLAN });
  });
  after(async () => {
    await sb.stop();
  });

  it('reports an unknown application with file and line at load', () => {
    const found = sb.logs.find((l) => typeof l.msg === 'string' && l.msg.includes("unknown dialplan application 'Frobnicate'"));
    assert.ok(found, 'warning logged');
    assert.equal(found.level, 40);
    assert.match(String(found.file), /extensions\.conf$/);
    assert.equal(typeof found.line, 'number');
  });

  it('branches on an INFO digit during Background and reads a PIN sent as RFC 4733 events', { timeout: 60_000 }, async () => {
    const phone = await RtpPeer.open();
    try {
      const call = runSipp('uac-ivr-info.xml', target(), { service: '500', keys: { rtpport: phone.port, digit: 1 } });
      // The greeting tells us where the server's leg is; the INFO digit at 600 ms then starts Read().
      const deadline = Date.now() + 10_000;
      while (phone.remote === undefined && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
      await new Promise((resolve) => setTimeout(resolve, 1500));
      for (const digit of ['4', '2', '#']) await phone.sendDtmf(digit);
      const result = await call;
      assert.equal(result.code, 0, result.stdout.slice(-2000));
      assert.ok(
        sb.logs.some((l) => l.msg === 'ivr done 42-OK'),
        JSON.stringify(sb.logs.filter((l) => String(l.msg).startsWith('ivr'))),
      );
    } finally {
      phone.close();
    }
  });

  it('keeps DB() values across a restart', { timeout: 60_000 }, async () => {
    await sb.restart();
    const phone = await RtpPeer.open();
    try {
      const result = await runSipp('uac-wait-bye.xml', target(), { service: '501', keys: { rtpport: phone.port } });
      assert.equal(result.code, 0, result.stdout.slice(-2000));
      assert.ok(sb.logs.some((l) => l.msg === 'pin kept 42'));
    } finally {
      phone.close();
    }
  });
});
