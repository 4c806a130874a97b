import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CoreError } from '../errors.js';
import { silentLogger } from '../util/logger.js';
import { ModuleRegistry } from './module-registry.js';

const codeOf = async (work: () => unknown) => {
  try {
    await work();
    return 'ok';
  } catch (err) {
    assert.ok(err instanceof CoreError);
    return err.code;
  }
};

describe('ModuleRegistry', () => {
  it('unloads and loads a module that supports it, and lists only loaded modules', async () => {
    const calls: string[] = [];
    const modules = new ModuleRegistry(silentLogger);
    modules.define({ name: 'res_core', description: 'fixed', supportLevel: 'core', useCount: () => 3 });
    modules.define({
      name: 'res_optional',
      description: 'switchable',
      supportLevel: 'extended',
      unload: () => void calls.push('unload'),
      load: () => void calls.push('load'),
      reload: () => void calls.push('reload'),
    });
    assert.deepEqual(modules.get('res_core.so'), {
      name: 'res_core',
      description: 'fixed',
      use_count: 3,
      status: 'Running',
      support_level: 'core',
    });
    assert.equal(await codeOf(() => modules.unload('res_optional')), 'ok');
    assert.equal(modules.isLoaded('res_optional'), false);
    assert.deepEqual(
      modules.list().map((m) => m.name),
      ['res_core'],
    );
    assert.equal(await codeOf(() => modules.get('res_optional')), 'not_found');
    assert.equal(await codeOf(() => modules.unload('res_optional')), 'not_found');
    assert.equal(await codeOf(() => modules.reload('res_optional')), 'not_found');
    assert.equal(await codeOf(() => modules.load('res_optional')), 'ok');
    assert.equal(await codeOf(() => modules.reload('res_optional')), 'ok');
    assert.deepEqual(calls, ['unload', 'load', 'reload']);
  });

  it('answers 409 for what a module cannot do and for loading twice or loading the unknown', async () => {
    const modules = new ModuleRegistry(silentLogger);
    modules.define({ name: 'res_core', description: 'fixed', supportLevel: 'core' });
    assert.equal(await codeOf(() => modules.unload('res_core')), 'conflict');
    assert.equal(await codeOf(() => modules.reload('res_core')), 'conflict');
    assert.equal(await codeOf(() => modules.load('res_core')), 'conflict');
    assert.equal(await codeOf(() => modules.load('res_nothing')), 'conflict');
    assert.equal(await codeOf(() => modules.get('res_nothing')), 'not_found');
  });
});
