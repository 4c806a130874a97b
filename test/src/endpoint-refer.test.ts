/**
 * REFER outside a call through the API (reference endpoints.md `refer`, `referToEndpoint`): a
 * registered sipp phone receives it with the Refer-To the application asked for.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { basicAuth, freePort, type RunningSwitchboard, runSipp, startSwitchboard } from './harness.js';
import { digestPhone, NAT_PHONE, udpTransport } from './pjsip-phones.js';

describe('REFER out of dialog', () => {
  let sb: RunningSwitchboard;
  let bobPort: number;
  const target = () => ({ host: '127.0.0.1', port: sb.sipPort });
  const api = (method: string, path: string, body?: unknown) =>
    fetch(`${sb.baseUrl}/ari${path}`, {
      method,
      headers: { authorization: basicAuth(), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });

  before(async () => {
    const sipPort = await freePort('udp');
    const pjsip = [udpTransport(sipPort), digestPhone('alice', 'wonderland', NAT_PHONE), digestPhone('bob', 'builder', NAT_PHONE)].join(
      '\n',
    );
    sb = await startSwitchboard({ sipPort, extraFiles: { 'pjsip.conf': pjsip } });
    bobPort = await freePort('udp');
    const registered = await runSipp('register-auth.xml', target(), {
      service: 'bob',
      keys: { expires: 300 },
      extra: ['-au', 'bob', '-ap', 'builder', '-p', String(bobPort)],
    });
    assert.equal(registered.code, 0, registered.stdout.slice(-2000));
  });
  after(async () => {
    await sb.stop();
  });

  it('refers a registered phone to a URI, with a display name and headers', { timeout: 30_000 }, async () => {
    const phone = runSipp('refer-uas.xml', target(), {
      service: 'bob',
      keys: { referto: '"Front Desk" <sip:desk@example.com>' },
      extra: ['-p', String(bobPort)],
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const res = await api('POST', '/endpoints/refer?to=pjsip:bob&from=alice&refer_to=pjsip:sip:desk@example.com', {
      display_name: 'Front Desk',
      variables: { 'X-Reason': 'moving' },
    });
    assert.equal(res.status, 202, await res.text());
    const received = await phone;
    assert.equal(received.code, 0, received.stdout.slice(-2000));
  });

  it('refers an endpoint to one of ours through this server (to_self)', { timeout: 30_000 }, async () => {
    const phone = runSipp('refer-uas.xml', target(), {
      service: 'bob',
      keys: { referto: `<sip:alice@127.0.0.1:${sb.sipPort}>` },
      extra: ['-p', String(bobPort)],
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const res = await api('POST', '/endpoints/PJSIP/bob/refer?from=alice&refer_to=alice&to_self=yes', {
      variables: { 'X-Reason': 'moving' },
    });
    assert.equal(res.status, 202, await res.text());
    const received = await phone;
    assert.equal(received.code, 0, received.stdout.slice(-2000));
  });

  it('answers 404 for a party that does not exist and 400 without refer_to', { timeout: 10_000 }, async () => {
    assert.equal((await api('POST', '/endpoints/SIP/nobody/refer?from=alice&refer_to=alice')).status, 404);
    assert.equal((await api('POST', '/endpoints/refer?to=pjsip:nobody&from=alice&refer_to=alice')).status, 404);
    assert.equal((await api('POST', '/endpoints/refer?to=pjsip:bob&from=alice&refer_to=nobody')).status, 404);
    assert.equal((await api('POST', '/endpoints/refer?to=pjsip:bob&from=alice')).status, 400);
  });
});
