import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FakeClock } from '../test-support/fake-clock.js';
import { ConnectionCounter, ConnectionDeadlines, type DeadlineReason } from './connection-guard.js';

const LIMITS = { maxConnectionsPerAddress: 2, idleTimeoutMs: 60_000, unauthenticatedIdleTimeoutMs: 5_000, messageTimeoutMs: 1_000 };

describe('connection guard', () => {
  it('caps connections per address and counts closes', () => {
    const counter = new ConnectionCounter(2);
    assert.equal(counter.tryOpen('a'), true);
    assert.equal(counter.tryOpen('a'), true);
    assert.equal(counter.tryOpen('a'), false);
    assert.equal(counter.tryOpen('b'), true);
    counter.close('a');
    assert.equal(counter.tryOpen('a'), true);
    assert.equal(counter.countFor('a'), 2);
  });

  it('closes a silent unauthenticated connection after the short idle limit, a trusted one after the long one', () => {
    const clock = new FakeClock();
    const expired: DeadlineReason[] = [];
    new ConnectionDeadlines(LIMITS, clock, (reason) => expired.push(reason));
    clock.advance(4_999);
    assert.deepEqual(expired, []);
    clock.advance(1);
    assert.deepEqual(expired, ['idle']);

    const trusted: DeadlineReason[] = [];
    const deadlines = new ConnectionDeadlines(LIMITS, clock, (reason) => trusted.push(reason));
    deadlines.trust();
    clock.advance(30_000);
    deadlines.received(false);
    clock.advance(59_999);
    assert.deepEqual(trusted, []);
    clock.advance(1);
    assert.deepEqual(trusted, ['idle']);
  });

  it('closes a connection whose message is not complete within the deadline, however it drips', () => {
    const clock = new FakeClock();
    const expired: DeadlineReason[] = [];
    const deadlines = new ConnectionDeadlines(LIMITS, clock, (reason) => expired.push(reason));
    deadlines.received(true);
    for (let i = 0; i < 9; i++) {
      clock.advance(100);
      deadlines.received(true);
    }
    clock.advance(99);
    assert.deepEqual(expired, []);
    clock.advance(1);
    assert.deepEqual(expired, ['message-timeout']);
  });

  it('restarts the message deadline for each new message', () => {
    const clock = new FakeClock();
    const expired: DeadlineReason[] = [];
    const deadlines = new ConnectionDeadlines(LIMITS, clock, (reason) => expired.push(reason));
    deadlines.received(true);
    clock.advance(900);
    deadlines.received(false);
    deadlines.received(true);
    clock.advance(900);
    assert.deepEqual(expired, []);
    deadlines.stop();
    clock.advance(60_000);
    assert.deepEqual(expired, []);
  });
});
