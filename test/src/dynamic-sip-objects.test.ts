/**
 * SIP objects that appear at run time: an endpoint, aor and auth created through dynamic
 * configuration register, are dialled, place calls and exchange messages at once and after a
 * restart; `module reload res_pjsip` rereads pjsip.conf while a call is up, and the call goes on.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { basicAuth, freePort, type RunningSwitchboard, runSipp, startSwitchboard } from './harness.js';
import { digestPhone, NAT_PHONE, udpTransport } from './pjsip-phones.js';

const credentials = (user: string, password: string) => ['-au', user, '-ap', password];

const DIALPLAN = `
exten => 200,1,Answer()
 same => n,Playback(hello-world)
 same => n,Hangup()
exten => 300,1,Dial(SIP/dyn,20)
 same => n,Hangup()
exten => 400,1,Answer()
 same => n,Wait(4)
 same => n,Hangup()
`;

/** The objects of a phone as dynamic configuration tuples (the same options as in pjsip.conf). */
const DYNAMIC_PHONE = {
  'auth/dyn-auth': { auth_type: 'userpass', username: 'dyn', password: 'dynamo' },
  'aor/dyn': { max_contacts: '1', remove_existing: 'yes' },
  'endpoint/dyn': {
    context: 'from-internal',
    disallow: 'all',
    allow: 'ulaw,alaw',
    auth: 'dyn-auth',
    aors: 'dyn',
    force_rport: 'yes',
    rewrite_contact: 'yes',
  },
};

describe('SIP objects from dynamic configuration and pjsip.conf reload', () => {
  let sb: RunningSwitchboard;
  let sipPort: number;
  const target = () => ({ host: '127.0.0.1', port: sb.sipPort });
  const api = (method: string, path: string, body?: unknown) =>
    fetch(`${sb.baseUrl}/ari${path}`, {
      method,
      headers: { authorization: basicAuth(), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  const register = (user: string, password: string, port?: number) =>
    runSipp('register-auth.xml', target(), {
      service: user,
      keys: { expires: 300 },
      extra: [...credentials(user, password), ...(port === undefined ? [] : ['-p', String(port)])],
      timeoutSeconds: 10,
    });

  before(async () => {
    sipPort = await freePort('udp');
    const pjsip = [udpTransport(sipPort), digestPhone('alice', 'wonderland', NAT_PHONE)].join('\n');
    sb = await startSwitchboard({ sipPort, dialplan: DIALPLAN, extraFiles: { 'pjsip.conf': pjsip } });
  });
  after(async () => {
    await sb.stop();
  });

  it('an endpoint created with PUT registers, is dialled, calls and sends messages at once', { timeout: 90_000 }, async () => {
    const before = await register('dyn', 'dynamo');
    assert.notEqual(before.code, 0, 'no such endpoint yet');
    for (const [path, fields] of Object.entries(DYNAMIC_PHONE)) {
      const res = await api('PUT', `/system/res_pjsip/${path}`, {
        fields: Object.entries(fields).map(([attribute, value]) => ({ attribute, value })),
      });
      assert.equal(res.status, 200, `${path}: ${await res.text()}`);
    }

    const dynPort = await freePort('udp');
    const registered = await register('dyn', 'dynamo', dynPort);
    assert.equal(registered.code, 0, registered.stdout.slice(-2000));
    const endpoint = (await (await api('GET', '/endpoints/SIP/dyn')).json()) as { state: string };
    assert.equal(endpoint.state, 'online');

    // Dialled: alice calls 300 → Dial(SIP/dyn) rings the phone at its registered contact.
    const callee = runSipp('uas-answer-bye.xml', target(), { service: 'dyn', keys: { rtpport: 4102 }, extra: ['-p', String(dynPort)] });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const caller = await runSipp('uac-auth-wait-bye.xml', target(), {
      service: '300',
      keys: { user: 'alice', rtpport: 4104 },
      extra: credentials('alice', 'wonderland'),
    });
    const answered = await callee;
    assert.equal(answered.code, 0, answered.stdout.slice(-2000));
    assert.equal(caller.code, 0, caller.stdout.slice(-2000));

    // Calls out: an authenticated INVITE from the new endpoint runs the dialplan.
    const outgoing = await runSipp('uac-auth-wait-bye.xml', target(), {
      service: '200',
      keys: { user: 'dyn', rtpport: 4106 },
      extra: credentials('dyn', 'dynamo'),
    });
    assert.equal(outgoing.code, 0, outgoing.stdout.slice(-2000));

    // Messages both ways.
    const sent = await runSipp('message-uac-auth.xml', target(), {
      service: 'alice',
      keys: { user: 'dyn' },
      extra: credentials('dyn', 'dynamo'),
    });
    assert.equal(sent.code, 0, sent.stdout.slice(-2000));
    const phone = runSipp('message-uas.xml', target(), { service: 'dyn', keys: { text: 'ahoy' }, extra: ['-p', String(dynPort)] });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const toPhone = await api('PUT', '/endpoints/SIP/dyn/sendMessage?from=alice&body=ahoy%20there', { variables: { 'X-Color': 'blue' } });
    assert.equal(toPhone.status, 202, await toPhone.text());
    assert.equal((await phone).code, 0);
  });

  it('the stored endpoint is there again after a restart, registration included', { timeout: 60_000 }, async () => {
    await sb.restart();
    assert.ok(sb.logs.some((l) => l.msg === 'registrations restored' && Number(l.restored) >= 1));
    const endpoint = (await (await api('GET', '/endpoints/SIP/dyn')).json()) as { state: string };
    assert.equal(endpoint.state, 'online');
    const again = await register('dyn', 'dynamo');
    assert.equal(again.code, 0, again.stdout.slice(-2000));
  });

  it('deleting the endpoint takes it out of the SIP driver', { timeout: 30_000 }, async () => {
    assert.equal((await api('DELETE', '/system/res_pjsip/endpoint/dyn')).status, 204);
    const refused = await register('dyn', 'dynamo');
    assert.notEqual(refused.code, 0);
  });

  it('module reload res_pjsip rereads pjsip.conf while a call is up; the call goes on', { timeout: 60_000 }, async () => {
    const refusedBefore = await register('carol', 'singer');
    assert.notEqual(refusedBefore.code, 0, 'carol is not configured yet');
    const call = runSipp('uac-auth-wait-bye.xml', target(), {
      service: '400',
      keys: { user: 'alice', rtpport: 4108 },
      extra: credentials('alice', 'wonderland'),
    });
    await new Promise((resolve) => setTimeout(resolve, 1000));
    // alice's password changes and carol appears; the call alice placed is not touched.
    const pjsip = [udpTransport(sipPort), digestPhone('alice', 'looking-glass', NAT_PHONE), digestPhone('carol', 'singer', NAT_PHONE)].join(
      '\n',
    );
    writeFileSync(join(sb.confDir, 'pjsip.conf'), pjsip);
    const reload = await api('PUT', '/system/modules/res_pjsip');
    assert.equal(reload.status, 204, await reload.text());
    const carol = await register('carol', 'singer');
    assert.equal(carol.code, 0, carol.stdout.slice(-2000));
    assert.equal((await register('alice', 'looking-glass')).code, 0, 'the changed password is in force');
    assert.notEqual((await register('alice', 'wonderland')).code, 0, 'the old one is not');
    const listed = (await (await api('GET', '/endpoints/SIP')).json()) as { resource: string }[];
    assert.ok(listed.some((e) => e.resource === 'carol'));
    const ended = await call;
    assert.equal(ended.code, 0, `the call up during the reload: ${ended.stdout.slice(-2000)}`);

    // A file that cannot be read leaves everything in force (409).
    writeFileSync(join(sb.confDir, 'pjsip.conf'), `${pjsip}\n[broken]\ntype = endpoint\nauth = missing\n`);
    assert.equal((await api('PUT', '/system/modules/res_pjsip')).status, 409);
    assert.equal((await register('carol', 'singer')).code, 0);
  });
});
