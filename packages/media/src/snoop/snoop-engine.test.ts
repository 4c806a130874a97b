/**
 * Snoop legs, DTMF sending, tones and detection end to end: a real engine and real UDP far ends.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { MediaEngine } from '../media-engine.js';
import { parseTelephoneEvent } from '../rtp/telephone-event.js';
import { TonePeer } from '../test-support/tone-peer.js';
import { sleep, waitFor } from '../test-support/wait.js';
import type { LegRemote, MediaLegInfo, MediaNotification } from '@switchboard/media-control';

let nextBase = 37000 + 2 * Math.floor(Math.random() * 3000);
const pcmu = (port: number, events = true): LegRemote => ({
  address: '127.0.0.1',
  port,
  codec: { name: 'PCMU', payloadType: 0, clockRate: 8000 },
  ...(events ? { telephoneEventPayloadType: 101 } : {}),
});

describe('snoop, DTMF, tones, detection', () => {
  let engine: MediaEngine;
  let notes: MediaNotification[] = [];
  let peers: TonePeer[] = [];
  let legs: MediaLegInfo[] = [];

  afterEach(async () => {
    await engine.close();
    for (const peer of peers) peer.close();
    peers = [];
    legs = [];
  });

  async function start(workers: number, parties: number, events = true): Promise<void> {
    engine = new MediaEngine({ rtpStart: nextBase, rtpEnd: nextBase + 40, workers });
    nextBase += 42;
    await engine.start();
    notes = [];
    engine.onNotification((n) => notes.push(n));
    for (let i = 0; i < parties; i += 1) {
      const leg = await engine.createLeg({ bindAddress: '127.0.0.1' });
      const peer = await TonePeer.open();
      await engine.setLegRemote(leg.legId, pcmu(peer.port, events));
      legs.push(leg);
      peers.push(peer);
    }
  }

  it(
    'a spy snoop bridged with a supervisor hears what the source phone sends; whisper reaches the source',
    {
      timeout: 10_000,
    },
    async () => {
      await start(2, 2); // source and supervisor on different workers
      const [source, supervisor] = legs;
      const snoop = await engine.createSnoopLeg({ sourceLegId: source.legId, spy: 'in', whisper: 'out' });
      await engine.createBridge({ bridgeId: 'spy', kind: 'mixing' });
      await engine.joinBridge('spy', snoop.legId);
      await engine.joinBridge('spy', supervisor.legId);
      peers[0].sendTone(source.localPort, 600);
      peers[1].sendTone(supervisor.localPort, 1100);
      await sleep(300);
      const since = performance.now();
      await sleep(500);
      const heard = peers[1].levels(since, [600]);
      assert.ok(heard[600] > 3000, `the supervisor hears the source's phone (${heard[600].toFixed(0)})`);
      const whispered = peers[0].levels(since, [1100, 600]);
      assert.ok(whispered[1100] > 3000, `the source's phone hears the whisper (${whispered[1100].toFixed(0)})`);
      assert.ok(whispered[600] < 600, 'but not itself');
    },
  );

  it('sends RFC 4733 events on the negotiated payload type, and resolves after the last digit', { timeout: 10_000 }, async () => {
    await start(1, 1);
    const begun = performance.now();
    await engine.sendDtmf(legs[0].legId, { digits: '1#', durationMs: 100, betweenMs: 60 });
    const elapsed = performance.now() - begun;
    assert.ok(elapsed >= 200, `resolves after the digits were sent (${elapsed.toFixed(0)} ms)`);
    await sleep(50);
    const events = peers[0].far.packets.filter((p) => p.info.payloadType === 101);
    const decoded = events.map((p) => ({ ...parseTelephoneEvent(p.payload), timestamp: p.info.timestamp, marker: p.info.marker }));
    const digits = [...new Set(decoded.map((e) => e.event))];
    assert.deepEqual(digits, [1, 11]);
    for (const code of digits) {
      const ofDigit = decoded.filter((e) => e.event === code);
      assert.equal(new Set(ofDigit.map((e) => e.timestamp)).size, 1, 'one start timestamp per event (RFC 4733 §2.5.1.3)');
      assert.equal(ofDigit[0].marker, true, 'marker on the first packet');
      assert.equal(ofDigit.filter((e) => e.end).length, 3, 'three end packets (RFC 4733 §2.5.1.4)');
      assert.equal(ofDigit.at(-1)?.duration, 800, '100 ms at 8000 Hz');
    }
  });

  it('sends in-band tones when no telephone-event was negotiated', { timeout: 10_000 }, async () => {
    await start(1, 1, false);
    const since = performance.now();
    await engine.sendDtmf(legs[0].legId, { digits: '5', durationMs: 200, betweenMs: 50 });
    await sleep(40);
    const levels = peers[0].levels(since, [770, 1336]);
    assert.ok(levels[770] > 1000 && levels[1336] > 1000, `Q.23 pair for 5 (${levels[770].toFixed(0)}, ${levels[1336].toFixed(0)})`);
    assert.ok(!peers[0].far.packets.some((p) => p.info.payloadType === 101));
  });

  it('plays a tone on a leg: a non-repeating pattern completes, a repeating one stops on request', { timeout: 10_000 }, async () => {
    await start(1, 1);
    await engine.playTone(
      { kind: 'leg', legId: legs[0].legId },
      { playbackId: 't1', segments: [{ frequencies: [440], durationMs: 200 }], repeat: false },
    );
    const done = await waitFor('tone complete', () => notes.find((n) => n.type === 'playbackFinished' && n.playbackId === 't1'));
    assert.equal(done.type === 'playbackFinished' && done.reason, 'complete');
    // The last packet may still be on its way when the notification arrives.
    await waitFor('200 ms of tone', () => (peers[0].audioSince(0).length >= 200 * 8 ? true : undefined));
    await sleep(60);
    assert.equal(peers[0].audioSince(0).length, 200 * 8, 'exactly 200 ms of tone');
    assert.ok(peers[0].levels(0, [440])[440] > 3000);
    await engine.playTone(
      { kind: 'leg', legId: legs[0].legId },
      {
        playbackId: 't2',
        segments: [
          { frequencies: [480, 620], durationMs: 100 },
          { frequencies: [], durationMs: 100 },
        ],
        repeat: true,
      },
    );
    await sleep(500);
    assert.equal(
      notes.some((n) => n.type === 'playbackFinished' && n.playbackId === 't2'),
      false,
      'a repeating tone does not end by itself',
    );
    await engine.stopPlayback(legs[0].legId, 't2');
    const stopped = await waitFor('tone stopped', () => notes.find((n) => n.type === 'playbackFinished' && n.playbackId === 't2'));
    assert.equal(stopped.type === 'playbackFinished' && stopped.reason, 'stopped');
  });

  it('detects talking and reports statistics, counts and mute', { timeout: 10_000 }, async () => {
    await start(1, 1);
    await engine.setTalkDetection(legs[0].legId, { energyThreshold: 500, talkMs: 60, silenceMs: 200 });
    peers[0].sendTone(legs[0].localPort, 700);
    await waitFor('talkingStarted', () => notes.find((n) => n.type === 'talkingStarted'));
    await sleep(300);
    peers[0].stop();
    const finished = await waitFor('talkingFinished', () => notes.find((n) => n.type === 'talkingFinished'));
    assert.ok(
      finished.type === 'talkingFinished' && finished.durationMs >= 250,
      `talked ${finished.type === 'talkingFinished' ? finished.durationMs : 0} ms`,
    );
    const stats = await engine.getRtpStatistics(legs[0].legId);
    assert.ok(stats.rxcount > 10);
    assert.equal(typeof stats.local_ssrc, 'number');
    await engine.setLegMute(legs[0].legId, { inbound: false, outbound: true });
    await engine.playTone(
      { kind: 'leg', legId: legs[0].legId },
      { playbackId: 'muted', segments: [{ frequencies: [440], durationMs: 100 }], repeat: false },
    );
    const since = performance.now();
    await waitFor('muted tone done', () => notes.find((n) => n.type === 'playbackFinished' && n.playbackId === 'muted'));
    await sleep(20);
    const audio = peers[0].audioSince(since - 40);
    assert.ok(audio.length > 0 && audio.every((s) => Math.abs(s) < 10), 'outbound mute sends silence');
  });
  it('detects in-band DTMF once: by the leg without telephone-event, on request with it', { timeout: 10_000 }, async () => {
    await start(1, 2);
    await engine.setLegRemote(legs[1].legId, pcmu(peers[1].port, false));
    await engine.setInbandDtmfDetection(legs[0].legId, true);
    await engine.setInbandDtmfDetection(legs[1].legId, true);
    for (const [index, peer] of peers.entries()) peer.sendTone(legs[index].localPort, [852, 1477], 5000); // 9
    await sleep(200);
    for (const peer of peers) peer.stop();
    for (const leg of legs) {
      await waitFor('digit 9', () => notes.find((n) => n.type === 'dtmfReceived' && n.legId === leg.legId));
    }
    await sleep(100);
    for (const leg of legs) {
      const digits = notes.filter((n) => n.type === 'dtmfReceived' && n.legId === leg.legId);
      assert.deepEqual(
        digits.map((n) => n.type === 'dtmfReceived' && n.digit),
        ['9'],
        'reported once',
      );
    }
  });
});
