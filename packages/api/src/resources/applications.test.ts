import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ApplicationEvent } from '@switchboard/core';
import { type Harness, startHarness } from '../testing/harness.js';

describe('applications resource', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  test('lists registered applications and shows one', async () => {
    h.core.applications.register('alpha', () => undefined);
    const channel = h.createChannel();
    h.enterApplication(channel, 'alpha');

    const list = await h.inject({ method: 'GET', url: '/ari/applications' });
    assert.equal(list.statusCode, 200);
    assert.deepEqual(
      list.json().map((a: { name: string }) => a.name),
      ['alpha'],
    );

    const one = await h.inject({ method: 'GET', url: '/ari/applications/alpha' });
    assert.equal(one.statusCode, 200);
    assert.deepEqual(one.json(), {
      name: 'alpha',
      channel_ids: [channel.id],
      bridge_ids: [],
      endpoint_ids: [],
      device_names: [],
      events_allowed: [],
      events_disallowed: [],
    });
  });

  test('an unknown application is 404', async () => {
    const res = await h.inject({ method: 'GET', url: '/ari/applications/nobody' });
    assert.equal(res.statusCode, 404);
    assert.equal(typeof res.json<{ message: string }>().message, 'string');
  });

  test('subscriptions are counted over the wire and "all" shows as the all-topic id', async () => {
    h.core.applications.register('sub', () => undefined);
    const channel = h.createChannel();
    const subscribe = () =>
      h.inject({ method: 'POST', url: `/ari/applications/sub/subscription?eventSource=channel:${channel.id},deviceState:App:door` });
    assert.equal((await subscribe()).statusCode, 200);
    const twice = await subscribe();
    assert.deepEqual(twice.json().device_names, ['App:door']);
    const all = await h.inject({ method: 'POST', url: '/ari/applications/sub/subscription?eventSource=channels:' });
    assert.deepEqual(all.json().channel_ids, [channel.id, '__AST_CHANNEL_ALL_TOPIC']);

    const unsubscribe = () => h.inject({ method: 'DELETE', url: `/ari/applications/sub/subscription?eventSource=channel:${channel.id}` });
    assert.deepEqual((await unsubscribe()).json().channel_ids, [channel.id, '__AST_CHANNEL_ALL_TOPIC']);
    assert.deepEqual((await unsubscribe()).json().channel_ids, ['__AST_CHANNEL_ALL_TOPIC']);
    assert.equal((await unsubscribe()).statusCode, 422);
  });

  test('subscription errors: 400 missing or bad scheme, 404 application, 422 source', async () => {
    h.core.applications.register('errs', () => undefined);
    const post = (query: string, app = 'errs') => h.inject({ method: 'POST', url: `/ari/applications/${app}/subscription${query}` });
    assert.equal((await post('')).statusCode, 400);
    assert.equal((await post('?eventSource=mailbox:1')).statusCode, 400);
    assert.equal((await post('?eventSource=channel:', 'nobody')).statusCode, 404);
    assert.equal((await post('?eventSource=channel:missing')).statusCode, 422);
    assert.equal((await post('?eventSource=bridge:missing')).statusCode, 422);
  });

  test('the event filter is the body itself; an empty body clears it', async () => {
    const received: ApplicationEvent[] = [];
    h.core.applications.register('filtered', (e) => received.push(e));
    const put = (payload: unknown) =>
      h.inject({ method: 'PUT', url: '/ari/applications/filtered/eventFilter', payload: payload as object });
    const set = await put({
      allowed: [{ type: 'ChannelUserevent' }, { type: 'DeviceStateChanged' }],
      disallowed: [{ type: 'DeviceStateChanged' }],
    });
    assert.equal(set.statusCode, 200);
    assert.deepEqual(set.json().events_allowed, [{ type: 'ChannelUserevent' }, { type: 'DeviceStateChanged' }]);
    assert.deepEqual(set.json().events_disallowed, [{ type: 'DeviceStateChanged' }]);

    await h.inject({ method: 'POST', url: '/ari/applications/filtered/subscription?eventSource=deviceState:App:lamp' });
    await h.inject({ method: 'PUT', url: '/ari/deviceStates/App:lamp?deviceState=BUSY' });
    assert.equal(
      received.some((e) => e.type === 'DeviceStateChanged'),
      false,
    );

    const partial = await put({ disallowed: [] });
    assert.deepEqual(partial.json().events_allowed.length, 2);
    assert.deepEqual(partial.json().events_disallowed, []);
    const cleared = await h.inject({ method: 'PUT', url: '/ari/applications/filtered/eventFilter' });
    assert.deepEqual(cleared.json().events_allowed, []);
    assert.equal((await put({ allowed: 'ChannelUserevent' })).statusCode, 400);
    assert.equal((await put({ allowed: [{ name: 'x' }] })).statusCode, 400);
    assert.equal((await h.inject({ method: 'PUT', url: '/ari/applications/nobody/eventFilter', payload: {} })).statusCode, 404);
  });
});
