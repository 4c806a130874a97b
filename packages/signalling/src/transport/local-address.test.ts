import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isWildcardAddress, localAddressToward } from './local-address.js';

describe('local address toward a peer', () => {
  it('is the loopback address for a loopback peer, and the same answer when asked again', async () => {
    assert.equal(await localAddressToward('127.0.0.1'), '127.0.0.1');
    const answers = await Promise.all(Array.from({ length: 50 }, () => localAddressToward('127.0.0.1')));
    assert.deepEqual(new Set(answers), new Set(['127.0.0.1']));
  });

  it('tells wildcard addresses', () => {
    assert.deepEqual(['0.0.0.0', '::', '', '127.0.0.1'].map(isWildcardAddress), [true, true, true, false]);
  });
});
