/** Authentication, MissingParams and api-docs as real clients see them over real sockets. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import ari from 'ari-client';
import WebSocket from 'ws';
import { API_PASSWORD, API_USER, type RunningSwitchboard, basicAuth, startSwitchboard } from './harness.js';

/** Opens a WebSocket and reports the HTTP status of a refused upgrade (or 101). */
function upgradeStatus(url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(url, { headers });
    const timer = setTimeout(() => reject(new Error('no answer to the upgrade')), 5000);
    socket.on('open', () => {
      clearTimeout(timer);
      socket.close();
      resolve({ status: 101, body: '' });
    });
    socket.on('unexpected-response', (_req, res) => {
      let body = '';
      res.on('data', (c: Buffer) => {
        body += c.toString();
      });
      res.on('end', () => {
        clearTimeout(timer);
        resolve({ status: res.statusCode ?? 0, body });
      });
    });
    socket.on('error', () => undefined);
  });
}

describe('API access', () => {
  let sb: RunningSwitchboard;
  before(async () => {
    sb = await startSwitchboard();
  });
  after(async () => {
    await sb.stop();
  });

  it('refuses REST requests without or with wrong credentials', async () => {
    for (const headers of [{}, { authorization: basicAuth(API_USER, 'wrong') }] as Record<string, string>[]) {
      const res = await fetch(`${sb.baseUrl}/ari/channels`, { headers });
      assert.equal(res.status, 401);
      assert.match(res.headers.get('www-authenticate') ?? '', /^Basic realm=/);
      assert.equal(typeof ((await res.json()) as { message: string }).message, 'string');
    }
    const wrongKey = await fetch(`${sb.baseUrl}/ari/channels?api_key=${API_USER}:nope`);
    assert.equal(wrongKey.status, 401);
  });

  it('accepts Basic credentials and api_key', async () => {
    const basic = await fetch(`${sb.baseUrl}/ari/channels`, { headers: { authorization: basicAuth() } });
    assert.equal(basic.status, 200);
    assert.deepEqual(await basic.json(), []);
    const key = await fetch(`${sb.baseUrl}/ari/system/ping?api_key=${API_USER}:${API_PASSWORD}`);
    assert.equal(key.status, 200);
    const pong = (await key.json()) as { ping: string; asterisk_id: string };
    assert.equal(pong.ping, 'pong');
  });

  it('refuses writes from a read-only user', async () => {
    const res = await fetch(`${sb.baseUrl}/ari/channels/nope/answer`, {
      method: 'POST',
      headers: { authorization: basicAuth('reader', 'reader-pass') },
    });
    assert.equal(res.status, 403);
  });

  it('answers an unknown channel with 404 and a JSON message', async () => {
    const res = await fetch(`${sb.baseUrl}/ari/channels/nope`, { headers: { authorization: basicAuth() } });
    assert.equal(res.status, 404);
    assert.equal(typeof ((await res.json()) as { message: string }).message, 'string');
  });

  it('refuses the events WebSocket without credentials and without an app', async () => {
    const ws = sb.baseUrl.replace('http', 'ws');
    assert.equal((await upgradeStatus(`${ws}/ari/events?app=demo`)).status, 401);
    assert.equal((await upgradeStatus(`${ws}/ari/events?app=demo&api_key=${API_USER}:wrong`)).status, 401);
    const missing = await upgradeStatus(`${ws}/ari/events?api_key=${API_USER}:${API_PASSWORD}`);
    assert.equal(missing.status, 400);
    assert.match(missing.body, /MissingParams/);
    assert.equal((await upgradeStatus(`${ws}/ari/events?app=demo&api_key=${API_USER}:${API_PASSWORD}`)).status, 101);
  });

  it('ari-client builds itself from our api-docs', { timeout: 20_000 }, async () => {
    const client = await ari.connect(sb.baseUrl, API_USER, API_PASSWORD);
    for (const resource of ['system', 'channels', 'applications', 'playbacks', 'sounds']) {
      assert.equal(typeof client[resource], 'object', `client.${resource}`);
    }
    const info = (await client.system.getInfo()) as { system: { entity_id: string } };
    assert.match(info.system.entity_id, /^([0-9a-f]{2}:){5}[0-9a-f]{2}$/);
    const sounds = (await client.sounds.list()) as { id: string }[];
    assert.ok(sounds.some((s) => s.id === 'hello-world'));
    await client.start('lister');
    const apps = (await client.applications.list()) as { name: string }[];
    assert.ok(apps.some((a) => a.name === 'lister'));
    client.stop();
  });
});
