/**
 * PBX phones against the real process and sipp: REGISTER with digest (right and wrong password),
 * un-registration, an authenticated INVITE, registrations across a restart, and a Dial() between
 * two phones. The harness writes a pjsip.conf with an identify for 127.0.0.1; these tests replace
 * it with endpoints that authenticate by digest and restart the process on it.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { basicAuth, freePort, type RunningSwitchboard, runSipp, startSwitchboard } from './harness.js';
import { digestPhone, NAT_PHONE, udpTransport } from './pjsip-phones.js';

/** sipp answers challenges with the credentials given on its command line. */
const credentials = (user: string, password: string) => ['-au', user, '-ap', password];

const DIALPLAN = `
exten => 200,1,Answer()
 same => n,Playback(hello-world)
 same => n,Hangup()
exten => 300,1,Dial(SIP/bob,20)
 same => n,Hangup()
`;

function pjsipConf(sipPort: number): string {
  return [
    udpTransport(sipPort),
    digestPhone('alice', 'wonderland', { ...NAT_PHONE, aor: ['max_contacts = 1', 'remove_existing = yes'] }),
    digestPhone('bob', 'builder', { ...NAT_PHONE, aor: ['max_contacts = 2', 'minimum_expiration = 60', 'default_expiration = 600'] }),
  ].join('\n');
}

describe('PBX: phones register and authenticate', () => {
  let sb: RunningSwitchboard;
  const target = () => ({ host: '127.0.0.1', port: sb.sipPort });

  before(async () => {
    sb = await startSwitchboard({ dialplan: DIALPLAN });
    writeFileSync(join(sb.confDir, 'pjsip.conf'), pjsipConf(sb.sipPort));
    await sb.restart();
  });
  after(async () => {
    await sb.stop();
  });

  it('registers with the right password and lists the contact with its expiry', { timeout: 30_000 }, async () => {
    const sipp = await runSipp('register-auth.xml', target(), {
      service: 'alice',
      keys: { expires: 300 },
      extra: credentials('alice', 'wonderland'),
    });
    assert.equal(sipp.code, 0, sipp.stdout.slice(-2000));
    assert.ok(sb.logs.some((l) => l.msg === 'contact added' && l.aor === 'alice'));
  });

  it('answers a wrong password and an unknown user with a new challenge and logs a security event', { timeout: 30_000 }, async () => {
    const wrong = await runSipp('register-wrong-password.xml', target(), {
      service: 'bob',
      keys: { expires: 300 },
      extra: credentials('bob', 'nope'),
    });
    assert.equal(wrong.code, 0, wrong.stdout.slice(-2000));
    const unknown = await runSipp('register-wrong-password.xml', target(), {
      service: 'mallory',
      keys: { expires: 300 },
      extra: credentials('mallory', 'x'),
    });
    assert.equal(unknown.code, 0, unknown.stdout.slice(-2000));
    assert.ok(sb.logs.some((l) => l.securityEvent === 'auth_failed' && l.address === '127.0.0.1'));
  });

  it('refuses an interval below minimum_expiration with 423', { timeout: 30_000 }, async () => {
    // register-auth expects 200; a 423 makes the scenario fail.
    const sipp = await runSipp('register-auth.xml', target(), {
      service: 'bob',
      keys: { expires: 30 },
      extra: credentials('bob', 'builder'),
    });
    assert.notEqual(sipp.code, 0);
    assert.match(sipp.stdout + sipp.stderr, /423/);
  });

  it('un-registers every contact with Contact: * and Expires: 0', { timeout: 30_000 }, async () => {
    const added = await runSipp('register-auth.xml', target(), {
      service: 'bob',
      keys: { expires: 300 },
      extra: credentials('bob', 'builder'),
    });
    assert.equal(added.code, 0, added.stdout.slice(-2000));
    const removed = await runSipp('unregister-auth.xml', target(), { service: 'bob', extra: credentials('bob', 'builder') });
    assert.equal(removed.code, 0, removed.stdout.slice(-2000));
    assert.ok(sb.logs.some((l) => l.msg === 'contact removed' && l.aor === 'bob'));
  });

  it('authenticates an INVITE and runs the dialplan', { timeout: 30_000 }, async () => {
    const sipp = await runSipp('uac-auth-wait-bye.xml', target(), {
      service: '200',
      keys: { user: 'alice', rtpport: 4000 },
      extra: credentials('alice', 'wonderland'),
    });
    assert.equal(sipp.code, 0, sipp.stdout.slice(-2000));
  });

  it('keeps a registration across a restart', { timeout: 40_000 }, async () => {
    const sipp = await runSipp('register-auth.xml', target(), {
      service: 'alice',
      keys: { expires: 600 },
      extra: credentials('alice', 'wonderland'),
    });
    assert.equal(sipp.code, 0, sipp.stdout.slice(-2000));
    await sb.restart();
    assert.ok(
      sb.logs.some((l) => l.msg === 'registrations restored' && Number(l.restored) >= 1),
      'the contact is restored',
    );
    const res = await fetch(`${sb.baseUrl}/ari/endpoints/SIP/alice`, { headers: { authorization: basicAuth() } });
    assert.equal(res.status, 200);
    assert.equal(((await res.json()) as { state: string }).state, 'online', 'the restored contact makes the endpoint online');
  });

  it('Dial() rings a registered phone, bridges it with the caller and ends both when it hangs up', { timeout: 40_000 }, async () => {
    const bobPort = await freePort('udp');
    const registered = await runSipp('register-auth.xml', target(), {
      service: 'bob',
      keys: { expires: 300 },
      extra: [...credentials('bob', 'builder'), '-p', String(bobPort)],
    });
    assert.equal(registered.code, 0, registered.stdout.slice(-2000));
    // Bob's phone listens on the port it registered from; the caller dials 300 → Dial(SIP/bob).
    const callee = runSipp('uas-answer-bye.xml', target(), {
      service: 'bob',
      keys: { rtpport: 4002 },
      extra: ['-p', String(bobPort)],
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const caller = await runSipp('uac-auth-wait-bye.xml', target(), {
      service: '300',
      keys: { user: 'alice', rtpport: 4004 },
      extra: credentials('alice', 'wonderland'),
    });
    const answered = await callee;
    assert.equal(answered.code, 0, answered.stdout.slice(-2000));
    assert.equal(caller.code, 0, caller.stdout.slice(-2000));
  });
});
