import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ApplicationEvent } from '@switchboard/core';
import { type Harness, startHarness } from '../testing/harness.js';

describe('events resource: user events', () => {
  let h: Harness;
  const received: ApplicationEvent[] = [];
  before(async () => {
    h = await startHarness();
    h.core.applications.register('target', (e) => received.push(e));
  });
  after(() => h.close());

  test('delivers ChannelUserevent with the variables, the event name and the sources', async () => {
    const channel = h.createChannel();
    const res = await h.inject({
      method: 'POST',
      url: `/ari/events/user/Doorbell?application=target&source=channel:${channel.id}`,
      payload: { variables: { floor: '3', urgent: true } },
    });
    assert.equal(res.statusCode, 204);
    const event = received.find((e) => e.type === 'ChannelUserevent');
    assert.ok(event && event.type === 'ChannelUserevent');
    assert.equal(event.eventname, 'Doorbell');
    assert.deepEqual(event.userevent, { floor: '3', urgent: true, eventname: 'Doorbell' });
    assert.equal(event.channel?.id, channel.id);
  });

  test('a bridge can be the source of a user event, and an application can subscribe to it', async () => {
    const bridge = await h.core.bridges.create({ id: 'user-event-bridge' });
    const res = await h.inject({ method: 'POST', url: `/ari/events/user/Bridged?application=target&source=bridge:${bridge.id}` });
    assert.equal(res.statusCode, 204);
    const event = received.find((e) => e.type === 'ChannelUserevent' && e.eventname === 'Bridged');
    assert.ok(event && event.type === 'ChannelUserevent');
    assert.equal(event.bridge?.id, bridge.id);
    const sub = await h.inject({ method: 'POST', url: `/ari/applications/target/subscription?eventSource=bridge:${bridge.id}` });
    assert.deepEqual(sub.json().bridge_ids, [bridge.id]);
  });

  test('400 without application or with a device-state source, 404 unknown application, 422 missing source', async () => {
    const post = (query: string, payload?: object) =>
      h.inject({ method: 'POST', url: `/ari/events/user/x${query}`, ...(payload ? { payload } : {}) });
    assert.equal((await post('')).statusCode, 400);
    assert.equal((await post('?application=target&source=deviceState:App:door')).statusCode, 400);
    assert.equal((await post('?application=target', { variables: ['not', 'an', 'object'] })).statusCode, 400);
    assert.equal((await post('?application=nobody')).statusCode, 404);
    assert.equal((await post('?application=target&source=channel:gone')).statusCode, 422);
    assert.equal((await post('?application=target&source=endpoint:SIP/nobody')).statusCode, 422);
  });
});
