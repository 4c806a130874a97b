import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { CoreError } from '../errors.js';
import { startTestCore } from '../user-events/test-core.js';

const rejects = async (work: Promise<unknown>, code: string) => {
  await assert.rejects(work, (err) => err instanceof CoreError && err.code === code);
};

describe('dynamic configuration, global variables, dialplan reload, log channels from logger.conf', () => {
  it('creates objects in the store, keeps file objects read-only, and survives a reopen', async () => {
    const first = await startTestCore();
    const { core } = first;
    const fromFile = await core.dynamicConfig.get('res_pjsip', 'endpoint', 'alice');
    assert.deepEqual(fromFile.slice(0, 2), [
      { attribute: 'type', value: 'endpoint' },
      { attribute: 'context', value: 'default' },
    ]);
    await rejects(core.dynamicConfig.update('res_pjsip', 'endpoint', 'alice', [{ attribute: 'context', value: 'x' }]), 'forbidden');
    await rejects(core.dynamicConfig.delete('res_pjsip', 'endpoint', 'alice'), 'forbidden');
    const created = await core.dynamicConfig.update('res_pjsip', 'endpoint', 'carol', [{ attribute: 'context', value: 'office' }]);
    assert.deepEqual(created, [
      { attribute: 'type', value: 'endpoint' },
      { attribute: 'context', value: 'office' },
    ]);
    assert.equal(core.endpoints.has('SIP', 'carol'), true);
    const merged = await core.dynamicConfig.update('res_pjsip', 'endpoint', 'carol', [{ attribute: 'direct_media', value: 'no' }]);
    assert.equal(merged.length, 3);
    await rejects(core.dynamicConfig.update('res_pjsip', 'endpoint', 'carol', [{ attribute: 'colour', value: 'red' }]), 'invalid_argument');
    await rejects(
      core.dynamicConfig.update('res_pjsip', 'aor', 'carol', [{ attribute: 'max_contacts', value: 'many' }]),
      'invalid_argument',
    );
    await rejects(core.dynamicConfig.get('res_nothing', 'endpoint', 'carol'), 'not_found');
    await rejects(core.dynamicConfig.get('res_pjsip', 'trunk', 'carol'), 'not_found');
    await rejects(core.dynamicConfig.get('res_pjsip', 'aor', 'carol'), 'not_found');

    const second = await first.reopen();
    assert.equal(second.core.endpoints.has('SIP', 'carol'), true);
    assert.equal((await second.core.dynamicConfig.get('res_pjsip', 'endpoint', 'carol')).length, 3);
    await second.core.dynamicConfig.delete('res_pjsip', 'endpoint', 'carol');
    assert.equal(second.core.endpoints.has('SIP', 'carol'), false);
    await rejects(second.core.dynamicConfig.delete('res_pjsip', 'endpoint', 'carol'), 'not_found');
    await second.close();
    second.remove();
  });

  it('persists global variables, mirrors them for the dialplan and announces them', async () => {
    const first = await startTestCore();
    await first.core.globalVariables.set('GREETING', 'hello');
    assert.equal(first.core.globals.get('GREETING'), 'hello');
    assert.equal(first.core.globalVariables.get('UNKNOWN'), '');
    const varset = first.events.find((e) => e.type === 'ChannelVarset');
    assert.ok(varset && varset.type === 'ChannelVarset' && varset.channel === undefined && varset.value === 'hello');
    const second = await first.reopen();
    assert.equal(second.core.globals.get('GREETING'), 'hello');
    await second.core.globalVariables.set('GREETING', undefined);
    assert.equal(second.core.globals.has('GREETING'), false);
    await second.close();
    second.remove();
  });

  it('reloads the dialplan through the pbx_config module', async () => {
    const t = await startTestCore({ files: { 'extensions.conf': '[default]\nexten => 100,1,Answer()\n' } });
    writeFileSync(join(t.core.config.confDir, 'extensions.conf'), '[globals]\nCOLOUR=blue\n[default]\nexten => 200,1,Answer()\n');
    await t.core.modules.reload('pbx_config');
    assert.equal(t.core.globals.get('COLOUR'), 'blue');
    writeFileSync(join(t.core.config.confDir, 'extensions.conf'), '[default\n');
    await rejects(t.core.modules.reload('pbx_config'), 'conflict');
    await t.close();
    t.remove();
  });

  it('opens the log channels logger.conf names and takes lines through the sink', async () => {
    const t = await startTestCore({ files: { 'logger.conf': '[logfiles]\nconsole => notice\nmessages.log => notice,warning\n' } });
    assert.deepEqual(
      t.core.logChannels?.list().map((c) => c.type),
      ['Console', 'File'],
    );
    t.core.logChannels?.write('warning', 'careful\n');
    assert.equal(readFileSync(join(t.dir, 'log', 'messages.log'), 'utf8'), 'careful\n');
    await t.close();
    t.remove();
  });
});
