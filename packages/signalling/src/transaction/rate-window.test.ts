import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RateWindow } from './rate-window.js';

describe('RateWindow', () => {
  it('reads a steady rate, and a change of it as the mix of the last second', () => {
    const window = new RateWindow();
    let now = 10_000;
    for (let i = 0; i < 600; i++, now += 5) window.count(now);
    assert.ok(Math.abs(window.rate(now) - 200) < 5, `200/s read as ${window.rate(now)}`);
    // A steady stream past its first second keeps its whole second (it once fell to 250 ms and read 4×).
    for (let i = 0; i < 400; i++, now += 1000 / 900) window.count(now);
    const mixed = (0.556 * 200 + 400) / 1;
    assert.ok(Math.abs(window.rate(now) - mixed) < 30, `200/s then 900/s for 0.44 s read as ${window.rate(now)}, not ${mixed}`);
  });

  it('reads a load that just began over at least 250 ms, and nothing after a quiet second', () => {
    const window = new RateWindow();
    let now = 50_000;
    for (let i = 0; i < 50; i++, now += 1) window.count(now);
    assert.equal(window.rate(now), 200, '50 events in 50 ms read over 250 ms');
    now += 1500;
    assert.equal(window.rate(now), 0);
  });
});
