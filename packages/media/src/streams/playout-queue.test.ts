import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PlayoutQueue, QUEUE_MAX_FRAMES, type QueueEvent, XOFF_LEVEL, XON_LEVEL } from './playout-queue.js';

function queue(frameBytes = 4) {
  const events: QueueEvent[] = [];
  return { q: new PlayoutQueue(frameBytes, 0xff, (e) => events.push(e)), events };
}

describe('PlayoutQueue', () => {
  it('cuts audio sent in any chunking into frames, in order, and plays silence when empty', () => {
    const { q } = queue();
    q.push(Uint8Array.from([1, 2, 3]));
    assert.equal(q.length, 0, 'a partial frame waits for more');
    q.push(Uint8Array.from([4, 5, 6, 7, 8, 9]));
    assert.equal(q.length, 2);
    assert.deepEqual([...q.next()], [1, 2, 3, 4]);
    assert.deepEqual([...q.next()], [5, 6, 7, 8]);
    assert.deepEqual([...q.next()], [0xff, 0xff, 0xff, 0xff]);
  });

  it('says XOFF at the high level, XON once back down, and drops what does not fit', () => {
    const { q, events } = queue(2);
    q.push(new Uint8Array(2 * XOFF_LEVEL));
    assert.deepEqual(events, [{ type: 'xoff' }]);
    q.push(new Uint8Array(2 * (QUEUE_MAX_FRAMES - XOFF_LEVEL + 10)));
    assert.equal(q.length, QUEUE_MAX_FRAMES);
    assert.equal(q.dropped, 20);
    while (q.length > XON_LEVEL) q.next();
    assert.deepEqual(events, [{ type: 'xoff' }, { type: 'xon' }]);
  });

  it('pads the last partial frame when bulk buffering stops, and reports marks and drain', () => {
    const { q, events } = queue();
    q.startBuffering();
    q.push(Uint8Array.from([1, 2, 3, 4, 5]));
    q.mark('m1');
    q.stopBuffering('b1');
    q.reportWhenDrained();
    assert.deepEqual([...q.next()], [1, 2, 3, 4]);
    assert.deepEqual([...q.next()], [5, 0xff, 0xff, 0xff]);
    assert.deepEqual(events, [
      { type: 'bufferingCompleted', correlationId: 'b1' },
      { type: 'markProcessed', correlationId: 'm1' },
      { type: 'drained' },
    ]);
  });

  it('pauses playout without losing audio, and flushes on demand', () => {
    const { q } = queue();
    q.push(Uint8Array.from([1, 2, 3, 4, 5, 6, 7, 8]));
    q.pause();
    assert.deepEqual([...q.next()], [0xff, 0xff, 0xff, 0xff]);
    q.resume();
    assert.deepEqual([...q.next()], [1, 2, 3, 4]);
    q.flush();
    assert.equal(q.length, 0);
    assert.deepEqual([...q.next()], [0xff, 0xff, 0xff, 0xff]);
  });
});
