import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { ApplicationEvent } from '@switchboard/core';
import { type Harness, startHarness } from '../testing/harness.js';

describe('deviceStates resource', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  test('PUT creates and changes a controlled device, announced to its subscribers', async () => {
    const received: ApplicationEvent[] = [];
    h.core.applications.register('lamps', (e) => received.push(e));
    await h.inject({ method: 'POST', url: '/ari/applications/lamps/subscription?eventSource=deviceState:App:door' });
    assert.equal((await h.inject({ method: 'PUT', url: '/ari/deviceStates/App:door?deviceState=INUSE' })).statusCode, 204);
    assert.deepEqual((await h.inject({ method: 'GET', url: '/ari/deviceStates/App:door' })).json(), { name: 'App:door', state: 'INUSE' });
    assert.deepEqual((await h.inject({ method: 'GET', url: '/ari/deviceStates' })).json(), [{ name: 'App:door', state: 'INUSE' }]);
    const event = received.find((e) => e.type === 'DeviceStateChanged');
    assert.ok(event && event.type === 'DeviceStateChanged');
    assert.deepEqual(event.device_state, { name: 'App:door', state: 'INUSE' });
    assert.equal((await h.inject({ method: 'DELETE', url: '/ari/deviceStates/App:door' })).statusCode, 204);
    assert.equal((await h.inject({ method: 'GET', url: '/ari/deviceStates/App:door' })).statusCode, 404);
  });

  test('409 for uncontrolled devices, 404 for an empty name, 400 for a bad state', async () => {
    assert.equal((await h.inject({ method: 'PUT', url: '/ari/deviceStates/SIP%2Falice?deviceState=BUSY' })).statusCode, 409);
    assert.equal((await h.inject({ method: 'PUT', url: '/ari/deviceStates/App:?deviceState=BUSY' })).statusCode, 404);
    assert.equal((await h.inject({ method: 'PUT', url: '/ari/deviceStates/App:x?deviceState=UNKNOWN' })).statusCode, 400);
    assert.equal((await h.inject({ method: 'PUT', url: '/ari/deviceStates/App:x' })).statusCode, 400);
    assert.equal((await h.inject({ method: 'DELETE', url: '/ari/deviceStates/door' })).statusCode, 409);
    assert.equal((await h.inject({ method: 'DELETE', url: '/ari/deviceStates/App:never' })).statusCode, 404);
  });
});
