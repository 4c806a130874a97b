import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PortAllocator } from './port-allocator.js';

describe('PortAllocator', () => {
  it('hands out even ports only, within the range', () => {
    const ports = new PortAllocator(10001, 10010);
    assert.equal(ports.first, 10002);
    assert.equal(ports.last, 10010);
    assert.equal(ports.capacity, 5);
    const taken = [ports.acquire(), ports.acquire(), ports.acquire(), ports.acquire(), ports.acquire()];
    assert.deepEqual(taken, [10002, 10004, 10006, 10008, 10010]);
    assert.equal(ports.acquire(), null, 'exhausted');
  });

  it('moves on after a release and wraps around, reusing the released port last', () => {
    const ports = new PortAllocator(20000, 20006);
    assert.equal(ports.acquire(), 20000);
    assert.equal(ports.acquire(), 20002);
    ports.release(20000);
    assert.equal(ports.acquire(), 20004);
    assert.equal(ports.acquire(), 20006);
    assert.equal(ports.acquire(), 20000, 'wrapped');
    assert.equal(ports.acquire(), null);
    assert.equal(ports.inUse, 4);
  });

  it('skips excluded ports (bound by another program) and reports exhaustion when only those remain', () => {
    const ports = new PortAllocator(30000, 30004);
    const busy = new Set([30000, 30002]);
    assert.equal(ports.acquire(busy), 30004);
    assert.equal(ports.acquire(busy), null);
  });

  it('accepts a single-port range and refuses ranges that hold no even port or are invalid', () => {
    const single = new PortAllocator(40000, 40000);
    assert.equal(single.acquire(), 40000);
    assert.throws(() => new PortAllocator(40001, 40001), /no even port/);
    assert.throws(() => new PortAllocator(20000, 10000), RangeError);
    assert.throws(() => new PortAllocator(0, 10), RangeError);
    assert.throws(() => new PortAllocator(10000, 70000), RangeError);
    assert.throws(() => new PortAllocator(10000.5, 10010), RangeError);
  });
});
