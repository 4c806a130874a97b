import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Harness, startHarness } from '../testing/harness.js';
import { type Inbox, openInbox, type ReceivedEvent } from '../testing/ws-inbox.js';

describe('REST over the events WebSocket', () => {
  let h: Harness;
  let url: string;
  let inbox: Inbox;
  let requests = 0;
  before(async () => {
    h = await startHarness();
    const { port } = await h.server.listen('127.0.0.1', 0);
    url = `ws://127.0.0.1:${port}/ari/events`;
    inbox = await openInbox(`${url}?app=rest-app&api_key=alice:secret`);
  });
  after(async () => {
    await inbox.close();
    await h.close();
  });

  /** Sends a frame and waits for the RESTResponse with its request_id. */
  async function request(frame: Record<string, unknown> | string, on: Inbox = inbox): Promise<ReceivedEvent> {
    requests += 1;
    const requestId = `r-${requests}`;
    const text = typeof frame === 'string' ? frame : JSON.stringify({ type: 'RESTRequest', request_id: requestId, ...frame });
    on.ws.send(text);
    const match = typeof frame === 'string' ? (e: ReceivedEvent) => e.type === 'RESTResponse' && e.request_id === '' : undefined;
    const response = await on.next(match ?? ((e) => e.type === 'RESTResponse' && e.request_id === requestId));
    on.seen.splice(on.seen.indexOf(response), 1);
    return response;
  }

  test('a GET answers what HTTP answers, in the RESTResponse envelope', async () => {
    const http = await h.inject({ method: 'GET', url: '/ari/applications/rest-app' });
    const response = await request({ method: 'GET', uri: 'applications/rest-app', transaction_id: 't-1' });
    assert.equal(response.status_code, 200);
    assert.equal(response.reason_phrase, 'OK');
    assert.equal(response.transaction_id, 't-1');
    assert.equal(response.uri, 'applications/rest-app');
    assert.equal(response.application, 'rest-app');
    assert.equal(response.content_type, 'application/json');
    assert.deepEqual(JSON.parse(String(response.message_body)), http.json());
  });

  test('a POST with a JSON body and query_strings changes the same objects as HTTP', async () => {
    const channel = h.createChannel();
    h.enterApplication(channel, 'rest-app');
    const response = await request({
      method: 'POST',
      uri: `channels/${channel.id}/variable`,
      query_strings: [
        { name: 'variable', value: 'GREETING' },
        { name: 'value', value: 'hello' },
      ],
    });
    assert.equal(response.status_code, 204);
    assert.equal(response.message_body, undefined);
    assert.equal(channel.getVariable('GREETING'), 'hello');
    const body = await request({
      method: 'POST',
      uri: `channels/${channel.id}/variable?variable=JSONVAR`,
      content_type: 'application/json',
      message_body: JSON.stringify({ value: 'from-body' }),
    });
    assert.equal(body.status_code, 204);
    assert.equal(channel.getVariable('JSONVAR'), 'from-body');
  });

  test('errors are the HTTP errors: status, reason phrase and {message}', async () => {
    for (const [method, uri] of [
      ['GET', 'channels/no-such-channel'],
      ['POST', 'channels/no-such-channel/answer'],
      ['GET', 'no/such/resource'],
      ['POST', 'channels/x/variable'],
    ] as const) {
      const http = await h.inject({ method, url: `/ari/${uri}` });
      const response = await request({ method, uri });
      assert.equal(response.status_code, http.statusCode, `${method} ${uri}`);
      assert.deepEqual(JSON.parse(String(response.message_body)), http.json(), `${method} ${uri}`);
    }
  });

  test('malformed frames are answered 400, never dropped', async () => {
    const unparsable = await request('{not json');
    assert.equal(unparsable.status_code, 400);
    assert.deepEqual(JSON.parse(String(unparsable.message_body)), { message: 'Failed to parse request message JSON' });
    for (const frame of [
      { type: 'Other', method: 'GET', uri: 'applications' },
      { method: '', uri: 'applications' },
      { method: 'GET' },
      { method: 'GET', uri: '/applications' },
      { method: 'POST', uri: 'applications', message_body: '{}' },
      { method: 'POST', uri: 'applications', content_type: 'text/plain', message_body: 'x' },
      { method: 'GET', uri: 'events?app=inner' },
    ]) {
      const response = await request(frame);
      assert.equal(response.status_code, 400, JSON.stringify(frame));
      assert.equal(typeof JSON.parse(String(response.message_body)).message, 'string');
    }
  });

  test('a read-only user gets 403 for writes, as over HTTP', async () => {
    // A read-only user may not open the events socket at all; one made read-only after connecting
    // (ari.conf reloaded) keeps the socket, and its requests are authorized as over HTTP.
    await assert.rejects(openInbox(`${url}?app=rest-viewer&api_key=viewer:look:only`), /403/);
    const user = { name: 'demoted', password: 'pw', passwordFormat: 'plain' as const, readOnly: false, dialect: 'switchboard' as const };
    h.core.config.ari.users.push(user);
    const viewer = await openInbox(`${url}?app=rest-viewer&api_key=demoted:pw`);
    user.readOnly = true;
    try {
      const write = await request({ method: 'POST', uri: 'channels/any/answer' }, viewer);
      assert.equal(write.status_code, 403);
      const read = await request({ method: 'GET', uri: 'applications' }, viewer);
      assert.equal(read.status_code, 200);
    } finally {
      h.core.config.ari.users.splice(h.core.config.ari.users.indexOf(user), 1);
      await viewer.close();
    }
  });

  test("requests are answered in the dialect of the connection's user", async () => {
    const classic = await openInbox(`${url}?app=rest-classic&api_key=classic:stasis`);
    try {
      const listing = await request({ method: 'GET', uri: 'api-docs/resources.json' }, classic);
      assert.equal(listing.status_code, 200);
      const paths = (JSON.parse(String(listing.message_body)) as { apis: { path: string }[] }).apis.map((api) => api.path);
      assert.ok(paths.includes('/api-docs/asterisk.{format}'), paths.join(','));
      assert.ok(!paths.includes('/api-docs/system.{format}'));
      const ping = await request({ method: 'GET', uri: 'asterisk/ping' }, classic);
      assert.equal(ping.status_code, 200);
      assert.equal((JSON.parse(String(ping.message_body)) as { ping: string }).ping, 'pong');
    } finally {
      await classic.close();
    }
    const spec = await request({ method: 'GET', uri: 'api-docs/resources.json' });
    const specPaths = (JSON.parse(String(spec.message_body)) as { apis: { path: string }[] }).apis.map((api) => api.path);
    assert.ok(specPaths.includes('/api-docs/system.{format}'), specPaths.join(','));
  });

  test('a user removed from ari.conf after connecting is refused from then on', async () => {
    const temporary = { name: 'temp', password: 'pw', passwordFormat: 'plain' as const, readOnly: false, dialect: 'switchboard' as const };
    h.core.config.ari.users.push(temporary);
    const socket = await openInbox(`${url}?app=rest-temp&api_key=temp:pw`);
    assert.equal((await request({ method: 'GET', uri: 'applications' }, socket)).status_code, 200);
    h.core.config.ari.users.splice(h.core.config.ari.users.indexOf(temporary), 1);
    assert.equal((await request({ method: 'GET', uri: 'applications' }, socket)).status_code, 401);
    await socket.close();
  });
});
