/**
 * The control API against hostile clients, over real sockets from several loopback addresses:
 * a read-only user cannot take an application over through the events WebSocket, ari.conf user
 * ACLs (acl.conf names, permit/deny) refuse logins from other addresses like a bad password, and
 * repeated bad logins lock an address out as SIP digest failures do.
 */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, it } from 'node:test';
import WebSocket from 'ws';
import { API_PASSWORD, API_USER, type RunningSwitchboard, startSwitchboard } from './harness.js';

const ARI_CONF = `[general]
enabled = yes

[${API_USER}]
type = user
password = ${API_PASSWORD}

[reader]
type = user
password = reader-pass
read_only = yes

[boss]
type = user
password = boss-pass
acl = only-two

[limited]
type = user
password = limited-pass
permit = 127.0.0.0/8
deny = 127.0.0.1/255.255.255.255
`;

const ACL_CONF = `[only-two]
deny = 0.0.0.0/0
permit = 127.0.0.2
`;

const auth = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

/** A GET from a chosen loopback source address; resolves with the status. */
function getFrom(sb: RunningSwitchboard, path: string, authorization: string, localAddress: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port: sb.httpPort, path, localAddress, headers: { authorization } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.setTimeout(5000, () => req.destroy(new Error('no answer')));
    req.end();
  });
}

/** The status of an events upgrade (101 when it opened), from a chosen source address. */
function upgradeFrom(sb: RunningSwitchboard, app: string, authorization: string, localAddress = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`ws://127.0.0.1:${sb.httpPort}/ari/events?app=${app}`, { headers: { authorization }, localAddress });
    const timer = setTimeout(() => reject(new Error('no answer to the upgrade')), 5000);
    socket.on('open', () => {
      clearTimeout(timer);
      socket.close();
      resolve(101);
    });
    socket.on('unexpected-response', (_req, res) => {
      clearTimeout(timer);
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    socket.on('error', () => undefined);
  });
}

describe('API against hostile clients', () => {
  let sb: RunningSwitchboard;
  before(async () => {
    sb = await startSwitchboard({ extraFiles: { 'ari.conf': ARI_CONF, 'acl.conf': ACL_CONF } });
  });
  after(async () => {
    await sb.stop();
  });

  it('refuses an events connection to a read-only user, so it cannot replace an application', async () => {
    const owner = new WebSocket(`ws://127.0.0.1:${sb.httpPort}/ari/events?app=victim`, {
      headers: { authorization: auth(API_USER, API_PASSWORD) },
    });
    const received: string[] = [];
    owner.on('message', (data) => received.push((JSON.parse(String(data)) as { type: string }).type));
    await new Promise<void>((resolve, reject) => {
      owner.once('open', () => resolve());
      owner.once('error', reject);
    });
    try {
      assert.equal(await upgradeFrom(sb, 'victim', auth('reader', 'reader-pass')), 403);
      const reading = await getFrom(sb, '/ari/applications/victim', auth('reader', 'reader-pass'), '127.0.0.1');
      assert.equal(reading, 200, 'reading stays allowed');
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.ok(!received.includes('ApplicationReplaced'), `events: ${received.join(', ')}`);
    } finally {
      owner.close();
    }
  });

  it('refuses a user from an address its ACL does not admit with 401, and logs a security event', async () => {
    assert.equal(await getFrom(sb, '/ari/system/ping', auth('boss', 'boss-pass'), '127.0.0.1'), 401);
    assert.equal(await getFrom(sb, '/ari/system/ping', auth('boss', 'boss-pass'), '127.0.0.2'), 200);
    assert.equal(await upgradeFrom(sb, 'bossapp', auth('boss', 'boss-pass'), '127.0.0.1'), 401);
    assert.equal(await upgradeFrom(sb, 'bossapp', auth('boss', 'boss-pass'), '127.0.0.2'), 101);
    assert.equal(await getFrom(sb, '/ari/system/ping', auth('limited', 'limited-pass'), '127.0.0.1'), 401);
    assert.equal(await getFrom(sb, '/ari/system/ping', auth('limited', 'limited-pass'), '127.0.0.4'), 200);
    assert.ok(
      sb.logs.some((line) => line.securityEvent === 'acl_denied'),
      'acl_denied logged',
    );
  });

  it('locks an address out after repeated bad logins, leaving other addresses alone', async () => {
    for (let i = 0; i < 10; i++) {
      assert.equal(await getFrom(sb, '/ari/system/ping', auth(API_USER, `guess-${i}`), '127.0.0.3'), 401);
    }
    assert.equal(await getFrom(sb, '/ari/system/ping', auth(API_USER, API_PASSWORD), '127.0.0.3'), 403);
    assert.equal(await upgradeFrom(sb, 'x', auth(API_USER, API_PASSWORD), '127.0.0.3'), 403);
    assert.equal(await getFrom(sb, '/ari/system/ping', auth(API_USER, API_PASSWORD), '127.0.0.1'), 200);
    assert.ok(
      sb.logs.some((line) => line.securityEvent === 'auth_blocked'),
      'auth_blocked logged',
    );
  });
});
