import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { openStore } from './sqlite-store.js';

const root = mkdtempSync(join(tmpdir(), 'switchboard-astdb-'));
after(() => rmSync(root, { recursive: true, force: true }));

describe('AstDB store', () => {
  it('puts, gets, overwrites and deletes (family, key) entries that survive a reopen', async () => {
    const dir = join(root, 'a');
    const store = openStore(dir);
    await store.astdb.put('cidname', '5551234', 'Alice');
    await store.astdb.put('cidname', '5551234', 'Alice Smith');
    await store.astdb.put('CIDNAME', '5551234', 'other family');
    assert.equal(await store.astdb.get('cidname', '5551234'), 'Alice Smith');
    assert.equal(await store.astdb.get('cidname', 'missing'), undefined);
    await store.close();
    const reopened = openStore(dir);
    assert.equal(await reopened.astdb.get('CIDNAME', '5551234'), 'other family');
    assert.equal(await reopened.astdb.delete('cidname', '5551234'), true);
    assert.equal(await reopened.astdb.delete('cidname', '5551234'), false);
    await reopened.close();
  });

  it('deletes a tree by family or by key prefix, with LIKE wildcards taken literally', async () => {
    const store = openStore(join(root, 'b'));
    for (const key of ['a/1', 'a/2', 'a_b/1', 'ab', 'b/1']) await store.astdb.put('fam', key, key);
    assert.equal(await store.astdb.deleteTree('fam', 'a'), 2);
    assert.deepEqual(
      (await store.astdb.list('fam')).map((e) => e.key),
      ['a_b/1', 'ab', 'b/1'],
    );
    assert.equal(await store.astdb.deleteTree('fam'), 3);
    assert.deepEqual(await store.astdb.list(), []);
    await store.close();
  });
});
