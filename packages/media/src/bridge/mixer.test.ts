import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mixAll, mixMinusOne } from './mixer.js';

const frame = (...values: number[]): Int16Array => Int16Array.from(values);

describe('mixMinusOne', () => {
  it('gives each input the sum of the others', () => {
    const [a, b, c] = mixMinusOne([frame(1, 10), frame(2, 20), frame(4, 40)], 2);
    assert.deepEqual([...a], [6, 60]);
    assert.deepEqual([...b], [5, 50]);
    assert.deepEqual([...c], [3, 30]);
  });

  it('treats null as silence and lets a silent input hear everyone', () => {
    const [a, b] = mixMinusOne([frame(100, -100), null], 2);
    assert.deepEqual([...a], [0, 0]);
    assert.deepEqual([...b], [100, -100]);
  });

  it('adds common bridge media to everyone, own signal still removed', () => {
    const [a, b] = mixMinusOne([frame(7), frame(9)], 1, frame(1000));
    assert.deepEqual([...a], [1009]);
    assert.deepEqual([...b], [1007]);
  });

  it('clips only the final sum, in both directions', () => {
    const loud = frame(30000, -30000);
    const [a, b, c] = mixMinusOne([loud, loud, frame(5, 5)], 2);
    assert.deepEqual([...a], [30005, -29995]);
    assert.deepEqual([...b], [30005, -29995]);
    assert.deepEqual([...c], [32767, -32768]);
  });
});

describe('mixAll', () => {
  it('sums and clips, null when nothing is present', () => {
    assert.equal(mixAll([null, null], 2), null);
    assert.deepEqual([...(mixAll([frame(20000, 1), frame(20000, 2), null], 2) ?? [])], [32767, 3]);
  });
});
