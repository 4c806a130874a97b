import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AriUser } from '@switchboard/core';
import { MAX_VERIFIED_CREDENTIALS, VERIFIED_CREDENTIALS_TTL_MS, VerifiedCredentials } from './verified-credentials.js';

function setup() {
  let now = 1_000_000;
  const cache = new VerifiedCredentials({ now: () => now });
  const record: AriUser = { name: 'alice', password: 'right', passwordFormat: 'plain', readOnly: false, dialect: 'switchboard' };
  const user = { name: 'alice', readOnly: false, dialect: 'switchboard' as const };
  const advance = (ms: number) => {
    now += ms;
  };
  return { cache, record, user, users: [record], advance };
}

const KEY = VerifiedCredentials.key('Basic YWxpY2U6cmlnaHQ=', undefined);

describe('VerifiedCredentials', () => {
  it('answers with the verified user until the TTL passes', () => {
    const { cache, record, user, users, advance } = setup();
    assert.equal(cache.get(KEY, users), undefined);
    cache.remember(KEY, record, user);
    assert.equal(cache.get(KEY, users), user);
    advance(VERIFIED_CREDENTIALS_TTL_MS - 1);
    assert.equal(cache.get(KEY, users), user);
    advance(1);
    assert.equal(cache.get(KEY, users), undefined);
  });

  it('forgets a user removed from the list, replaced by a reload, or edited in place', () => {
    for (const change of [
      (s: ReturnType<typeof setup>) => s.users.splice(0, 1),
      (s: ReturnType<typeof setup>) => s.users.splice(0, 1, { ...s.record }),
      (s: ReturnType<typeof setup>) => {
        s.record.password = 'changed';
      },
      (s: ReturnType<typeof setup>) => {
        s.record.readOnly = true;
      },
    ]) {
      const s = setup();
      s.cache.remember(KEY, s.record, s.user);
      change(s);
      assert.equal(s.cache.get(KEY, s.users), undefined);
    }
  });

  it('tells the header from the api_key and keeps a bounded number of entries', () => {
    assert.notEqual(VerifiedCredentials.key('x', undefined), VerifiedCredentials.key(undefined, 'x'));
    const { cache, record, user, users } = setup();
    for (let i = 0; i <= MAX_VERIFIED_CREDENTIALS; i++) cache.remember(`key-${i}`, record, user);
    assert.equal(cache.get('key-0', users), undefined, 'the oldest went first');
    assert.equal(cache.get(`key-${MAX_VERIFIED_CREDENTIALS}`, users), user);
  });
});
