import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defaultQueue, parseMemberLine } from './queue-config.js';
import { isAvailable, isEmpty, orderMembers, type QueueMember } from './queue-members.js';

function member(name: string, fields: Partial<QueueMember> = {}): QueueMember {
  return {
    interface: `SIP/${name}`,
    name,
    stateInterface: `SIP/${name}`,
    penalty: 0,
    membership: 'static',
    paused: false,
    pausedReason: '',
    callsTaken: 0,
    lastCall: 0,
    lastPause: 0,
    loginTime: 0,
    busy: false,
    ...fields,
  };
}

const names = (list: QueueMember[]) => list.map((m) => m.name);

describe('queue strategies', () => {
  const a = member('a', { callsTaken: 5, lastCall: 3000 });
  const b = member('b', { callsTaken: 1, lastCall: 1000 });
  const c = member('c', { callsTaken: 3, lastCall: 2000, penalty: 1 });
  const all = [a, b, c];

  it('ringall rings every available member of the lowest penalty', () => {
    assert.deepEqual(names(orderMembers('ringall', all, all, -1)), ['a', 'b']);
  });

  it('leastrecent, fewestcalls and linear order by their measure, lower penalties first', () => {
    assert.deepEqual(names(orderMembers('leastrecent', all, all, -1)), ['b', 'a', 'c']);
    assert.deepEqual(names(orderMembers('fewestcalls', all, all, -1)), ['b', 'a', 'c']);
    assert.deepEqual(names(orderMembers('linear', [c, b], all, -1)), ['b', 'c']);
  });

  it('rrmemory starts after the member rung last', () => {
    const flat = [member('a'), member('b'), member('c')];
    assert.deepEqual(names(orderMembers('rrmemory', flat, flat, 0)), ['b', 'c', 'a']);
    assert.deepEqual(names(orderMembers('rrmemory', flat, flat, 2)), ['a', 'b', 'c']);
  });

  it('random and wrandom use the random source; wrandom favours low penalties', () => {
    const sequence = [0.9, 0.1, 0.5];
    let i = 0;
    const random = () => sequence[i++ % sequence.length];
    assert.equal(orderMembers('random', all, all, -1, random).length, 3);
    const heavy = member('heavy', { penalty: 9 });
    const light = member('light');
    assert.deepEqual(names(orderMembers('wrandom', [heavy, light], [heavy, light], -1, () => 0.5)), ['light', 'heavy']);
  });

  it('a paused, busy, wrapping-up or (ringinuse=no) in-use member is not available', () => {
    const queue = { ...defaultQueue('q'), ringInUse: false, wrapupTime: 10 };
    assert.equal(isAvailable(member('x'), queue, 'NOT_INUSE', 0), true);
    assert.equal(isAvailable(member('x', { paused: true }), queue, 'NOT_INUSE', 0), false);
    assert.equal(isAvailable(member('x', { busy: true }), queue, 'NOT_INUSE', 0), false);
    assert.equal(isAvailable(member('x', { lastCall: 1000 }), queue, 'NOT_INUSE', 5000), false);
    assert.equal(isAvailable(member('x'), queue, 'INUSE', 0), false);
    assert.equal(isAvailable(member('x'), { ...queue, ringInUse: true }, 'INUSE', 0), true);
    assert.equal(isAvailable(member('x'), queue, 'UNAVAILABLE', 0), false);
  });

  it('joinempty conditions: empty when every member matches one', () => {
    const queue = defaultQueue('q');
    const members = [member('p', { paused: true }), member('u')];
    const state = (device: string) => (device === 'SIP/u' ? 'UNAVAILABLE' : 'NOT_INUSE');
    assert.equal(isEmpty(members, ['paused', 'unavailable'], queue, state, 0), true);
    assert.equal(isEmpty(members, ['paused'], queue, state, 0), false);
  });

  it('reads member lines as the original writes them', () => {
    assert.deepEqual(parseMemberLine('SIP/alice,2,Alice,SIP/alice-desk'), {
      interface: 'SIP/alice',
      penalty: 2,
      name: 'Alice',
      stateInterface: 'SIP/alice-desk',
    });
    assert.throws(() => parseMemberLine('alice'));
  });
});
