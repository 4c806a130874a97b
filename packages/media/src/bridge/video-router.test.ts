import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type VideoHeader, VideoRouter } from './video-router.js';

interface Sent {
  to: string;
  header: VideoHeader;
}

function harness(options: { talker?: { holdTicks?: number; minSourceMs?: number } } = {}) {
  const sent: Sent[] = [];
  const keyframes: string[] = [];
  const nacks: Array<{ source: string; sequences: number[] }> = [];
  let clock = 0;
  let nextSsrc = 0x1000;
  const router = new VideoRouter(
    {
      forward: (to, header) => sent.push({ to, header: { ...header } }),
      requestKeyframe: (source) => keyframes.push(source),
      requestRetransmission: (source, sequences) => nacks.push({ source, sequences: [...sequences] }),
    },
    { now: () => clock, randomSsrc: () => nextSsrc++, talker: options.talker },
  );
  return {
    router,
    sent,
    keyframes,
    nacks,
    advance(ms: number) {
      clock += ms;
    },
    take(): Sent[] {
      return sent.splice(0);
    },
  };
}

function packet(ssrc: number, sequenceNumber: number, timestamp: number, marker = false): VideoHeader {
  return { payloadType: 96, marker, sequenceNumber, timestamp, ssrc };
}

describe('VideoRouter sfu', () => {
  it('forwards each member to every other with the same codec, rewriting only the payload type', () => {
    const h = harness();
    h.router.setMode('sfu');
    h.router.setMember('a', { codec: 'VP8', payloadType: 96 });
    h.router.setMember('b', { codec: 'vp8', payloadType: 100 });
    h.router.setMember('c', { codec: 'VP8', payloadType: 97 });
    h.router.setMember('d', { codec: 'H264', payloadType: 99 });
    h.router.route('a', packet(0xaaaa, 10, 9000, true));
    const sent = h.take();
    assert.deepEqual(
      sent.map((s) => s.to),
      ['b', 'c'],
    );
    assert.deepEqual(sent[0].header, { payloadType: 100, marker: true, sequenceNumber: 10, timestamp: 9000, ssrc: 0xaaaa });
    assert.equal(sent[1].header.payloadType, 97);
    // The H.264 member neither gets VP8 nor has its own video sent to VP8 members.
    h.router.route('d', packet(0xdddd, 1, 1));
    assert.deepEqual(h.take(), []);
  });

  it('asks the other senders for a keyframe when a member joins, and forwards PLI to the named sender', () => {
    const h = harness();
    h.router.setMode('sfu');
    h.router.setMember('a', { codec: 'VP8', payloadType: 96 });
    h.router.setMember('b', { codec: 'VP8', payloadType: 96 });
    assert.deepEqual(h.keyframes.splice(0), ['a', 'b']);
    h.router.setMember('c', { codec: 'VP8', payloadType: 96 });
    assert.deepEqual(h.keyframes.splice(0), ['a', 'b', 'c']);
    h.router.route('b', packet(0xbbbb, 1, 1));
    h.take();
    h.router.keyframeRequested('a', 0xbbbb);
    assert.deepEqual(h.keyframes.splice(0), ['b']);
    // Spaced: a second request within the interval is not passed on.
    h.router.keyframeRequested('c', 0xbbbb);
    assert.deepEqual(h.keyframes.splice(0), []);
    h.advance(400);
    h.router.keyframeRequested('c', 0xbbbb);
    assert.deepEqual(h.keyframes.splice(0), ['b']);
  });

  it('stops forwarding to and from a member that left', () => {
    const h = harness();
    h.router.setMode('sfu');
    for (const id of ['a', 'b', 'c']) h.router.setMember(id, { codec: 'VP8', payloadType: 96 });
    h.router.removeMember('b');
    h.router.route('a', packet(1, 1, 1));
    h.router.route('b', packet(2, 1, 1));
    assert.deepEqual(
      h.take().map((s) => s.to),
      ['c'],
    );
  });
});

describe('VideoRouter single', () => {
  it('sends the source to everyone else in one stream per receiver, and the source nothing', () => {
    const h = harness();
    for (const id of ['a', 'b', 'c']) h.router.setMember(id, { codec: 'VP8', payloadType: 96 });
    h.router.setMode('single', 'a');
    assert.deepEqual(h.keyframes.splice(0), ['a']);
    h.router.route('a', packet(0xaaaa, 500, 1000));
    h.router.route('b', packet(0xbbbb, 7, 7));
    const sent = h.take();
    assert.deepEqual(
      sent.map((s) => s.to),
      ['b', 'c'],
    );
    assert.notEqual(sent[0].header.ssrc, 0xaaaa);
    assert.notEqual(sent[0].header.ssrc, sent[1].header.ssrc);
    assert.equal(sent[0].header.sequenceNumber, 500);
  });

  it('keeps sequence numbers and timestamps continuous across a source switch and asks the new source for a keyframe', () => {
    const h = harness();
    for (const id of ['a', 'b', 'c']) h.router.setMember(id, { codec: 'VP8', payloadType: 96 });
    h.router.setMode('single', 'a');
    h.keyframes.splice(0);
    h.router.route('a', packet(0xaaaa, 65534, 0xfffffff0));
    h.advance(33);
    h.router.route('a', packet(0xaaaa, 65535, 0xfffffff0 + 2970, true));
    const before = h.take().filter((s) => s.to === 'c');
    h.advance(100);
    h.router.setMode('single', 'b');
    assert.deepEqual(h.keyframes.splice(0), ['b']);
    h.router.route('a', packet(0xaaaa, 0, 5000)); // the old source: no longer forwarded
    h.router.route('b', packet(0xbbbb, 12345, 777777));
    h.router.route('b', packet(0xbbbb, 12346, 777777 + 3000));
    const after = h.take();
    assert.deepEqual(
      after.map((s) => s.to),
      ['a', 'c', 'a', 'c'],
    );
    const toC = after.filter((s) => s.to === 'c');
    assert.equal(toC[0].header.ssrc, before[0].header.ssrc, 'one SSRC per receiver across sources');
    assert.equal(toC[0].header.sequenceNumber, (before[1].header.sequenceNumber + 1) & 0xffff);
    assert.equal(toC[1].header.sequenceNumber, (before[1].header.sequenceNumber + 2) & 0xffff);
    assert.equal(toC[0].header.timestamp, (before[1].header.timestamp + 100 * 90) >>> 0);
    assert.equal(toC[1].header.timestamp, (toC[0].header.timestamp + 3000) >>> 0);
  });

  it('forwards receivers PLI to the source, and sends nothing once the source left', () => {
    const h = harness();
    for (const id of ['a', 'b']) h.router.setMember(id, { codec: 'H264', payloadType: 99 });
    h.router.setMode('single', 'a');
    h.keyframes.splice(0);
    h.router.keyframeRequested('b');
    assert.deepEqual(h.keyframes.splice(0), ['a']);
    h.router.removeMember('a');
    h.router.keyframeRequested('b');
    assert.deepEqual(h.keyframes.splice(0), []);
  });
});

describe('VideoRouter talker', () => {
  function talking(h: ReturnType<typeof harness>, levels: Record<string, number>, ticks: number): void {
    for (let i = 0; i < ticks; i += 1) {
      for (const [id, level] of Object.entries(levels)) h.router.observeLevel(id, level);
      h.router.talkerTick();
      h.advance(20);
    }
  }

  it('starts on the first member with video, follows a clear talker after the hold, and does not flap', () => {
    const h = harness({ talker: { holdTicks: 10, minSourceMs: 1000 } });
    h.router.setMode('talker');
    for (const id of ['a', 'b', 'c']) h.router.setMember(id, { codec: 'VP8', payloadType: 96 });
    assert.equal(h.router.source, 'a');
    // b talks: the switch waits for the minimum source time and the hold.
    talking(h, { a: 0, b: 3000, c: 0 }, 5);
    assert.equal(h.router.source, 'a');
    h.keyframes.splice(0);
    talking(h, { a: 0, b: 3000, c: 0 }, 60);
    assert.equal(h.router.source, 'b');
    assert.ok(h.keyframes.includes('b'));
    // Short bursts of c, and talk no louder than b, do not move the source.
    talking(h, { a: 0, b: 3000, c: 4000 }, 60);
    assert.equal(h.router.source, 'b');
    for (let i = 0; i < 10; i += 1) {
      talking(h, { a: 0, b: 0, c: 5000 }, 3);
      talking(h, { a: 0, b: 3000, c: 0 }, 3);
    }
    assert.equal(h.router.source, 'b');
  });

  it('shows the previous source to the current one', () => {
    const h = harness({ talker: { holdTicks: 2, minSourceMs: 0 } });
    h.router.setMode('talker');
    for (const id of ['a', 'b', 'c']) h.router.setMember(id, { codec: 'VP8', payloadType: 96 });
    talking(h, { a: 0, b: 3000, c: 0 }, 20);
    assert.equal(h.router.source, 'b');
    h.router.route('a', packet(1, 1, 1));
    h.router.route('b', packet(2, 1, 1));
    assert.deepEqual(
      h.take().map((s) => s.to),
      ['b', 'a', 'c'],
    );
  });
});

describe('VideoRouter NACK', () => {
  it('sfu: passes a NACK to the sender of the named stream, sequence numbers unchanged', () => {
    const h = harness();
    h.router.setMode('sfu');
    for (const id of ['a', 'b', 'c']) h.router.setMember(id, { codec: 'VP8', payloadType: 96 });
    h.router.route('a', packet(0xaaaa, 100, 1));
    h.router.route('b', packet(0xbbbb, 200, 1));
    h.take();
    h.router.retransmissionRequested('c', 0xbbbb, [198, 199]);
    h.router.retransmissionRequested('c', 0xaaaa, [99]);
    assert.deepEqual(h.nacks.splice(0), [
      { source: 'b', sequences: [198, 199] },
      { source: 'a', sequences: [99] },
    ]);
    // An unknown stream, or the receiver's own: nobody is asked.
    h.router.retransmissionRequested('c', 0x1234, [1]);
    h.router.retransmissionRequested('a', 0xaaaa, [1]);
    assert.deepEqual(h.nacks.splice(0), []);
  });

  it('single: maps the receiver numbers back to the source, and drops those of an earlier source', () => {
    const h = harness();
    for (const id of ['a', 'b', 'c']) h.router.setMember(id, { codec: 'VP8', payloadType: 96 });
    h.router.setMode('single', 'a');
    for (let seq = 65530; seq < 65536; seq += 1) h.router.route('a', packet(0xaaaa, seq, seq * 3000));
    const toC = h.take().filter((s) => s.to === 'c');
    const stream = toC[0].header.ssrc;
    // Same numbering as the source until the first switch.
    h.router.retransmissionRequested('c', stream, [65532, 65533]);
    assert.deepEqual(h.nacks.splice(0), [{ source: 'a', sequences: [65532, 65533] }]);
    // A NACK about another SSRC than the receiver's stream is not ours to translate.
    h.router.retransmissionRequested('c', 0xaaaa, [65532]);
    assert.deepEqual(h.nacks.splice(0), []);

    h.advance(100);
    h.router.setMode('single', 'b');
    h.keyframes.splice(0);
    // Before the new source's first packet, every number is the old source's.
    h.router.retransmissionRequested('c', stream, [65535]);
    assert.deepEqual(h.nacks.splice(0), []);
    for (let seq = 40000; seq < 40004; seq += 1) h.router.route('b', packet(0xbbbb, seq, seq));
    const afterSwitch = h.take().filter((s) => s.to === 'c');
    assert.deepEqual(
      afterSwitch.map((s) => s.header.sequenceNumber),
      [0, 1, 2, 3],
      'the stream carries on after 65535',
    );
    // 65534/65535 were a's; 1 and 2 map to b's 40001 and 40002; 9 was never sent.
    h.router.retransmissionRequested('c', stream, [65534, 65535, 1, 2, 9]);
    assert.deepEqual(h.nacks.splice(0), [{ source: 'b', sequences: [40001, 40002] }]);
    // The old source itself now watches b through its own stream.
    const toA = h.take();
    assert.deepEqual(toA, []);
  });

  it('talker: a NACK reaches the current talker through the receiver offset', () => {
    const h = harness({ talker: { holdTicks: 1, minSourceMs: 0 } });
    for (const id of ['a', 'b']) h.router.setMember(id, { codec: 'VP8', payloadType: 96 });
    h.router.setMode('talker');
    assert.equal(h.router.source, 'a');
    h.router.route('a', packet(0xaaaa, 7, 7));
    const [toB] = h.take();
    h.router.retransmissionRequested('b', toB.header.ssrc, [toB.header.sequenceNumber]);
    assert.deepEqual(h.nacks.splice(0), [{ source: 'a', sequences: [7] }]);
  });
});

describe('VideoRouter sfu SSRC collisions', () => {
  it('gives the later of two senders with one SSRC its own SSRC in each receiver view, and maps feedback back', () => {
    const h = harness();
    h.router.setMode('sfu');
    for (const id of ['a', 'b', 'c']) h.router.setMember(id, { codec: 'VP8', payloadType: 96 });
    h.keyframes.splice(0);
    h.router.route('a', packet(0x5555, 10, 1));
    h.router.route('b', packet(0x5555, 20, 1));
    h.router.route('b', packet(0x5555, 21, 1));
    h.router.route('a', packet(0x5555, 11, 1));
    const sent = h.take();
    const toC = sent.filter((s) => s.to === 'c');
    const renamed = toC[1].header.ssrc;
    assert.notEqual(renamed, 0x5555);
    assert.deepEqual(
      toC.map((s) => [s.header.sequenceNumber, s.header.ssrc]),
      [
        [10, 0x5555],
        [20, renamed],
        [21, renamed],
        [11, 0x5555],
      ],
      'a keeps its SSRC, b gets a random one, consistently',
    );
    // a and b each receive the other in an SSRC that is not their own.
    const toA = sent.filter((s) => s.to === 'a').map((s) => s.header.ssrc);
    const toB = sent.filter((s) => s.to === 'b').map((s) => s.header.ssrc);
    assert.ok(toA.every((ssrc) => ssrc !== 0x5555 && ssrc === toA[0]));
    assert.ok(toB.length === 2 && toB[1] !== 0x5555, 'once b sends in 0x5555, a is renamed in its view');
    // Feedback naming the renamed stream goes to b, naming the original to a.
    h.router.keyframeRequested('c', renamed);
    assert.deepEqual(h.keyframes.splice(0), ['b']);
    h.router.keyframeRequested('c', 0x5555);
    assert.deepEqual(h.keyframes.splice(0), ['a']);
    h.router.retransmissionRequested('c', renamed, [20]);
    h.router.retransmissionRequested('c', 0x5555, [10]);
    h.router.retransmissionRequested('a', toA[0], [21]);
    h.router.retransmissionRequested('b', toB[1], [11]);
    assert.deepEqual(h.nacks.splice(0), [
      { source: 'b', sequences: [20] },
      { source: 'a', sequences: [10] },
      { source: 'b', sequences: [21] },
      { source: 'a', sequences: [11] },
    ]);
    // Once a leaves, b's alias stays (receivers keep one SSRC per stream) and no longer collides.
    h.router.removeMember('a');
    h.router.route('b', packet(0x5555, 22, 1));
    assert.deepEqual(
      h.take().map((s) => s.header.ssrc),
      [renamed],
    );
  });
});
