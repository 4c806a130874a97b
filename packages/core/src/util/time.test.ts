import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatWireDate } from './time.js';

/** The wire form computed from the date's own fields, as a reader of the spec would. */
function expected(date: Date): string {
  const two = (n: number) => String(n).padStart(2, '0');
  const offset = -date.getTimezoneOffset();
  const sign = offset >= 0 ? '+' : '-';
  const abs = Math.abs(offset);
  return (
    `${date.getFullYear()}-${two(date.getMonth() + 1)}-${two(date.getDate())}T${two(date.getHours())}:${two(date.getMinutes())}:` +
    `${two(date.getSeconds())}.${String(date.getMilliseconds()).padStart(3, '0')}${sign}${two(Math.trunc(abs / 60))}${two(abs % 60)}`
  );
}

describe('formatWireDate', () => {
  it('formats local time with milliseconds and the UTC offset', () => {
    for (const ms of [0, 1_764_000_000_123, 1_764_000_000_124, 1_700_000_000_999]) {
      const date = new Date(ms);
      assert.equal(formatWireDate(date), expected(date));
    }
  });

  it('answers the same instant alike and the next millisecond differently (the kept answer is per instant)', () => {
    const first = formatWireDate(new Date(1_764_000_000_500));
    assert.equal(formatWireDate(new Date(1_764_000_000_500)), first);
    const next = formatWireDate(new Date(1_764_000_000_501));
    assert.notEqual(next, first);
    assert.equal(next, expected(new Date(1_764_000_000_501)));
    assert.equal(formatWireDate(new Date(1_764_000_000_500)), first);
  });
});
