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
