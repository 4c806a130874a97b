import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AuthFailureLimiter } from './auth-failure-limiter.js';

/** A limiter whose second failure (from any addresses) starts a lockdown, on a clock the test moves. */
function lockdownAfterTwo(maxTrackedAddresses: number) {
  let now = 1000;
  const limiter = new AuthFailureLimiter(() => now, { maxFailures: 10, maxGlobalFailures: 2, maxTrackedAddresses, blockMs: 60_000 });
  return {
    limiter,
    lockDown() {
      limiter.recordFailure('203.0.113.1');
      assert.equal(limiter.recordFailure('203.0.113.2'), 'lockdown');
    },
    later(ms: number) {
      now += ms;
    },
  };
}

describe('AuthFailureLimiter', () => {
  it('in lockdown, lets in only the addresses that logged in before', () => {
    const { limiter, lockDown, later } = lockdownAfterTwo(10);
    limiter.recordSuccess('198.51.100.7');
    lockDown();
    assert.equal(limiter.isBlocked('198.51.100.7'), false);
    assert.equal(limiter.isBlocked('198.51.100.8'), true);
    later(60_001);
    assert.equal(limiter.isBlocked('198.51.100.8'), false);
  });

  it('forgets the least recent known address past the bound, however often the last one logs in again', () => {
    const { limiter, lockDown } = lockdownAfterTwo(2);
    limiter.recordSuccess('198.51.100.1');
    limiter.recordSuccess('198.51.100.2');
    // .1 becomes the most recent, then logs in again and again (every REST request does).
    for (let i = 0; i < 5; i++) limiter.recordSuccess('198.51.100.1');
    limiter.recordSuccess('198.51.100.3');
    lockDown();
    assert.equal(limiter.isBlocked('198.51.100.1'), false);
    assert.equal(limiter.isBlocked('198.51.100.3'), false);
    assert.equal(limiter.isBlocked('198.51.100.2'), true, 'the least recent of three known addresses is forgotten');
  });

  it('an address forgotten and seen again is known again', () => {
    const { limiter, lockDown } = lockdownAfterTwo(1);
    limiter.recordSuccess('198.51.100.1');
    limiter.recordSuccess('198.51.100.2');
    limiter.recordSuccess('198.51.100.1');
    lockDown();
    assert.equal(limiter.isBlocked('198.51.100.1'), false);
    assert.equal(limiter.isBlocked('198.51.100.2'), true);
  });
});
