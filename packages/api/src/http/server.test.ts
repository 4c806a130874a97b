import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Logger, silentLogger } from '@switchboard/core';
import { ALICE, basic, type Harness, startHarness } from '../testing/harness.js';
import { MAX_BODY_BYTES } from './body.js';
import { createApiServer } from './server.js';

describe('HTTP layer', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  describe('authentication', () => {
    test('HTTP Basic credentials are accepted', async () => {
      const res = await h.inject({ method: 'GET', url: '/ari/system/ping' });
      assert.equal(res.statusCode, 200);
    });

    test('api_key=user:password is accepted, split at the first colon', async () => {
      const res = await h.inject({ method: 'GET', url: '/ari/system/ping?api_key=viewer:look:only', auth: null });
      assert.equal(res.statusCode, 200);
    });

    test('no credentials: 401 with WWW-Authenticate and a message body', async () => {
      const res = await h.inject({ method: 'GET', url: '/ari/channels', auth: null });
      assert.equal(res.statusCode, 401);
      assert.equal(res.headers['www-authenticate'], 'Basic realm="Switchboard"');
      assert.deepEqual(res.json(), { message: 'Authentication required' });
    });

    test('a wrong password, an unknown user or an empty password is refused', async () => {
      for (const auth of [basic('alice', 'wrong'), basic('mallory', 'secret'), basic('alice', ''), 'Bearer abc']) {
        const res = await h.inject({ method: 'GET', url: '/ari/channels', auth });
        assert.equal(res.statusCode, 401, auth);
      }
      const res = await h.inject({ method: 'GET', url: '/ari/channels?api_key=alice:wrong', auth: null });
      assert.equal(res.statusCode, 401);
    });

    test('Basic wins over api_key', async () => {
      const res = await h.inject({ method: 'GET', url: '/ari/channels?api_key=alice:secret', auth: basic('alice', 'bad') });
      assert.equal(res.statusCode, 401);
    });

    test('api-docs and unknown paths are authenticated too', async () => {
      assert.equal((await h.inject({ method: 'GET', url: '/ari/api-docs/resources.json', auth: null })).statusCode, 401);
      assert.equal((await h.inject({ method: 'GET', url: '/ari/nothing-here', auth: null })).statusCode, 401);
    });

    test('a read-only user may read but not write', async () => {
      const viewer = basic('viewer', 'look:only');
      assert.equal((await h.inject({ method: 'GET', url: '/ari/channels', auth: viewer })).statusCode, 200);
      const res = await h.inject({ method: 'DELETE', url: '/ari/channels/none', auth: viewer });
      assert.equal(res.statusCode, 403);
      assert.deepEqual(res.json(), { message: 'Write access denied' });
    });
  });

  describe('routing and error bodies', () => {
    test('an unknown path is 404 Resource not found', async () => {
      const res = await h.inject({ method: 'GET', url: '/ari/nothing-here' });
      assert.equal(res.statusCode, 404);
      assert.deepEqual(res.json(), { message: 'Resource not found' });
    });

    test('a path that cannot be decoded is 400 with a message body', async () => {
      const res = await h.inject({ method: 'GET', url: '/ari/channels/%zz' });
      assert.equal(res.statusCode, 400);
      assert.deepEqual(res.json(), { message: 'Invalid URL' });
    });

    test('a trailing slash is 404 with advice', async () => {
      const res = await h.inject({ method: 'GET', url: '/ari/channels/' });
      assert.equal(res.statusCode, 404);
      assert.match(res.json<{ message: string }>().message, /trailing slash/);
    });

    test('a known path with another method is 405 Invalid method with Allow', async () => {
      const res = await h.inject({ method: 'PUT', url: '/ari/channels' });
      assert.equal(res.statusCode, 405);
      assert.deepEqual(res.json(), { message: 'Invalid method' });
      assert.equal(res.headers.allow, 'OPTIONS,GET,POST');
      const docs = await h.inject({ method: 'POST', url: '/ari/api-docs/channels.json' });
      assert.equal(docs.statusCode, 405);
      assert.equal(docs.headers.allow, 'OPTIONS,GET');
    });

    test('OPTIONS answers 204 with Allow, and CORS for an allowed origin', async () => {
      const res = await h.inject({
        method: 'OPTIONS',
        url: '/ari/channels/abc',
        headers: {
          origin: 'http://allowed.example',
          'access-control-request-method': 'DELETE',
          'access-control-request-headers': 'content-type',
        },
      });
      assert.equal(res.statusCode, 204);
      assert.equal(res.headers.allow, 'OPTIONS,GET,POST,DELETE');
      assert.equal(res.headers['access-control-allow-origin'], 'http://allowed.example');
      assert.equal(res.headers['access-control-allow-methods'], 'OPTIONS,GET,POST,DELETE');
      assert.equal(res.headers['access-control-allow-headers'], 'content-type');
      const other = await h.inject({ method: 'GET', url: '/ari/channels', headers: { origin: 'http://evil.example' } });
      assert.equal(other.headers['access-control-allow-origin'], undefined);
    });

    test('a literal segment wins over a parameter', async () => {
      const res = await h.inject({ method: 'GET', url: '/ari/api-docs/resources.json' });
      assert.equal(res.statusCode, 200);
    });

    test('an unparsable JSON body is 400', async () => {
      const res = await h.inject({
        method: 'POST',
        url: '/ari/channels/x/answer',
        headers: { 'content-type': 'application/json' },
        payload: '{"a":',
      });
      assert.equal(res.statusCode, 400);
      assert.deepEqual(res.json(), { message: 'Error parsing request body' });
    });

    test('an empty body announced as JSON is no body (ari-client sends that on DELETE)', async () => {
      const res = await h.inject({ method: 'DELETE', url: '/ari/channels/none', headers: { 'content-type': 'application/json' } });
      assert.equal(res.statusCode, 404);
      assert.deepEqual(res.json(), { message: 'Channel not found' });
    });

    test('a body over the limit is 413 with a message body', async () => {
      const res = await h.inject({
        method: 'POST',
        url: '/ari/channels/x/answer',
        headers: { 'content-type': 'application/json' },
        payload: JSON.stringify({ pad: 'x'.repeat(MAX_BODY_BYTES) }),
      });
      assert.equal(res.statusCode, 413);
      assert.equal(typeof res.json<{ message: string }>().message, 'string');
    });

    test('other body types are ignored', async () => {
      const res = await h.inject({
        method: 'POST',
        url: '/ari/channels/x/answer',
        headers: { 'content-type': 'text/plain' },
        payload: 'hello',
      });
      assert.equal(res.statusCode, 404);
    });
  });

  describe('parameters from the request', () => {
    test('JSON body keys override query parameters; form fields act as query parameters', async () => {
      const channel = h.createChannel();
      h.enterApplication(channel, 'params-app');
      const json = await h.inject({
        method: 'POST',
        url: `/ari/channels/${channel.id}/play?media=sound:ignored&playbackId=from-query`,
        headers: { 'content-type': 'application/json; charset=utf-8' },
        payload: { media: ['sound:hello-world', 'digits:1'], playbackId: 'from-body' },
      });
      assert.equal(json.statusCode, 201);
      assert.equal(json.json<{ id: string; media_uri: string }>().id, 'from-body');
      assert.equal(json.json<{ next_media_uri: string }>().next_media_uri, 'digits:1');

      const form = await h.inject({
        method: 'POST',
        url: `/ari/channels/${channel.id}/play`,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        payload: 'media=sound:hello-world&playbackId=from-form',
      });
      assert.equal(form.statusCode, 201);
      assert.equal(form.json<{ id: string }>().id, 'from-form');
    });

    test('a repeated query parameter keeps its last value', async () => {
      const res = await h.inject({ method: 'GET', url: '/ari/system/info?only=build&only=status' });
      assert.deepEqual(Object.keys(res.json()), ['status']);
    });
  });
});

describe('users with crypt passwords', () => {
  test('cannot log in (the format is not supported)', async () => {
    const h = await startHarness({
      users: [{ name: 'old', password: 'abc', passwordFormat: 'crypt', readOnly: false, dialect: 'switchboard' }],
    });
    try {
      assert.equal((await h.inject({ method: 'GET', url: '/ari/system/ping', auth: basic('old', 'abc') })).statusCode, 401);
    } finally {
      await h.close();
    }
  });
});

describe('URL prefix', () => {
  test('the API is served under <prefix>/ari', async () => {
    const h = await startHarness({ prefix: '/pbx/' });
    try {
      assert.equal((await h.inject({ method: 'GET', url: '/pbx/ari/system/ping' })).statusCode, 200);
      assert.equal((await h.inject({ method: 'GET', url: '/ari/system/ping' })).statusCode, 404);
      const listing = await h.inject({ method: 'GET', url: '/pbx/ari/api-docs/resources.json', headers: { host: 'pbx.example:8088' } });
      assert.equal(listing.json<{ basePath: string }>().basePath, 'http://pbx.example:8088/pbx/ari');
    } finally {
      await h.close();
    }
  });
});

describe('request accounting', () => {
  test('each request is logged once at debug level and counted once, by route pattern and never by URL', async () => {
    const h = await startHarness();
    const logged: object[] = [];
    const counted: { method: string; route: string; status: number }[] = [];
    const capture: Logger = { ...silentLogger, debug: (obj) => void (typeof obj === 'object' && logged.push(obj)), child: () => capture };
    const server = createApiServer(h.core, {
      logger: capture,
      onRequestDone: ({ method, route, status }) => counted.push({ method, route, status }),
    });
    try {
      const secretKey = 'alice:secret';
      const ping = await server.app.inject({ method: 'GET', url: `/ari/system/ping?api_key=${encodeURIComponent(secretKey)}` });
      assert.equal(ping.statusCode, 200);
      const missing = await server.app.inject({ method: 'GET', url: '/ari/nowhere', headers: { authorization: ALICE } });
      assert.equal(missing.statusCode, 404);
      assert.deepEqual(counted, [
        { method: 'GET', route: '/ari/system/ping', status: 200 },
        { method: 'GET', route: 'unmatched', status: 404 },
      ]);
      assert.equal(logged.length, 2);
      assert.ok(!JSON.stringify(logged).includes('secret'), 'the query string (api_key) is never logged');
      assert.deepEqual(
        logged.map((entry) => ({ ...entry, ms: typeof (entry as { ms: unknown }).ms })),
        counted.map((entry) => ({ ...entry, ms: 'number' })),
      );
    } finally {
      await server.close();
      await h.close();
    }
  });
});
