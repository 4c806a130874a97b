import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { CoreError } from '../errors.js';
import type { MailboxSnapshot } from '../model/snapshots.js';
import { openStore } from '../store/sqlite-store.js';
import { silentLogger } from '../util/logger.js';
import { MailboxRegistry } from './mailbox-registry.js';

const dirs: string[] = [];
after(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function setup(dataDir = mkdtempSync(join(tmpdir(), 'switchboard-mailbox-'))) {
  dirs.push(dataDir);
  const store = openStore(dataDir);
  const state = { enabled: true };
  const registry = new MailboxRegistry({ store: store.mailboxes, enabled: () => state.enabled, log: silentLogger });
  const heard: [string, MailboxSnapshot | undefined][] = [];
  registry.onMailboxChanged((name, mailbox) => heard.push([name, mailbox]));
  return { store, state, registry, heard, dataDir };
}

const codeOf = async (work: Promise<unknown>) => {
  try {
    await work;
    return 'ok';
  } catch (err) {
    assert.ok(err instanceof CoreError);
    return err.code;
  }
};

describe('MailboxRegistry', () => {
  it('keeps counts across a reopen and tells listeners about every change', async () => {
    const first = setup();
    await first.registry.update('1000@default', 2, 3);
    assert.deepEqual(first.heard, [['1000@default', { name: '1000@default', old_messages: 2, new_messages: 3 }]]);
    await first.store.close();

    const second = setup(first.dataDir);
    assert.deepEqual(await second.registry.list(), [{ name: '1000@default', old_messages: 2, new_messages: 3 }]);
    await second.registry.delete('1000@default');
    assert.deepEqual(second.heard, [['1000@default', undefined]]);
    assert.equal(await codeOf(second.registry.get('1000@default')), 'not_found');
    assert.equal(await codeOf(second.registry.delete('1000@default')), 'not_found');
    await second.store.close();
  });

  it('has no effect while the module is unloaded, and the counts come back with it', async () => {
    const { registry, state, heard, store } = setup();
    await registry.update('2000', 0, 1);
    state.enabled = false;
    assert.deepEqual(await registry.list(), []);
    assert.equal(await codeOf(registry.get('2000')), 'not_found');
    assert.equal(await codeOf(registry.update('2000', 5, 5)), 'conflict');
    assert.equal(await codeOf(registry.delete('2000')), 'conflict');
    state.enabled = true;
    heard.length = 0;
    await registry.announceAll();
    assert.deepEqual(heard, [['2000', { name: '2000', old_messages: 0, new_messages: 1 }]]);
    await store.close();
  });

  it('refuses negative counts', async () => {
    const { registry, store } = setup();
    assert.equal(await codeOf(registry.update('x', -1, 0)), 'invalid_argument');
    await store.close();
  });
});
