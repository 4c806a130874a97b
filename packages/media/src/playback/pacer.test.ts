import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FRAME_MS, Pacer, frameDueAt, framesDueBy } from './pacer.js';

describe('framesDueBy', () => {
  it('makes frame n due at start + n × 20 ms', () => {
    assert.equal(framesDueBy(1000, 999), 0);
    assert.equal(framesDueBy(1000, 1000), 1);
    assert.equal(framesDueBy(1000, 1019.999), 1);
    assert.equal(framesDueBy(1000, 1020), 2);
    assert.equal(framesDueBy(1000, 1000 + 49 * FRAME_MS), 50);
    assert.equal(frameDueAt(1000, 49), 1980);
  });
});

describe('Pacer', () => {
  it('hands out every frame exactly once with ticks every 5 ms', () => {
    const pacer = new Pacer(0, 50);
    const sentAt: number[] = [];
    for (let now = 0; !pacer.done; now += 5) {
      const count = pacer.take(now);
      for (let i = 0; i < count; i += 1) sentAt.push(now);
    }
    assert.equal(sentAt.length, 50);
    for (const [index, time] of sentAt.entries()) assert.equal(time, index * 20);
  });

  it('does not drift when every timer fires late by a varying amount', () => {
    const pacer = new Pacer(0, 500);
    const lateness = [0.3, 7.9, 1.2, 4.4, 9.8, 0.1, 3.3];
    const sentAt: number[] = [];
    let now = 0;
    for (let tick = 0; !pacer.done; tick += 1) {
      const count = pacer.take(now);
      for (let i = 0; i < count; i += 1) sentAt.push(now);
      now += 5 + lateness[tick % lateness.length];
    }
    assert.equal(sentAt.length, 500);
    for (const [index, time] of sentAt.entries()) {
      const due = index * 20;
      // Each frame leaves at its due time or within one (late) tick interval after it, never later.
      assert.ok(time >= due && time < due + 15, `frame ${index} due ${due} sent ${time}`);
    }
  });

  it('catches up in one burst after a stall, then returns to the original schedule', () => {
    const pacer = new Pacer(100, 20);
    assert.equal(pacer.take(100), 1);
    assert.equal(pacer.take(205), 5); // frames 1–5 were due at 120…200
    assert.equal(pacer.nextDueAt(), 220);
    assert.equal(pacer.take(219), 0);
    assert.equal(pacer.take(220), 1);
  });

  it('never hands out more than the stream holds', () => {
    const pacer = new Pacer(0, 3);
    assert.equal(pacer.take(10_000), 3);
    assert.equal(pacer.take(20_000), 0);
    assert.ok(pacer.done);
  });

  it('hands out nothing before the start and copes with an empty stream', () => {
    assert.equal(new Pacer(50, 10).take(49), 0);
    const empty = new Pacer(0, 0);
    assert.ok(empty.done);
    assert.equal(empty.take(1000), 0);
  });
});
