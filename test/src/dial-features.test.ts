/**
 * Dial()'s in-call features against the real process, typed by a sipp caller as SIP INFO digits
 * with the default features.conf codes: H (disconnect `*`), T (blindxfer `#` then the extension
 * and `#`), W (automixmon `*1`, a MixMonitor file of the call); and PJSIP_HEADER(add|remove) in a
 * pre-dial handler b(), seen on the INVITE the callee receives; and a phone whose endpoint has
 * `allow_transfer = no` has its REFER refused (603) even when Dial allows DTMF transfers (t/T).
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { basicAuth, freePort, type RunningSwitchboard, runSipp, startSwitchboard } from './harness.js';

const DIALPLAN = `
exten => 330,1,Dial(SIP/answerer,10,Hb(add-headers^s^1(tenant-7)))
 same => n,Hangup()
exten => 331,1,Dial(SIP/answerer,10,T)
 same => n,Hangup()
exten => 332,1,Dial(SIP/answerer,10,WS(4))
 same => n,Hangup()
exten => 333,1,Dial(SIP/answerer,10,tT)
 same => n,Hangup()
exten => 320,1,Log(NOTICE,transferred \${CHANNEL(endpoint)} here)
 same => n,Hangup()

[add-headers]
exten => s,1,Set(PJSIP_HEADER(add,X-Tenant)=\${ARG1})
 same => n,Set(PJSIP_HEADER(add,X-Drop-One)=1)
 same => n,Set(PJSIP_HEADER(add,X-Drop-Two)=2)
 same => n,Set(PJSIP_HEADER(remove,X-Drop-*)=)
 same => n,Log(NOTICE,pre-dial tenant \${PJSIP_HEADER(read,X-Tenant)})
 same => n,Return()
`;

describe('Dial in-call features and pre-dial headers', () => {
  let sb: RunningSwitchboard;
  let answererPort = 0;

  before(async () => {
    answererPort = await freePort('udp');
    sb = await startSwitchboard({ dialplan: DIALPLAN });
    const pjsip = readFileSync(join(sb.confDir, 'pjsip.conf'), 'utf8');
    writeFileSync(
      join(sb.confDir, 'pjsip.conf'),
      `${pjsip}\n[answerer]\ntype = endpoint\ncontext = from-internal\nallow = ulaw\naors = answerer\nallow_transfer = no\n\n[answerer]\ntype = aor\ncontact = sip:answerer@127.0.0.1:${answererPort}\n`,
    );
    await sb.restart();
  });
  after(async () => {
    await sb.stop();
  });

  /** The caller types d1…d5 once answered; the callee answers and waits for BYE. */
  async function call(service: string, digits: string, calleeExtra: string[] = []): Promise<void> {
    const callee = runSipp(
      'uas-answer-wait-bye.xml',
      { host: '127.0.0.1', port: sb.sipPort },
      { service: 'answerer', keys: { rtpport: 4410 }, extra: ['-p', String(answererPort), ...calleeExtra] },
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    const keys: Record<string, string | number> = { rtpport: 4412 };
    [...digits].forEach((digit, index) => {
      keys[`d${index + 1}`] = digit;
    });
    const caller = await runSipp('uac-info-digits.xml', { host: '127.0.0.1', port: sb.sipPort }, { service, keys, timeoutSeconds: 15 });
    assert.equal(caller.code, 0, caller.stdout.slice(-2000));
    const answered = await callee;
    assert.equal(answered.code, 0, answered.stdout.slice(-2000));
  }

  it('hangs up the caller that types the disconnect code (H) and adds the b() headers to the INVITE', { timeout: 30_000 }, async () => {
    const trace = join(tmpdir(), `dial-features-${process.pid}-${Date.now()}.log`);
    await call('330', '5678*', ['-trace_msg', '-message_file', trace]);
    const invite =
      readFileSync(trace, 'utf8')
        .split(/\n\s*\n/)
        .find((m) => /INVITE sip:/.test(m)) ?? '';
    assert.match(invite, /^X-Tenant: tenant-7\r?$/m, 'the added header is on the INVITE');
    assert.doesNotMatch(invite, /X-Drop-/, 'the removed headers are not');
    assert.ok(sb.logs.some((l) => l.msg === 'pre-dial tenant tenant-7'));
    assert.ok(sb.logs.some((l) => l.msg === 'feature code typed' && l.feature === 'disconnect'));
  });

  it('sends the callee to the extension the caller dials after the blind transfer code (T)', { timeout: 30_000 }, async () => {
    await call('331', '#320#');
    assert.ok(
      sb.logs.some((l) => l.msg === 'transferred answerer here'),
      'the callee ran extension 320',
    );
  });

  it('records the call once the caller types the one-touch recording code (W)', { timeout: 30_000 }, async () => {
    await call('332', '*1567');
    assert.ok(sb.logs.some((l) => l.msg === 'one-touch recording' && l.result === 'started'));
    const dir = join(sb.confDir, 'recordings');
    const autoFiles = () => (existsSync(dir) ? readdirSync(dir).filter((f) => /^auto-\d+-.*\.wav$/.test(f)) : []);
    for (let i = 0; i < 30 && autoFiles().length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 100));
    const files = autoFiles();
    assert.equal(files.length, 1, `one auto-… recording in ${dir}: ${files.join(', ')}`);
    assert.equal(readFileSync(join(dir, files[0])).subarray(0, 4).toString(), 'RIFF', 'a WAV file');
    assert.ok(sb.logs.some((l) => l.msg === 'feature code typed' && l.feature === 'automixmon'));
  });

  it('refuses the REFER of a callee whose endpoint has allow_transfer = no, whatever t/T allow', { timeout: 30_000 }, async () => {
    const callee = runSipp(
      'uas-answer-refer-refused.xml',
      { host: '127.0.0.1', port: sb.sipPort },
      { service: 'answerer', keys: { rtpport: 4414, referto: '320' }, extra: ['-p', String(answererPort)] },
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    const caller = await runSipp('uac-wait-bye.xml', { host: '127.0.0.1', port: sb.sipPort }, { service: '333', keys: { rtpport: 4416 } });
    assert.equal(caller.code, 0, caller.stdout.slice(-2000));
    const refused = await callee;
    assert.equal(refused.code, 0, refused.stdout.slice(-2000));
  });

  it('adds the PJSIP_HEADER(add,…) variables of an API originate to the INVITE', { timeout: 30_000 }, async () => {
    const trace = join(tmpdir(), `originate-headers-${process.pid}-${Date.now()}.log`);
    const callee = runSipp(
      'uas-answer-wait-bye.xml',
      { host: '127.0.0.1', port: sb.sipPort },
      { service: 'answerer', keys: { rtpport: 4418 }, extra: ['-p', String(answererPort), '-trace_msg', '-message_file', trace] },
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    const response = await fetch(`${sb.baseUrl}/ari/channels?endpoint=SIP/answerer&extension=320&context=from-internal&priority=1`, {
      method: 'POST',
      headers: { authorization: basicAuth(), 'content-type': 'application/json' },
      body: JSON.stringify({ variables: { 'PJSIP_HEADER(add,X-Campaign)': 'spring' } }),
    });
    assert.equal(response.status, 200, await response.text());
    const answered = await callee;
    assert.equal(answered.code, 0, answered.stdout.slice(-2000));
    const invite =
      readFileSync(trace, 'utf8')
        .split(/\n\s*\n/)
        .find((m) => /INVITE sip:/.test(m)) ?? '';
    assert.match(invite, /^X-Campaign: spring\r?$/m);
  });
});
