import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { ApplicationEvent } from '@switchboard/core';
import { type Harness, startHarness } from '../testing/harness.js';

describe('system resource: modules, logging, dynamic configuration, global variables', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness();
  });
  after(() => h.close());

  test('modules: list, get, and the errors of load/unload/reload', async () => {
    const list = await h.inject({ method: 'GET', url: '/ari/system/modules' });
    assert.ok(list.json().some((m: { name: string }) => m.name === 'res_pjsip'));
    assert.deepEqual(Object.keys((await h.inject({ method: 'GET', url: '/ari/system/modules/res_stasis.so' })).json()).sort(), [
      'description',
      'name',
      'status',
      'support_level',
      'use_count',
    ]);
    assert.equal((await h.inject({ method: 'GET', url: '/ari/system/modules/res_nothing' })).statusCode, 404);
    assert.equal((await h.inject({ method: 'POST', url: '/ari/system/modules/res_pjsip' })).statusCode, 409);
    assert.equal((await h.inject({ method: 'POST', url: '/ari/system/modules/res_nothing' })).statusCode, 409);
    assert.equal((await h.inject({ method: 'DELETE', url: '/ari/system/modules/res_ari' })).statusCode, 409);
    assert.equal((await h.inject({ method: 'DELETE', url: '/ari/system/modules/res_nothing' })).statusCode, 404);
    assert.equal((await h.inject({ method: 'PUT', url: '/ari/system/modules/app_playback' })).statusCode, 409);
    assert.equal((await h.inject({ method: 'PUT', url: '/ari/system/modules/res_nothing' })).statusCode, 404);
    assert.equal((await h.inject({ method: 'PUT', url: '/ari/system/modules/pbx_config' })).statusCode, 204);
    // musiconhold.conf is reread: a class added to the file is known at once; a broken file is 409.
    writeFileSync(join(h.core.config.confDir, 'musiconhold.conf'), '[jazz]\nmode = files\ndirectory = moh/jazz\n');
    assert.equal((await h.inject({ method: 'PUT', url: '/ari/system/modules/res_musiconhold' })).statusCode, 204);
    assert.ok(h.core.config.musicOnHold?.classes.jazz);
    writeFileSync(join(h.core.config.confDir, 'musiconhold.conf'), '[jazz]\nmode = files\nsort = sideways\n');
    assert.equal((await h.inject({ method: 'PUT', url: '/ari/system/modules/res_musiconhold' })).statusCode, 409);
    assert.ok(h.core.config.musicOnHold?.classes.jazz);
    // The reference's path answers too.
    assert.equal((await h.inject({ method: 'GET', url: '/ari/asterisk/modules/res_ari' })).statusCode, 200);
  });

  test('logging: a channel receives lines of its levels, rotates, and is deleted', async () => {
    const add = await h.inject({ method: 'POST', url: '/ari/system/logging/app.log?configuration=warning,error' });
    assert.equal(add.statusCode, 204);
    const channels = (await h.inject({ method: 'GET', url: '/ari/system/logging' })).json();
    const entry = channels.find((c: { channel: string }) => c.channel.endsWith('app.log'));
    assert.deepEqual(
      { ...entry, channel: 'app.log' },
      { channel: 'app.log', type: 'File', status: 'Enabled', configuration: 'WARNING ERROR ' },
    );
    const dir = h.core.logChannels?.directory ?? '';
    h.core.logChannels?.write('error', 'one\n');
    assert.equal((await h.inject({ method: 'PUT', url: '/ari/system/logging/app.log/rotate' })).statusCode, 204);
    h.core.logChannels?.write('warning', 'two\n');
    assert.equal(readFileSync(join(dir, 'app.log.1'), 'utf8'), 'one\n');
    assert.equal(readFileSync(join(dir, 'app.log'), 'utf8'), 'two\n');

    assert.equal((await h.inject({ method: 'POST', url: '/ari/system/logging/app.log?configuration=error' })).statusCode, 409);
    assert.equal((await h.inject({ method: 'POST', url: '/ari/system/logging/other.log' })).statusCode, 400);
    assert.equal((await h.inject({ method: 'POST', url: '/ari/system/logging/%2E%2E%2Fescape?configuration=error' })).statusCode, 400);
    assert.equal((await h.inject({ method: 'DELETE', url: '/ari/system/logging/app.log' })).statusCode, 204);
    assert.equal((await h.inject({ method: 'DELETE', url: '/ari/system/logging/app.log' })).statusCode, 404);
    assert.equal((await h.inject({ method: 'PUT', url: '/ari/system/logging/app.log/rotate' })).statusCode, 404);
  });

  test('dynamic configuration: create, read, merge, delete; 404 for unknown classes and types', async () => {
    const url = '/ari/system/config/dynamic/res_pjsip/endpoint/dave';
    const created = await h.inject({
      method: 'PUT',
      url,
      payload: {
        fields: [
          { attribute: 'context', value: 'office' },
          { attribute: 'allow', value: 'ulaw' },
        ],
      },
    });
    assert.equal(created.statusCode, 200);
    assert.deepEqual(created.json(), [
      { attribute: 'type', value: 'endpoint' },
      { attribute: 'context', value: 'office' },
      { attribute: 'allow', value: 'ulaw' },
    ]);
    assert.equal((await h.inject({ method: 'GET', url })).json().length, 3);
    assert.equal((await h.inject({ method: 'GET', url: '/ari/endpoints/SIP/dave' })).statusCode, 200);
    assert.equal((await h.inject({ method: 'PUT', url })).statusCode, 400);
    assert.equal((await h.inject({ method: 'PUT', url, payload: { fields: [{ attribute: 'colour', value: 'red' }] } })).statusCode, 400);
    assert.equal((await h.inject({ method: 'PUT', url, payload: { fields: 'context=x' } })).statusCode, 400);
    assert.equal((await h.inject({ method: 'DELETE', url })).statusCode, 204);
    assert.equal((await h.inject({ method: 'GET', url })).statusCode, 404);
    assert.equal((await h.inject({ method: 'DELETE', url })).statusCode, 404);
    assert.equal((await h.inject({ method: 'GET', url: '/ari/system/config/dynamic/res_nothing/endpoint/x' })).statusCode, 404);
    assert.equal(
      (await h.inject({ method: 'PUT', url: '/ari/system/config/dynamic/res_pjsip/trunk/x', payload: { fields: [] } })).statusCode,
      404,
    );
  });

  test('dynamic configuration under SPEC §4.3 path /system/{configClass}/{objectType}/{id}; rotate keeps its path', async () => {
    const url = '/ari/system/res_pjsip/aor/erin';
    const created = await h.inject({ method: 'PUT', url, payload: { fields: [{ attribute: 'max_contacts', value: '2' }] } });
    assert.equal(created.statusCode, 200);
    assert.deepEqual((await h.inject({ method: 'GET', url })).json(), created.json());
    assert.deepEqual((await h.inject({ method: 'GET', url: '/ari/system/config/dynamic/res_pjsip/aor/erin' })).json(), created.json());
    assert.equal((await h.inject({ method: 'GET', url: '/ari/asterisk/res_pjsip/aor/erin' })).statusCode, 200);
    assert.equal((await h.inject({ method: 'DELETE', url })).statusCode, 204);
    assert.equal((await h.inject({ method: 'GET', url })).statusCode, 404);
    assert.equal((await h.inject({ method: 'GET', url: '/ari/system/res_nothing/endpoint/x' })).statusCode, 404);
    assert.equal((await h.inject({ method: 'PUT', url: '/ari/system/logging/none.log/rotate' })).statusCode, 404);
  });

  test('global variables: set, read, unset; 400 without a name; ChannelVarset for subscribeAll applications', async () => {
    const received: ApplicationEvent[] = [];
    h.core.applications.register('everything', (e) => received.push(e), { subscribeAll: true });
    assert.equal((await h.inject({ method: 'POST', url: '/ari/system/variable?variable=COLOUR&value=blue' })).statusCode, 204);
    assert.deepEqual((await h.inject({ method: 'GET', url: '/ari/system/variable?variable=COLOUR' })).json(), { value: 'blue' });
    assert.equal(h.core.globals.get('COLOUR'), 'blue');
    assert.ok(received.some((e) => e.type === 'ChannelVarset' && e.variable === 'COLOUR' && e.value === 'blue'));
    assert.equal((await h.inject({ method: 'POST', url: '/ari/system/variable?variable=COLOUR' })).statusCode, 204);
    assert.deepEqual((await h.inject({ method: 'GET', url: '/ari/system/variable?variable=COLOUR' })).json(), { value: '' });
    assert.equal((await h.inject({ method: 'GET', url: '/ari/system/variable' })).statusCode, 400);
    assert.equal((await h.inject({ method: 'POST', url: '/ari/system/variable?value=x' })).statusCode, 400);
  });
});
