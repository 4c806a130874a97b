/**
 * The configuration shipped in conf/, as a new user runs it: two softphones on this machine
 * (sipp on 127.0.0.2 and 127.0.0.3) register as 1001 and 1002 and call each other, although the
 * shipped `local-phone` identify claims every request from 127.0.0.1 (`endpoint_identifier_order`
 * puts the From user first). The copy of conf/ lives in a temporary directory, so its
 * `sounds = ../sounds` points nowhere and the shipped prompts must be found from the installation.
 * Only ports and the bind address are rewritten.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { freePort, REPO_ROOT, type RunningSwitchboard, runSipp, startSwitchboard } from './harness.js';

function shipped(name: string): string {
  return readFileSync(join(REPO_ROOT, 'conf', name), 'utf8');
}

describe('the shipped configuration', () => {
  let sb: RunningSwitchboard;
  const target = () => ({ host: '127.0.0.1', port: sb.sipPort });

  before(async () => {
    const sipPort = await freePort('udp');
    const httpPort = await freePort('tcp');
    sb = await startSwitchboard({
      sipPort,
      httpPort,
      extraFiles: {
        'pjsip.conf': shipped('pjsip.conf').replace('bind = 0.0.0.0:5060', `bind = 127.0.0.1:${sipPort}`),
        'extensions.conf': shipped('extensions.conf'),
        'switchboard.conf': shipped('switchboard.conf').replace('mediaworkers = 0', 'mediaworkers = 1'),
        'http.conf': shipped('http.conf').replace(/bindport\s*=\s*\d+/, `bindport = ${httpPort}`),
        'musiconhold.conf': shipped('musiconhold.conf'),
        'indications.conf': shipped('indications.conf'),
      },
    });
  });
  after(async () => {
    await sb.stop();
  });

  it('finds the shipped prompts from the installation and says how many', () => {
    const found = sb.logs.filter((l) => l.msg === 'sound directory');
    assert.ok(
      found.some((l) => Number(l.prompts) > 10 && String(l.directory).startsWith(join(REPO_ROOT, 'sounds'))),
      JSON.stringify(found),
    );
  });

  it('lets two phones on this machine register and call each other', { timeout: 60_000 }, async () => {
    const phone1002Port = await freePort('udp');
    const registered1001 = await runSipp('register-auth.xml', target(), {
      service: '1001',
      keys: { expires: 300 },
      extra: ['-au', '1001', '-ap', 'change-me-1001', '-i', '127.0.0.2'],
    });
    assert.equal(registered1001.code, 0, registered1001.stdout.slice(-2000));
    const registered1002 = await runSipp('register-auth.xml', target(), {
      service: '1002',
      keys: { expires: 300 },
      extra: ['-au', '1002', '-ap', 'change-me-1002', '-i', '127.0.0.3', '-p', String(phone1002Port)],
    });
    assert.equal(registered1002.code, 0, registered1002.stdout.slice(-2000));
    assert.ok(sb.logs.some((l) => l.msg === 'contact added' && l.aor === '1002'));

    const callee = runSipp(
      'uas-answer-bye.xml',
      { host: '127.0.0.1', port: sb.sipPort },
      {
        service: '1002',
        keys: { rtpport: 4102 },
        extra: ['-i', '127.0.0.3', '-p', String(phone1002Port)],
      },
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    const caller = await runSipp('uac-auth-wait-bye.xml', target(), {
      service: '1002',
      keys: { user: '1001', rtpport: 4104 },
      extra: ['-au', '1001', '-ap', 'change-me-1001', '-i', '127.0.0.2'],
    });
    const answered = await callee;
    assert.equal(caller.code, 0, caller.stdout.slice(-2000));
    assert.equal(answered.code, 0, answered.stdout.slice(-2000));
  });

  it('refuses a wrong password and logs the failure at warning level', { timeout: 30_000 }, async () => {
    const wrong = await runSipp('register-wrong-password.xml', target(), {
      service: '1002',
      keys: { expires: 300 },
      extra: ['-au', '1002', '-ap', 'nope', '-i', '127.0.0.3'],
    });
    assert.equal(wrong.code, 0, wrong.stdout.slice(-2000));
    assert.ok(sb.logs.some((l) => l.level === 40 && l.securityEvent === 'auth_failed' && l.address === '127.0.0.3'));
  });
});
