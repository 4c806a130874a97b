/**
 * Dial() options against the real process: U(sub^arg) runs a Gosub on the callee once it
 * answers, S(n) ends the call n seconds after the answer, g continues the caller's dialplan, and
 * DIALSTATUS, ANSWEREDTIME, DIALEDTIME and HANGUPCAUSE are set for it.
 */
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { freePort, type RunningSwitchboard, runSipp, startSwitchboard } from './harness.js';

const DIALPLAN = `
exten => 310,1,Dial(SIP/answerer,10,gS(2)U(callee-sub^hello))
 same => n,Log(NOTICE,dial \${DIALSTATUS} answered \${ANSWEREDTIME} dialed \${DIALEDTIME} cause \${HANGUPCAUSE})
 same => n,Hangup()

[callee-sub]
exten => s,1,Log(NOTICE,callee \${CHANNEL(endpoint)} says \${ARG1})
 same => n,Return()
`;

describe('Dial options', () => {
  let sb: RunningSwitchboard;
  let answererPort = 0;

  before(async () => {
    answererPort = await freePort('udp');
    sb = await startSwitchboard({ dialplan: DIALPLAN });
    const pjsip = readFileSync(join(sb.confDir, 'pjsip.conf'), 'utf8');
    writeFileSync(
      join(sb.confDir, 'pjsip.conf'),
      `${pjsip}\n[answerer]\ntype = endpoint\ncontext = from-internal\nallow = ulaw\naors = answerer\n\n[answerer]\ntype = aor\ncontact = sip:answerer@127.0.0.1:${answererPort}\n`,
    );
    await sb.restart();
  });
  after(async () => {
    await sb.stop();
  });

  it('runs U() on the callee, ends the call after S(2) and continues with g', { timeout: 40_000 }, async () => {
    const callee = runSipp(
      'uas-answer-wait-bye.xml',
      { host: '127.0.0.1', port: sb.sipPort },
      {
        service: 'answerer',
        keys: { rtpport: 4400 },
        extra: ['-p', String(answererPort)],
      },
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    const started = Date.now();
    const caller = await runSipp('uac-wait-bye.xml', { host: '127.0.0.1', port: sb.sipPort }, { service: '310', keys: { rtpport: 4402 } });
    assert.equal(caller.code, 0, caller.stdout.slice(-2000));
    assert.equal((await callee).code, 0);
    const elapsed = (Date.now() - started) / 1000;
    assert.ok(elapsed >= 2 && elapsed < 8, `S(2) ended the call after about 2 s (${elapsed}s)`);
    assert.ok(sb.logs.some((l) => l.msg === 'callee answerer says hello'));
    const summary = sb.logs.find((l) => String(l.msg).startsWith('dial '));
    assert.ok(summary, 'the caller continued after the callee was hung up');
    assert.match(String(summary.msg), /^dial ANSWER answered 2 dialed [2-4] cause 16$/);
  });
});
