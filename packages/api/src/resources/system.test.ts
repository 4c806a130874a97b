import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ENTITY_ID, type Harness, startHarness } from '../testing/harness.js';

const WIRE_DATE = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}[+-]\d{4}$/;

describe('system resource', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  test('getInfo returns all four sections by default', async () => {
    const res = await h.inject({ method: 'GET', url: '/ari/system/info' });
    assert.equal(res.statusCode, 200);
    const info = res.json();
    assert.deepEqual(Object.keys(info).sort(), ['build', 'config', 'status', 'system']);
    assert.deepEqual(Object.keys(info.build).sort(), ['date', 'kernel', 'machine', 'options', 'os', 'user']);
    assert.equal(info.system.entity_id, ENTITY_ID);
    assert.equal(typeof info.system.version, 'string');
    assert.equal(info.config.name, 'test-switchboard');
    assert.equal(info.config.default_language, 'en');
    assert.deepEqual(Object.keys(info.config.setid).sort(), ['group', 'user']);
    // Numeric limits of 0 (unlimited) are omitted (SPEC §2.9).
    assert.equal('max_channels' in info.config, false);
    assert.match(info.status.startup_time, WIRE_DATE);
    assert.match(info.status.last_reload_time, WIRE_DATE);
  });

  test('only= selects sections (allowMultiple)', async () => {
    const res = await h.inject({ method: 'GET', url: '/ari/system/info?only=system,config' });
    assert.deepEqual(Object.keys(res.json()).sort(), ['config', 'system']);
  });

  test('an unknown section is refused', async () => {
    const res = await h.inject({ method: 'GET', url: '/ari/system/info?only=system,bogus' });
    assert.equal(res.statusCode, 400);
    assert.match(res.json<{ message: string }>().message, /only/);
  });

  test('ping answers pong with the system id and a timestamp', async () => {
    const res = await h.inject({ method: 'GET', url: '/ari/system/ping' });
    const body = res.json();
    assert.equal(body.ping, 'pong');
    assert.equal(body.asterisk_id, ENTITY_ID);
    assert.match(body.timestamp, WIRE_DATE);
  });

  test('the reference path /asterisk/... answers the same operations', async () => {
    const res = await h.inject({ method: 'GET', url: '/ari/asterisk/ping' });
    assert.equal(res.statusCode, 200);
    assert.equal(res.json().ping, 'pong');
  });
});
