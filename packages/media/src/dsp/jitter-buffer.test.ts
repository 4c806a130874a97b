import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { JitterBuffer, type JitterPacket, type PopResult } from './jitter-buffer.js';

const FRAME = 160;

function packet(index: number, arrivalMs = index * 20, base = { seq: 1000, ts: 50000 }, ssrc = 7): JitterPacket {
  return {
    seq: (base.seq + index) & 0xffff,
    timestamp: (base.ts + index * FRAME) >>> 0,
    payload: new Uint8Array([index & 0xff]),
    arrivalMs,
    ssrc,
  };
}

function describePop(result: PopResult): string {
  return result.kind === 'frame' ? `f${result.packet.payload[0]}` : result.kind;
}

function buffer(): JitterBuffer {
  return new JitterBuffer({ clockRate: 8000, frameTimestamps: FRAME, minDelayMs: 20, maxDelayMs: 200 });
}

describe('JitterBuffer', () => {
  it('is empty before the first packet and fills to its target first', () => {
    const jb = buffer();
    assert.equal(jb.pop().kind, 'empty');
    jb.push(packet(0));
    assert.equal(jb.pop().kind, 'empty');
    assert.equal(describePop(jb.pop()), 'f0');
  });

  it('puts reordered packets back in order', () => {
    const jb = buffer();
    for (const i of [0, 2, 1, 4, 3]) assert.equal(jb.push(packet(i, 100)), 'accepted');
    const out = [jb.pop(), jb.pop(), jb.pop(), jb.pop(), jb.pop(), jb.pop()].map(describePop);
    assert.deepEqual(out, ['empty', 'f0', 'f1', 'f2', 'f3', 'f4']);
  });

  it('reports a lost packet as lost, in its slot', () => {
    const jb = buffer();
    for (const i of [0, 1, 3, 4]) jb.push(packet(i, 60));
    const out = [jb.pop(), jb.pop(), jb.pop(), jb.pop(), jb.pop(), jb.pop()].map(describePop);
    assert.deepEqual(out, ['empty', 'f0', 'f1', 'lost', 'f3', 'f4']);
    assert.equal(jb.stats.lost, 1);
  });

  it('drops duplicates, both buffered and already played, and late packets', () => {
    const jb = buffer();
    jb.push(packet(0));
    jb.push(packet(1));
    assert.equal(jb.push(packet(1)), 'duplicate');
    jb.pop();
    jb.pop(); // plays 0
    assert.equal(jb.push(packet(0)), 'duplicate');
    jb.pop(); // plays 1
    jb.push(packet(3, 60));
    assert.equal(jb.pop().kind, 'lost'); // slot 2
    assert.equal(jb.push(packet(2, 80)), 'late');
    assert.equal(jb.stats.duplicates, 2);
    assert.equal(jb.stats.late, 1);
  });

  it('follows sequence and timestamp wraparound', () => {
    const jb = buffer();
    const base = { seq: 65533, ts: 4294967296 - 2 * FRAME };
    for (let i = 0; i < 6; i += 1) assert.equal(jb.push(packet(i, i * 20, base)), 'accepted');
    jb.pop();
    const out = Array.from({ length: 6 }, () => jb.pop()).map(describePop);
    assert.deepEqual(out, ['f0', 'f1', 'f2', 'f3', 'f4', 'f5']);
  });

  it('resets on a new SSRC and on a restarted stream far ahead', () => {
    const jb = buffer();
    jb.push(packet(0));
    jb.pop();
    assert.equal(jb.push(packet(0, 40, { seq: 5, ts: 99 }, 8)), 'reset');
    jb.pop();
    assert.equal(describePop(jb.pop()), 'f0');
    assert.equal(jb.push(packet(1, 60, { seq: 6, ts: 99 + 8000 * 60 }, 8)), 'reset');
    assert.equal(jb.stats.resets, 2);
  });

  it('grows its target under jitter and shrinks back when the network calms down', () => {
    const jb = buffer();
    let index = 0;
    // 4 s of packets arriving with ±30 ms of jitter (deterministic pattern), one pop per 20 ms.
    const jitterPattern = [0, 30, 5, 25, 10, 0, 28, 3];
    for (; index < 200; index += 1) {
      jb.push(packet(index, index * 20 + jitterPattern[index % jitterPattern.length]));
      jb.pop();
    }
    const grown = jb.stats.targetDelayMs;
    assert.ok(grown >= 60, `target under jitter ${grown} ms`);
    for (; index < 600; index += 1) {
      jb.push(packet(index, index * 20));
      jb.pop();
    }
    assert.ok(jb.stats.targetDelayMs < grown, `target when calm ${jb.stats.targetDelayMs} ms`);
    assert.ok(jb.stats.depthMs <= jb.stats.targetDelayMs + 40, `depth ${jb.stats.depthMs} ms`);
  });

  it('holds the cursor on underrun (growing the delay) and goes quiet when the stream stops', () => {
    const jb = buffer();
    jb.push(packet(0));
    jb.pop();
    jb.pop();
    const kinds = Array.from({ length: 5 }, () => jb.pop().kind);
    assert.deepEqual(kinds, ['lost', 'lost', 'lost', 'empty', 'empty']);
    jb.push(packet(1, 200));
    assert.equal(describePop(jb.pop()), 'f1');
  });

  it('starts a talkspurt (marker) after silence suppression at the target delay, without concealing the gap', () => {
    const jb = buffer();
    jb.push(packet(0));
    jb.pop();
    jb.pop(); // plays 0
    for (let i = 0; i < 4; i += 1) jb.pop(); // the sender is silent for 80 ms
    jb.push({ ...packet(9, 180), marker: true });
    const out = [jb.pop(), jb.pop()].map(describePop);
    assert.deepEqual(out, ['empty', 'f9']);
  });
});
