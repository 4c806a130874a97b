import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
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
});
