import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type AriUser, parseAclRule, silentLogger } from '@switchboard/core';
import { ApiError } from './api-error.js';
import { LoginGuard } from './login-guard.js';

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
const ALICE = basic('alice', 'right');
const WRONG = basic('alice', 'wrong');
const HERE = '127.0.0.1';

function setup(limits = { maxFailures: 3 }) {
  const clock = { now: () => 1_000_000 };
  const guard = new LoginGuard(clock, silentLogger, limits);
  const user: AriUser = { name: 'alice', password: 'right', passwordFormat: 'plain', readOnly: false, dialect: 'switchboard' };
  return { guard, user, users: [user] };
}

const status = (fn: () => unknown) => {
  try {
    fn();
  } catch (err) {
    if (err instanceof ApiError) return err.status;
    throw err;
  }
  return 200;
};

describe('LoginGuard with verified credentials kept for a short time', () => {
  it('checks a changed password at once, also for credentials verified a moment ago', () => {
    const { guard, user, users } = setup();
    assert.equal(guard.login(users, ALICE, undefined, HERE).name, 'alice');
    assert.equal(guard.login(users, ALICE, undefined, HERE).name, 'alice');
    user.password = 'changed';
    assert.equal(
      status(() => guard.login(users, ALICE, undefined, HERE)),
      401,
    );
  });

  it('checks again against a new user list (a reload)', () => {
    const { guard, users } = setup();
    guard.login(users, ALICE, undefined, HERE);
    const reloaded: AriUser[] = [{ ...(users[0] as AriUser), password: 'other' }];
    assert.equal(
      status(() => guard.login(reloaded, ALICE, undefined, HERE)),
      401,
    );
  });

  it('keeps the api_key apart from the header and never keeps a failure', () => {
    const { guard, users } = setup({ maxFailures: 3 });
    assert.equal(guard.login(users, undefined, 'alice:right', HERE).name, 'alice');
    assert.equal(
      status(() => guard.login(users, undefined, 'alice:wrong', HERE)),
      401,
    );
    assert.equal(
      status(() => guard.login(users, WRONG, undefined, HERE)),
      401,
    );
    // The third failure blocks the address: even the remembered credentials are refused now.
    assert.equal(
      status(() => guard.login(users, WRONG, undefined, HERE)),
      401,
    );
    assert.equal(
      status(() => guard.login(users, undefined, 'alice:right', HERE)),
      403,
    );
    assert.equal(
      status(() => guard.login(users, ALICE, undefined, HERE)),
      403,
    );
  });

  it('applies the ACL on every login, also with remembered credentials', () => {
    const { guard, user, users } = setup();
    user.acl = [parseAclRule('deny', '0.0.0.0/0'), parseAclRule('permit', '127.0.0.1/32')];
    assert.equal(guard.login(users, ALICE, undefined, HERE).name, 'alice');
    assert.equal(
      status(() => guard.login(users, ALICE, undefined, '10.0.0.7')),
      401,
    );
  });

  it('answers 401 without credentials', () => {
    const { guard, users } = setup();
    assert.equal(
      status(() => guard.login(users, undefined, undefined, HERE)),
      401,
    );
    assert.equal(
      status(() => guard.login(users, 'Bearer token', undefined, HERE)),
      401,
    );
  });

  it('counts a wrong cluster secret as a failed login and locks the address out', () => {
    const { guard, users } = setup({ maxFailures: 3 });
    assert.equal(
      status(() => guard.peerLogin('the-secret', 'the-secret', HERE)),
      200,
    );
    for (const guess of ['a', 'b', 'c'])
      assert.equal(
        status(() => guard.peerLogin(guess, 'the-secret', HERE)),
        401,
      );
    assert.equal(
      status(() => guard.peerLogin(undefined, 'the-secret', HERE)),
      403,
      'blocked after three failures',
    );
    assert.equal(
      status(() => guard.peerLogin('the-secret', 'the-secret', HERE)),
      403,
      'even with the right secret',
    );
    assert.equal(
      status(() => guard.login(users, ALICE, undefined, HERE)),
      403,
      'and for user logins from there',
    );
  });
});
