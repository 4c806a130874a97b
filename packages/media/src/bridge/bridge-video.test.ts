import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseRtpPacket, writeRtpHeader } from '../rtp/rtp-header.js';
import { BridgeVideo, frameRms } from './bridge-video.js';
import type { BridgeMember, MemberVideoHandlers } from './members.js';
import type { VideoHeader } from './video-router.js';

interface FakeMember extends BridgeMember {
  sent: VideoHeader[];
  keyframes: number;
  /** Sequence numbers this member's phone was asked to resend. */
  retransmissions: number[][];
  handlers: MemberVideoHandlers | null;
  /** The member's phone sends one packet. */
  sendFromPhone(sequenceNumber: number): void;
}

function member(legId: string, ssrc: number, video = true): FakeMember {
  const fake: FakeMember = {
    legId,
    endpoint: null,
    nativeRate: 8000,
    sent: [],
    keyframes: 0,
    retransmissions: [],
    handlers: null,
    input: () => null,
    output: () => {},
    dtmf: () => {},
    videoFormat: () => (video ? { codec: 'VP8', payloadType: 96 } : null),
    attachVideo(handlers) {
      fake.handlers = handlers;
    },
    sendVideo(datagram, header) {
      assert.ok(datagram.length >= 12);
      fake.sent.push({ ...header });
    },
    requestKeyframe() {
      fake.keyframes += 1;
    },
    requestRetransmission(sequences) {
      fake.retransmissions.push([...sequences]);
    },
    close: () => {},
    sendFromPhone(sequenceNumber) {
      const datagram = Buffer.alloc(20);
      writeRtpHeader(datagram, { payloadType: 96, marker: true, sequenceNumber, timestamp: sequenceNumber * 3000, ssrc });
      const parsed = parseRtpPacket(datagram);
      assert.ok(parsed.ok);
      fake.handlers?.packet(datagram, parsed.packet);
    },
  };
  return fake;
}

const tone = (amplitude: number) => new Int16Array(160).fill(amplitude);

describe('BridgeVideo', () => {
  it('follows the talker from the members audio levels', () => {
    let now = 0;
    const video = new BridgeVideo('mixing', () => now);
    const [a, b, c] = [member('a', 1), member('b', 2), member('c', 3)];
    for (const m of [a, b, c]) video.add(m);
    assert.equal(video.router.mode, 'talker');
    assert.equal(video.router.source, 'a');
    const memberships = [a, b, c].map((m) => ({ member: m as BridgeMember }));
    for (let tick = 0; tick < 200; tick += 1) {
      video.levels(memberships, [null, tone(4000), null]);
      now += 20;
    }
    assert.equal(video.router.source, 'b');
    assert.ok(b.keyframes > 0, 'the new talker was asked for a keyframe');
    b.sendFromPhone(1);
    assert.equal(a.sent.length, 1);
    assert.equal(c.sent.length, 1);
    assert.equal(b.sent.length, 0);
    // The talker sees the previous talker.
    a.sendFromPhone(1);
    assert.equal(b.sent.length, 1);
    assert.equal(c.sent.length, 1);
  });

  it('carries nothing in a holding bridge, and detaches members that leave', () => {
    const holding = new BridgeVideo('holding', () => 0);
    holding.setMode({ mode: 'sfu' });
    assert.equal(holding.router.mode, 'none');
    const video = new BridgeVideo('mixing', () => 0);
    video.setMode({ mode: 'sfu' });
    const [a, b, silent] = [member('a', 1), member('b', 2), member('s', 3, false)];
    for (const m of [a, b, silent]) video.add(m);
    a.sendFromPhone(7);
    assert.deepEqual(
      b.sent.map((h) => h.ssrc),
      [1],
    );
    assert.equal(silent.sent.length, 0, 'a member without video gets none');
    video.remove('b');
    assert.equal(b.handlers, null);
    a.sendFromPhone(8);
    assert.equal(b.sent.length, 1);
  });

  it('measures frame levels', () => {
    assert.equal(frameRms(null), 0);
    assert.equal(frameRms(tone(1000)), 1000);
  });
});
