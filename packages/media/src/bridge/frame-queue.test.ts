import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FrameQueue } from './frame-queue.js';

const frame = (value: number, length = 4): Int16Array => new Int16Array(length).fill(value);

describe('FrameQueue (cross-worker and receive-side frame forwarding)', () => {
  it('waits for the prefill before handing out, then goes in order', () => {
    const queue = new FrameQueue(4, 5, 2);
    queue.push(frame(1));
    assert.equal(queue.shift(), null, 'one frame is not enough after a start');
    queue.push(frame(2));
    assert.equal(queue.shift()?.[0], 1);
    assert.equal(queue.shift()?.[0], 2);
    assert.equal(queue.shift(), null, 'ran dry');
    queue.push(frame(3));
    assert.equal(queue.shift(), null, 'refills to the prefill after running dry');
    queue.push(frame(4));
    assert.equal(queue.shift()?.[0], 3);
  });

  it('drops the oldest frames beyond capacity, bounding latency', () => {
    const queue = new FrameQueue(4, 3, 1);
    for (let i = 1; i <= 5; i += 1) queue.push(frame(i));
    assert.equal(queue.length, 3);
    assert.equal(queue.dropped, 2);
    assert.equal(queue.shift()?.[0], 3);
  });

  it('cuts pushes of any length into whole frames', () => {
    const queue = new FrameQueue(4, 5, 1);
    queue.push(Int16Array.from([1, 2, 3]));
    assert.equal(queue.length, 0);
    queue.push(Int16Array.from([4, 5, 6, 7, 8, 9]));
    assert.equal(queue.length, 2);
    assert.deepEqual([...(queue.shift() ?? [])], [1, 2, 3, 4]);
    assert.deepEqual([...(queue.shift() ?? [])], [5, 6, 7, 8]);
  });
});
