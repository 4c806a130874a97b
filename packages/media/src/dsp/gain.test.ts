import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { applyGain } from './gain.js';

describe('gain', () => {
  it('scales, saturates at the 16-bit limits and leaves gain 1 and silence alone', () => {
    const frame = Int16Array.from([1000, -1000, 20000, -20000]);
    assert.deepEqual([...(applyGain(frame, 2) ?? [])], [2000, -2000, 32767, -32768]);
    assert.deepEqual([...(applyGain(frame, 0.5) ?? [])], [500, -500, 10000, -10000]);
    assert.equal(applyGain(frame, 1), frame);
    assert.equal(applyGain(null, 4), null);
  });
});
