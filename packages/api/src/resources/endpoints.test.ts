import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ApplicationEvent, OutboundTextMessage } from '@switchboard/core';
import { type Harness, startHarness } from '../testing/harness.js';

describe('endpoints resource', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
    h.core.endpoints.add('SIP', 'alice');
    h.core.endpoints.add('SIP', 'bob');
  });
  after(() => h.close());

  test('lists endpoints, by technology (PJSIP alias) and one by one, with live channel ids', async () => {
    h.core.endpoints.setEndpointState('SIP', 'alice', 'online');
    const channel = h.createChannel();
    const all = await h.inject({ method: 'GET', url: '/ari/endpoints' });
    assert.deepEqual(all.json()[0], { technology: 'SIP', resource: 'alice', state: 'online', channel_ids: [channel.id] });
    assert.equal((await h.inject({ method: 'GET', url: '/ari/endpoints/PJSIP' })).json().length, 2);
    assert.equal((await h.inject({ method: 'GET', url: '/ari/endpoints/pjsip/bob' })).json().state, 'unknown');
    assert.equal((await h.inject({ method: 'GET', url: '/ari/endpoints/IAX2' })).statusCode, 404);
    assert.equal((await h.inject({ method: 'GET', url: '/ari/endpoints/SIP/carol' })).statusCode, 404);
    await channel.hangup(16);
  });

  test('sendMessage hands the message to the driver of the technology (202)', async () => {
    const sent: OutboundTextMessage[] = [];
    const unregister = h.core.textMessages.registerSender('SIP', { send: async (m) => void sent.push(m) });
    const res = await h.inject({
      method: 'PUT',
      url: '/ari/endpoints/sendMessage?to=pjsip:alice&from=sip:app@pbx&body=hi',
      payload: { variables: { 'X-Tag': 'a' } },
    });
    assert.equal(res.statusCode, 202);
    const direct = await h.inject({
      method: 'PUT',
      url: '/ari/endpoints/PJSIP/bob/sendMessage',
      payload: { from: 'sip:app@pbx', body: 'hello' },
    });
    assert.equal(direct.statusCode, 202);
    assert.deepEqual(
      sent.map((m) => [m.technology, m.destination, m.body, m.variables]),
      [
        ['SIP', 'alice', 'hi', { 'X-Tag': 'a' }],
        ['SIP', 'bob', 'hello', {}],
      ],
    );
    assert.equal((await h.inject({ method: 'PUT', url: '/ari/endpoints/sendMessage?from=x' })).statusCode, 400);
    assert.equal((await h.inject({ method: 'PUT', url: '/ari/endpoints/sendMessage?to=alice&from=x' })).statusCode, 400);
    assert.equal((await h.inject({ method: 'PUT', url: '/ari/endpoints/sendMessage?to=xmpp:bob&from=x' })).statusCode, 404);
    assert.equal((await h.inject({ method: 'PUT', url: '/ari/endpoints/SIP/carol/sendMessage?from=x' })).statusCode, 404);
    assert.equal(
      (await h.inject({ method: 'PUT', url: '/ari/endpoints/sendMessage?to=sip:alice&from=x', payload: { variables: { bad: [1] } } }))
        .statusCode,
      400,
    );
    unregister();
    assert.equal((await h.inject({ method: 'PUT', url: '/ari/endpoints/sendMessage?to=sip:alice&from=x' })).statusCode, 404);
  });

  test('inbound messages reach applications subscribed to the endpoint', async () => {
    const received: ApplicationEvent[] = [];
    h.core.applications.register('chat', (e) => received.push(e));
    await h.inject({ method: 'POST', url: '/ari/applications/chat/subscription?eventSource=endpoint:PJSIP/bob' });
    h.core.textMessages.received('SIP', 'bob', { from: 'sip:alice@pbx', to: 'sip:bob@pbx', body: 'ping' });
    const event = received.find((e) => e.type === 'TextMessageReceived');
    assert.ok(event && event.type === 'TextMessageReceived');
    assert.equal(event.message.body, 'ping');
  });
});
