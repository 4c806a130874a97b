/**
 * Bridge video end to end inside the engine: a real engine (two workers, so that some members are
 * linked across workers), real UDP far ends on loopback sending fake VP8 packets, and checks of
 * what each far end receives (RTP and RTCP keyframe requests). Every wait is bounded.
 */
import assert from 'node:assert/strict';
import dgram from 'node:dgram';
import { afterEach, describe, it } from 'node:test';
import { MediaEngine } from '../media-engine.js';
import { type RtcpPacket, parseRtcp } from '../rtp/rtcp.js';
import { buildNack, buildPli, keyframeRequestOf, type NackRequest, nacksOf } from '../rtp/rtcp-feedback.js';
import { type RtpPacketInfo, parseRtpPacket, writeRtpHeader } from '../rtp/rtp-header.js';
import { sleep, waitFor } from '../test-support/wait.js';
import type { MediaLegInfo } from '@switchboard/media-control';

let nextBase = 34000 + 2 * Math.floor(Math.random() * 3000);

/** A video far end: RTP on an even port and RTCP on the next one, recording what arrives. */
class VideoPeer {
  readonly received: RtpPacketInfo[] = [];
  keyframeRequests = 0;
  /** Compound reports (parsed) and generic NACKs that reached this peer's RTCP port. */
  readonly reports: RtcpPacket[][] = [];
  readonly nacks: NackRequest[] = [];
  readonly ssrc: number;
  readonly payloadType: number;
  #sequence = 1000;
  #timestamp = 5000;

  private constructor(
    readonly rtp: dgram.Socket,
    readonly rtcp: dgram.Socket,
    ssrc: number,
    payloadType: number,
  ) {
    this.ssrc = ssrc;
    this.payloadType = payloadType;
    rtp.on('message', (datagram) => {
      const parsed = parseRtpPacket(datagram);
      if (parsed.ok) this.received.push(parsed.packet);
    });
    rtcp.on('message', (datagram) => {
      // Feedback arrives in compound packets behind an RR and SDES (RFC 4585 §3.1).
      if (keyframeRequestOf(datagram) !== null) this.keyframeRequests += 1;
      const parsed = parseRtcp(datagram);
      if (parsed.ok) this.reports.push(parsed.packets);
      this.nacks.push(...nacksOf(datagram));
    });
  }

  static async open(ssrc: number, payloadType: number): Promise<VideoPeer> {
    for (let attempt = 0; attempt < 20; attempt += 1) {
      const port = 40000 + 2 * Math.floor(Math.random() * 5000);
      const rtp = dgram.createSocket('udp4');
      const rtcp = dgram.createSocket('udp4');
      try {
        await new Promise<void>((resolve, reject) => {
          rtp.once('error', reject);
          rtp.bind(port, '127.0.0.1', () => resolve());
        });
        await new Promise<void>((resolve, reject) => {
          rtcp.once('error', reject);
          rtcp.bind(port + 1, '127.0.0.1', () => resolve());
        });
        return new VideoPeer(rtp, rtcp, ssrc, payloadType);
      } catch {
        rtp.close();
        try {
          rtcp.close();
        } catch {}
      }
    }
    throw new Error('no free port pair for a video peer');
  }

  get port(): number {
    return this.rtp.address().port;
  }

  /** One fake VP8 packet (a payload descriptor byte and picture bytes) to the leg's video port. */
  send(toPort: number, marker = true): void {
    const packet = Buffer.alloc(12 + 20, 0x5a);
    writeRtpHeader(packet, {
      payloadType: this.payloadType,
      marker,
      sequenceNumber: this.#sequence,
      timestamp: this.#timestamp,
      ssrc: this.ssrc,
    });
    packet[12] = 0x10; // VP8 payload descriptor: start of partition
    this.#sequence = (this.#sequence + 1) & 0xffff;
    this.#timestamp = (this.#timestamp + 3000) >>> 0;
    this.rtp.send(packet, toPort, '127.0.0.1');
  }

  /** A PLI to the leg's video RTCP port, about the stream this peer receives. */
  sendPli(toVideoPort: number, mediaSsrc: number): void {
    this.rtcp.send(buildPli(this.ssrc, mediaSsrc), toVideoPort + 1, '127.0.0.1');
  }

  /** A generic NACK to the leg's video RTCP port, about the stream this peer receives. */
  sendNack(toVideoPort: number, mediaSsrc: number, sequences: number[]): void {
    this.rtcp.send(buildNack(this.ssrc, mediaSsrc, sequences), toVideoPort + 1, '127.0.0.1');
  }

  take(): RtpPacketInfo[] {
    return this.received.splice(0);
  }

  close(): void {
    this.rtp.close();
    this.rtcp.close();
  }
}

describe('bridge video', () => {
  let cleanup: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const step of cleanup.reverse()) await step();
    cleanup = [];
  });

  async function setup(ssrcs = [0x100, 0x101, 0x102]): Promise<{ engine: MediaEngine; legs: MediaLegInfo[]; peers: VideoPeer[] }> {
    const engine = new MediaEngine({ rtpStart: nextBase, rtpEnd: nextBase + 40, workers: 2 });
    nextBase += 42;
    await engine.start();
    cleanup.push(() => engine.close());
    const legs: MediaLegInfo[] = [];
    const peers: VideoPeer[] = [];
    for (let i = 0; i < 3; i += 1) {
      const leg = await engine.createLeg({ bindAddress: '127.0.0.1', video: true });
      assert.ok(leg.videoPort !== undefined && leg.videoPort % 2 === 0);
      const peer = await VideoPeer.open(ssrcs[i], 96 + i);
      cleanup.push(() => peer.close());
      await engine.setLegRemote(leg.legId, {
        address: '127.0.0.1',
        port: 9, // audio is not exercised here
        codec: { name: 'PCMU', payloadType: 0, clockRate: 8000 },
        video: { address: '127.0.0.1', port: peer.port, codec: { name: 'VP8', payloadType: 96 + i, clockRate: 90000 } },
      });
      legs.push(leg);
      peers.push(peer);
    }
    return { engine, legs, peers };
  }

  /** Every peer sends `rounds` packets; returns what each received, by sender SSRC. */
  async function exchange(legs: MediaLegInfo[], peers: VideoPeer[], rounds: number): Promise<RtpPacketInfo[][]> {
    for (let round = 0; round < rounds; round += 1) {
      peers.forEach((peer, i) => {
        if (legs[i] !== undefined) peer.send(legs[i].videoPort as number);
      });
      await sleep(5);
    }
    await sleep(100);
    return peers.map((peer) => peer.take());
  }

  it('sfu: every leg gets the two others (across workers) in their own SSRCs with its payload type', { timeout: 10_000 }, async () => {
    const { engine, legs, peers } = await setup();
    await engine.createBridge({ bridgeId: 'v', kind: 'mixing' });
    await engine.setBridgeVideo('v', { mode: 'sfu' });
    for (const leg of legs) await engine.joinBridge('v', leg.legId);
    const got = await exchange(legs, peers, 10);
    for (const [i, packets] of got.entries()) {
      const sources = new Set(packets.map((p) => p.ssrc));
      const expected = peers.filter((_, j) => j !== i).map((p) => p.ssrc);
      assert.deepEqual([...sources].sort(), expected.sort(), `leg ${i} sources`);
      assert.ok(packets.every((p) => p.payloadType === 96 + i));
      assert.ok(packets.length >= 16, `leg ${i} got ${packets.length}`);
    }
    // A leg that leaves neither gets nor sends video.
    await engine.leaveBridge('v', legs[2].legId);
    const after = await exchange(legs, peers, 5);
    assert.equal(after[2].length, 0);
    assert.ok(after[0].every((p) => p.ssrc === peers[1].ssrc));
    assert.ok(after[1].every((p) => p.ssrc === peers[0].ssrc));
  });

  it(
    'single: the source goes to the others only; a switch keeps their sequence and asks the new source for a keyframe',
    { timeout: 10_000 },
    async () => {
      const { engine, legs, peers } = await setup();
      await engine.createBridge({ bridgeId: 'v', kind: 'mixing' });
      for (const leg of legs) await engine.joinBridge('v', leg.legId);
      await engine.setBridgeVideo('v', { mode: 'single', sourceLegId: legs[0].legId });
      await waitFor('source asked for a keyframe', () => peers[0].keyframeRequests > 0 || undefined, 2000);
      const first = await exchange(legs, peers, 5);
      assert.equal(first[0].length, 0, 'the source receives nothing');
      for (const i of [1, 2]) {
        assert.equal(first[i].length, 5);
        assert.ok(first[i].every((p) => p.ssrc !== peers[0].ssrc && p.payloadType === 96 + i));
      }
      const before = peers[1].keyframeRequests;
      await engine.setBridgeVideo('v', { mode: 'single', sourceLegId: legs[1].legId });
      await waitFor('new source asked for a keyframe', () => peers[1].keyframeRequests > before || undefined, 2000);
      const second = await exchange(legs, peers, 5);
      assert.equal(second[1].length, 0);
      const toC = [...first[2], ...second[2]];
      assert.equal(toC.length, 10);
      assert.ok(
        toC.every((p) => p.ssrc === toC[0].ssrc),
        'one SSRC across the switch',
      );
      for (let k = 1; k < toC.length; k += 1) assert.equal(toC[k].sequenceNumber, (toC[k - 1].sequenceNumber + 1) & 0xffff);
      assert.equal(second[0].length, 5, 'the old source now sees the new one');
      // A receiver's picture loss reaches the source it watches (across workers for some legs).
      await sleep(350); // past the spacing of forwarded requests
      const pliBefore = peers[1].keyframeRequests;
      peers[2].sendPli(legs[2].videoPort as number, toC[0].ssrc);
      await waitFor('the PLI forwarded to the source', () => peers[1].keyframeRequests > pliBefore || undefined, 2000);
    },
  );

  it(
    'video RTCP: each leg sends its phone SR/RR and SDES, and a NACK reaches the source in its own numbering across a switch',
    { timeout: 20_000 },
    async () => {
      const { engine, legs, peers } = await setup();
      await engine.createBridge({ bridgeId: 'v', kind: 'mixing' });
      for (const leg of legs) await engine.joinBridge('v', leg.legId);
      await engine.setBridgeVideo('v', { mode: 'single', sourceLegId: legs[0].legId });
      // Source 0 sends 1000..1007 (its peer's numbering, the others send too); leg 2 gets them as they are.
      const start = await exchange(legs, peers, 5);
      for (let k = 0; k < 3; k += 1) peers[0].send(legs[0].videoPort as number);
      await sleep(100);
      const first = peers.map((peer, i) => [...start[i], ...peer.take()]);
      assert.deepEqual(
        first[2].map((p) => p.sequenceNumber),
        [1000, 1001, 1002, 1003, 1004, 1005, 1006, 1007],
      );
      const stream = first[2][0].ssrc;
      await engine.setBridgeVideo('v', { mode: 'single', sourceLegId: legs[1].legId });
      await sleep(50);
      // Source 1 sends 1005..1009 of its own; leg 2's stream carries on at 1008.
      const second = await exchange(legs, peers, 5);
      assert.deepEqual(
        second[2].map((p) => p.sequenceNumber),
        [1008, 1009, 1010, 1011, 1012],
      );
      assert.ok(second[2].every((p) => p.ssrc === stream));
      // Leg 2 lost 1006 (source 0's: dropped) and 1010, 1011 (source 1's 1007, 1008).
      peers[2].sendNack(legs[2].videoPort as number, stream, [1006, 1010, 1011]);
      const nack = await waitFor('the NACK at source 1', () => peers[1].nacks[0], 3000);
      assert.deepEqual(nack, { mediaSsrc: peers[1].ssrc, sequences: [1007, 1008] });
      await sleep(100);
      assert.deepEqual(peers[0].nacks, [], 'nothing asked of the earlier source');

      // Reports: leg 2 both received (from peer 2) and sent (to peer 2), so an SR about its stream
      // with a block about what peer 2 sent, then SDES CNAME (RFC 3550 §6.1).
      const report = await waitFor(
        'an SR at peer 2',
        () => peers[2].reports.find((packets) => packets[0].type === 'sr' && packets[0].ssrc === stream),
        8000,
      );
      const [sr, ...rest] = report;
      assert.ok(sr.type === 'sr');
      assert.ok(sr.sender.packetCount >= 13 && sr.sender.octetCount >= 13 * 20, `counts ${sr.sender.packetCount}/${sr.sender.octetCount}`);
      assert.equal(sr.reports.length, 1);
      assert.equal(sr.reports[0].ssrc, peers[2].ssrc);
      assert.equal(sr.reports[0].extendedHighestSeq, 1009);
      assert.equal(sr.reports[0].cumulativeLost, 0);
      const sdes = rest.find((p) => p.type === 'sdes');
      assert.ok(sdes?.type === 'sdes' && sdes.chunks.some((c) => c.ssrc === stream && (c.cname ?? '').length > 0));
      // No report of one leg's phone reaches another phone: every block is about the peer itself.
      for (const peer of peers)
        for (const packets of peer.reports)
          for (const p of packets) {
            if (p.type === 'sr' || p.type === 'rr') assert.ok(p.reports.every((b) => b.ssrc === peer.ssrc));
          }
    },
  );

  it('sfu: two phones with one SSRC are told apart by the third, and its NACKs reach the right one', { timeout: 10_000 }, async () => {
    const { engine, legs, peers } = await setup([0x777, 0x777, 0x102]);
    await engine.createBridge({ bridgeId: 'v', kind: 'mixing' });
    await engine.setBridgeVideo('v', { mode: 'sfu' });
    for (const leg of legs) await engine.joinBridge('v', leg.legId);
    const got = await exchange(legs, peers, 5);
    const streams = [...new Set(got[2].map((p) => p.ssrc))];
    assert.equal(streams.length, 2, `leg 2 sees ${streams.map((s) => s.toString(16))}`);
    assert.ok(streams.includes(0x777));
    const renamed = streams.find((s) => s !== 0x777) as number;
    // Each stream keeps its sender's sequence numbers: five packets in each SSRC.
    for (const ssrc of streams) assert.equal(got[2].filter((p) => p.ssrc === ssrc).length, 5);
    // Legs 0 and 1 each see the other, not in their own SSRC once they have sent in it (a packet of
    // the other that arrives before the leg's own first one cannot know yet).
    for (const i of [0, 1]) {
      const fromOther = got[i].filter((p) => p.ssrc !== 0x102);
      assert.equal(fromOther.length, 5);
      assert.ok(
        fromOther.slice(-3).every((p) => p.ssrc !== 0x777),
        `leg ${i} sees ${fromOther.map((p) => p.ssrc.toString(16))}`,
      );
    }
    // A NACK about the renamed stream goes to one of the two phones, about 0x777 to the other.
    peers[2].sendNack(legs[2].videoPort as number, renamed, [1002]);
    const first = await waitFor('the NACK about the renamed stream', () => peers.find((p) => p.nacks.length > 0), 3000);
    assert.deepEqual(first.nacks, [{ mediaSsrc: 0x777, sequences: [1002] }]);
    peers[2].sendNack(legs[2].videoPort as number, 0x777, [1003]);
    const other = peers[first === peers[0] ? 1 : 0];
    await waitFor('the NACK about 0x777', () => other.nacks[0], 3000);
    assert.deepEqual(other.nacks, [{ mediaSsrc: 0x777, sequences: [1003] }]);
    assert.equal(first.nacks.length, 1);
  });

  it('a holding bridge carries no video', { timeout: 10_000 }, async () => {
    const { engine, legs, peers } = await setup();
    await engine.createBridge({ bridgeId: 'h', kind: 'holding' });
    await engine.setBridgeVideo('h', { mode: 'sfu' });
    for (const leg of legs) await engine.joinBridge('h', leg.legId);
    const got = await exchange(legs, peers, 5);
    assert.deepEqual(
      got.map((p) => p.length),
      [0, 0, 0],
    );
  });

  it('refuses bad video arguments, and takes a second port pair for a video leg', { timeout: 10_000 }, async () => {
    const engine = new MediaEngine({ rtpStart: nextBase, rtpEnd: nextBase + 3, workers: 1 });
    nextBase += 42;
    await engine.start();
    cleanup.push(() => engine.close());
    const leg = await engine.createLeg({ bindAddress: '127.0.0.1', video: true });
    assert.deepEqual([leg.localPort, leg.videoPort].sort(), [nextBase - 42, nextBase - 40]);
    await assert.rejects(engine.createLeg({ bindAddress: '127.0.0.1' }), { code: 'ports_exhausted' });
    const remote = (video: unknown) =>
      ({ address: '127.0.0.1', port: 9, codec: { name: 'PCMU', payloadType: 0, clockRate: 8000 }, video }) as Parameters<
        MediaEngine['setLegRemote']
      >[1];
    const vp8 = { address: '127.0.0.1', port: 9, codec: { name: 'VP8', payloadType: 96, clockRate: 90000 } };
    await assert.rejects(engine.setLegRemote(leg.legId, remote({ ...vp8, codec: { ...vp8.codec, name: 'THEORA' } })), {
      code: 'invalid_argument',
    });
    await assert.rejects(engine.setLegRemote(leg.legId, remote({ ...vp8, codec: { ...vp8.codec, clockRate: 8000 } })), {
      code: 'invalid_argument',
    });
    await assert.rejects(engine.setLegRemote(leg.legId, remote({ ...vp8, port: 0 })), { code: 'invalid_argument' });
    await engine.setLegRemote(leg.legId, remote(vp8));
    await engine.createBridge({ bridgeId: 'x', kind: 'mixing' });
    await assert.rejects(engine.setBridgeVideo('x', { mode: 'single' }), { code: 'invalid_argument' });
    await assert.rejects(engine.setBridgeVideo('x', { mode: 'mosaic' as 'sfu' }), { code: 'invalid_argument' });
    await assert.rejects(engine.setBridgeVideo('nope', { mode: 'sfu' }), { code: 'bridge_not_found' });
    // Destroying the leg gives both pairs back.
    await engine.destroyLeg(leg.legId);
    const again = await engine.createLeg({ bindAddress: '127.0.0.1', video: true });
    assert.ok(again.videoPort !== undefined);
  });
});
