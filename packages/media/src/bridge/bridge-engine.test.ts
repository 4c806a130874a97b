/**
 * Bridges end to end: a real engine (one and two workers), real UDP far ends on loopback sending
 * tones, and Goertzel measurements of what each far end hears. Every test is bounded in time.
 */
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import { MediaEngine, killWorkerForTest } from '../media-engine.js';
import { RTP_HEADER_SIZE, writeRtpHeader } from '../rtp/rtp-header.js';
import { sine, wav16 } from '../test-support/audio-fixtures.js';
import { TonePeer } from '../test-support/tone-peer.js';
import { sleep, waitFor } from '../test-support/wait.js';
import type { LegRemote, MediaLegInfo, MediaNotification } from '@switchboard/media-control';

const BASE_PORT = 30000 + 2 * Math.floor(Math.random() * 4000);
let nextBase = BASE_PORT;

const pcmu = (port: number): LegRemote => ({
  address: '127.0.0.1',
  port,
  codec: { name: 'PCMU', payloadType: 0, clockRate: 8000 },
  telephoneEventPayloadType: 101,
});

/** Heard clearly / not heard: a tone sent at 8000 arrives near 8000; an absent one stays near 0. */
const HEARD = 3000;
const NOT_HEARD = 600;

let dir = '';
let tone700 = '';
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'switchboard-bridge-'));
  tone700 = join(dir, 'tone700.wav');
  await writeFile(tone700, wav16(sine(700, 8000, 3000, 8000), 8000));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function setup(
  workers: number,
  parties: number,
): Promise<{ engine: MediaEngine; legs: MediaLegInfo[]; peers: TonePeer[]; notes: MediaNotification[] }> {
  const engine = new MediaEngine({ rtpStart: nextBase, rtpEnd: nextBase + 40, workers });
  nextBase += 42;
  await engine.start();
  const notes: MediaNotification[] = [];
  engine.onNotification((n) => notes.push(n));
  const legs: MediaLegInfo[] = [];
  const peers: TonePeer[] = [];
  for (let i = 0; i < parties; i += 1) {
    const leg = await engine.createLeg({ bindAddress: '127.0.0.1' });
    const peer = await TonePeer.open();
    await engine.setLegRemote(leg.legId, pcmu(peer.port));
    legs.push(leg);
    peers.push(peer);
  }
  return { engine, legs, peers, notes };
}

describe('media bridges', () => {
  let cleanup: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const step of cleanup.reverse()) await step();
    cleanup = [];
  });

  for (const workers of [1, 2]) {
    it(`mixes three parties minus-one (${workers} worker${workers > 1 ? 's' : ''})`, { timeout: 10_000 }, async () => {
      const { engine, legs, peers } = await setup(workers, 3);
      cleanup.push(
        () => engine.close(),
        () => {
          for (const p of peers) p.close();
        },
      );
      const tones = [500, 900, 1300];
      await engine.createBridge({ bridgeId: 'b', kind: 'mixing' });
      for (const leg of legs) await engine.joinBridge('b', leg.legId);
      for (const [i, peer] of peers.entries()) peer.sendTone(legs[i].localPort, tones[i]);
      await sleep(300);
      const since = performance.now();
      await sleep(500);
      for (const [i, peer] of peers.entries()) {
        const levels = peer.levels(since, tones);
        for (const [j, f] of tones.entries()) {
          if (j === i) assert.ok(levels[f] < NOT_HEARD, `party ${i} must not hear itself (${f} Hz at ${levels[f].toFixed(0)})`);
          else assert.ok(levels[f] > HEARD, `party ${i} hears ${f} Hz (${levels[f].toFixed(0)})`);
        }
      }
    });
  }

  it('relays two same-codec legs packet by packet: payloads unchanged, one continuous stream', { timeout: 10_000 }, async () => {
    const { engine, legs, peers } = await setup(1, 2);
    cleanup.push(
      () => engine.close(),
      () => {
        for (const p of peers) p.close();
      },
    );
    await engine.createBridge({ bridgeId: 'r', kind: 'mixing' });
    await engine.joinBridge('r', legs[0].legId);
    await engine.joinBridge('r', legs[1].legId);
    await sleep(60); // the bridge decides to relay on its next tick
    const sent: Uint8Array[] = [];
    for (let i = 0; i < 20; i += 1) {
      const packet = new Uint8Array(RTP_HEADER_SIZE + 160);
      writeRtpHeader(packet, { payloadType: 0, marker: i === 0, sequenceNumber: 1000 + i, timestamp: 50_000 + 160 * i, ssrc: 0x1234 });
      for (let j = 0; j < 160; j += 1) packet[RTP_HEADER_SIZE + j] = (i * 7 + j * 13) & 0xff;
      sent.push(packet.subarray(RTP_HEADER_SIZE));
      await peers[0].far.send(packet, legs[0].localPort);
      await sleep(20);
    }
    const received = await waitFor('20 relayed packets', () => {
      const audio = peers[1].far.packets.filter((p) => p.info.payloadType === 0);
      const matching = audio.filter((p) => sent.some((s) => Buffer.compare(Buffer.from(s), Buffer.from(p.payload)) === 0));
      return matching.length >= 20 ? matching : undefined;
    });
    const ssrcs = new Set(peers[1].far.packets.map((p) => p.info.ssrc));
    assert.equal(ssrcs.size, 1, 'the far end sees one stream');
    assert.notEqual([...ssrcs][0], 0x1234, 'in the leg own SSRC');
    for (let i = 1; i < received.length; i += 1) {
      assert.equal(received[i].info.sequenceNumber, (received[i - 1].info.sequenceNumber + 1) & 0xffff);
      assert.equal(received[i].info.timestamp, (received[i - 1].info.timestamp + 160) >>> 0);
    }
    // A telephone-event is relayed as it is, on the receiving leg's negotiated payload type.
    const event = new Uint8Array(RTP_HEADER_SIZE + 4);
    writeRtpHeader(event, { payloadType: 101, marker: true, sequenceNumber: 1020, timestamp: 50_000 + 160 * 20, ssrc: 0x1234 });
    event.set([5, 0x80 | 10, 0x03, 0x20], RTP_HEADER_SIZE);
    await peers[0].far.send(event, legs[0].localPort);
    const relayed = await waitFor('the relayed event', () => peers[1].far.packets.find((p) => p.info.payloadType === 101));
    assert.deepEqual([...relayed.payload], [5, 0x80 | 10, 0x03, 0x20]);
    assert.equal(relayed.info.sequenceNumber, ((received.at(-1)?.info.sequenceNumber ?? 0) + 1) & 0xffff, 'in the same stream');
  });

  it('holding bridge: participants hear the announcer only, the announcer hears nothing', { timeout: 10_000 }, async () => {
    const { engine, legs, peers } = await setup(1, 3);
    cleanup.push(
      () => engine.close(),
      () => {
        for (const p of peers) p.close();
      },
    );
    const tones = [500, 900, 1300];
    await engine.createBridge({ bridgeId: 'h', kind: 'holding' });
    await engine.joinBridge('h', legs[0].legId, { role: 'announcer' });
    await engine.joinBridge('h', legs[1].legId);
    await engine.joinBridge('h', legs[2].legId);
    for (const [i, peer] of peers.entries()) peer.sendTone(legs[i].localPort, tones[i]);
    await sleep(300);
    const since = performance.now();
    await sleep(500);
    for (const i of [1, 2]) {
      const levels = peers[i].levels(since, tones);
      assert.ok(levels[500] > HEARD, `participant ${i} hears the announcer (${levels[500].toFixed(0)})`);
      assert.ok(levels[900] < NOT_HEARD && levels[1300] < NOT_HEARD, `participant ${i} hears no other participant`);
    }
    const announcer = peers[0].levels(since, tones);
    assert.ok(
      Object.values(announcer).every((level) => level < NOT_HEARD),
      'the announcer hears nothing',
    );
  });

  it('bridge playback is heard by everyone on top of the mix, and finishes with the bridge id', { timeout: 10_000 }, async () => {
    const { engine, legs, peers, notes } = await setup(2, 2);
    cleanup.push(
      () => engine.close(),
      () => {
        for (const p of peers) p.close();
      },
    );
    await engine.createBridge({ bridgeId: 'p', kind: 'mixing' });
    for (const leg of legs) await engine.joinBridge('p', leg.legId);
    peers[0].sendTone(legs[0].localPort, 500);
    peers[1].sendTone(legs[1].localPort, 1300);
    await engine.playFileOnBridge('p', { playbackId: 'moh', file: tone700, loop: true });
    await sleep(300);
    const since = performance.now();
    await sleep(500);
    const a = peers[0].levels(since, [700, 1300]);
    const b = peers[1].levels(since, [700, 500]);
    assert.ok(a[700] > HEARD && b[700] > HEARD, `both hear the playback (${a[700].toFixed(0)}, ${b[700].toFixed(0)})`);
    assert.ok(a[1300] > HEARD && b[500] > HEARD, 'and still hear each other');
    await engine.stopBridgePlayback('p', 'moh');
    const finished = await waitFor('bridge playback finished', () =>
      notes.find((n) => n.type === 'playbackFinished' && n.playbackId === 'moh'),
    );
    assert.deepEqual(finished, { type: 'playbackFinished', legId: '', bridgeId: 'p', playbackId: 'moh', reason: 'stopped' });
  });

  it('a muted member is not heard, and a member that leaves hears the bridge no more', { timeout: 10_000 }, async () => {
    const { engine, legs, peers } = await setup(1, 3);
    cleanup.push(
      () => engine.close(),
      () => {
        for (const p of peers) p.close();
      },
    );
    const tones = [500, 900, 1300];
    await engine.createBridge({ bridgeId: 'm', kind: 'mixing' });
    for (const leg of legs) await engine.joinBridge('m', leg.legId);
    await engine.setBridgeParticipant('m', legs[0].legId, { mute: true });
    for (const [i, peer] of peers.entries()) peer.sendTone(legs[i].localPort, tones[i]);
    await sleep(300);
    let since = performance.now();
    await sleep(400);
    assert.ok(peers[1].levels(since, [500])[500] < NOT_HEARD, 'the muted party is not heard');
    assert.ok(peers[0].levels(since, [900])[900] > HEARD, 'the muted party still hears');
    await engine.leaveBridge('m', legs[2].legId);
    await sleep(100);
    since = performance.now();
    await sleep(300);
    assert.equal(peers[2].audioSince(since).length, 0, 'nothing is sent to a leg that left');
    assert.ok(peers[1].levels(since, [1300])[1300] < NOT_HEARD, 'and it is no longer heard');
  });
  it('switches from relay to mixing when a third leg joins, and the far end sees one continuous stream', { timeout: 10_000 }, async () => {
    const { engine, legs, peers } = await setup(1, 3);
    cleanup.push(
      () => engine.close(),
      () => {
        for (const p of peers) p.close();
      },
    );
    await engine.createBridge({ bridgeId: 's', kind: 'mixing' });
    await engine.joinBridge('s', legs[0].legId);
    await engine.joinBridge('s', legs[1].legId);
    peers[0].sendTone(legs[0].localPort, 500);
    await sleep(300);
    await engine.joinBridge('s', legs[2].legId);
    peers[2].sendTone(legs[2].localPort, 1300);
    await sleep(300);
    const since = performance.now();
    await sleep(300);
    const heard = peers[1].levels(since, [500, 1300]);
    assert.ok(heard[500] > HEARD && heard[1300] > HEARD, 'the second party now hears a mix of both others');
    const stream = peers[1].far.packets.filter((p) => p.info.payloadType === 0);
    assert.equal(new Set(stream.map((p) => p.info.ssrc)).size, 1, 'one SSRC throughout');
    for (let i = 1; i < stream.length; i += 1) {
      assert.equal(stream[i].info.sequenceNumber, (stream[i - 1].info.sequenceNumber + 1) & 0xffff, `sequence continues at packet ${i}`);
      const advance = (stream[i].info.timestamp - stream[i - 1].info.timestamp) >>> 0;
      assert.ok(advance >= 160 && advance < 8000, `timestamp moves forward at packet ${i} (${advance})`);
    }
  });

  it('when the home worker of a bridge dies, members on the other worker live on and can bridge again', { timeout: 15_000 }, async () => {
    const { engine, legs, peers, notes } = await setup(2, 3);
    cleanup.push(
      () => engine.close(),
      () => {
        for (const p of peers) p.close();
      },
    );
    // legs[0] and legs[2] are on worker 0 (the home, after the first join), legs[1] on worker 1.
    await engine.createBridge({ bridgeId: 'd', kind: 'mixing' });
    await engine.joinBridge('d', legs[0].legId);
    await engine.joinBridge('d', legs[1].legId);
    await engine.playTone(
      { kind: 'bridge', bridgeId: 'd' },
      { playbackId: 'hum', segments: [{ frequencies: [425], durationMs: 0 }], repeat: true },
    );
    await killWorkerForTest(engine, 0);
    await waitFor('the bridge playback failed', () =>
      notes.find((n) => n.type === 'playbackFinished' && n.playbackId === 'hum' && n.reason === 'failed'),
    );
    await assert.rejects(engine.joinBridge('d', legs[1].legId), /no media bridge d/);
    await engine.getCounters(legs[1].legId); // still alive
    await engine.createBridge({ bridgeId: 'again', kind: 'mixing' });
    await engine.joinBridge('again', legs[1].legId);
    await engine.playTone(
      { kind: 'bridge', bridgeId: 'again' },
      { playbackId: 't', segments: [{ frequencies: [700], durationMs: 0 }], repeat: true },
    );
    await sleep(200);
    const since = performance.now();
    await sleep(300);
    assert.ok(peers[1].levels(since, [700])[700] > HEARD, 'the survivor hears its new bridge');
  });
  it('transcodes: a PCMA party and a PCMU party hear each other, each in its own codec', { timeout: 10_000 }, async () => {
    const engine = new MediaEngine({ rtpStart: nextBase, rtpEnd: nextBase + 40, workers: 1 });
    nextBase += 42;
    await engine.start();
    const alaw = await TonePeer.open('PCMA');
    const ulaw = await TonePeer.open('PCMU');
    cleanup.push(
      () => engine.close(),
      () => {
        alaw.close();
        ulaw.close();
      },
    );
    const a = await engine.createLeg({ bindAddress: '127.0.0.1' });
    const u = await engine.createLeg({ bindAddress: '127.0.0.1' });
    await engine.setLegRemote(a.legId, { address: '127.0.0.1', port: alaw.port, codec: { name: 'PCMA', payloadType: 8, clockRate: 8000 } });
    await engine.setLegRemote(u.legId, pcmu(ulaw.port));
    await engine.createBridge({ bridgeId: 't', kind: 'mixing' });
    await engine.joinBridge('t', a.legId);
    await engine.joinBridge('t', u.legId);
    alaw.sendTone(a.localPort, 600);
    ulaw.sendTone(u.localPort, 1000);
    await sleep(300);
    const since = performance.now();
    await sleep(400);
    assert.ok(alaw.levels(since, [1000])[1000] > HEARD, 'the PCMA phone hears the PCMU one');
    assert.ok(ulaw.levels(since, [600])[600] > HEARD, 'the PCMU phone hears the PCMA one');
    assert.ok(
      alaw.far.packets.every((p) => p.info.payloadType === 8),
      'in its own codec',
    );
  });
  it('inbound leg mute keeps what the phone sends out of the bridge', { timeout: 10_000 }, async () => {
    const { engine, legs, peers } = await setup(1, 2);
    cleanup.push(
      () => engine.close(),
      () => {
        for (const p of peers) p.close();
      },
    );
    await engine.createBridge({ bridgeId: 'i', kind: 'mixing' });
    for (const leg of legs) await engine.joinBridge('i', leg.legId);
    await engine.setLegMute(legs[0].legId, { inbound: true, outbound: false });
    peers[0].sendTone(legs[0].localPort, 500);
    peers[1].sendTone(legs[1].localPort, 900);
    await sleep(300);
    const since = performance.now();
    await sleep(400);
    assert.ok(peers[1].levels(since, [500])[500] < NOT_HEARD, 'the muted phone is not heard');
    assert.ok(peers[0].levels(since, [900])[900] > HEARD, 'but it still hears the bridge');
  });
  it(
    'leg gain scales what the phone sends and what it is sent (VOLUME RX and TX), even between two legs that could relay',
    { timeout: 10_000 },
    async () => {
      const { engine, legs, peers } = await setup(1, 2);
      cleanup.push(
        () => engine.close(),
        () => {
          for (const p of peers) p.close();
        },
      );
      await engine.createBridge({ bridgeId: 'g', kind: 'mixing' });
      for (const leg of legs) await engine.joinBridge('g', leg.legId);
      peers[0].sendTone(legs[0].localPort, 500);
      peers[1].sendTone(legs[1].localPort, 900);
      await sleep(300);
      let since = performance.now();
      await sleep(300);
      const plain = { heardOf0: peers[1].levels(since, [500])[500], heardBy0: peers[0].levels(since, [900])[900] };
      assert.ok(plain.heardOf0 > HEARD && plain.heardBy0 > HEARD, 'both hear each other at full level first');
      await engine.setLegGain(legs[0].legId, { inbound: 0.25, outbound: 0.5 });
      await sleep(200);
      since = performance.now();
      await sleep(300);
      const rx = peers[1].levels(since, [500])[500] / plain.heardOf0;
      const tx = peers[0].levels(since, [900])[900] / plain.heardBy0;
      assert.ok(rx > 0.15 && rx < 0.35, `what phone 0 sends is heard at a quarter (${rx.toFixed(2)})`);
      assert.ok(tx > 0.35 && tx < 0.65, `phone 0 hears the bridge at half (${tx.toFixed(2)})`);
      await assert.rejects(engine.setLegGain(legs[0].legId, { inbound: -1, outbound: 1 }), /from 0 to 16/);
    },
  );
});
