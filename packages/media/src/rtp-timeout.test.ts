/**
 * The RTP timeout through the engine: real worker thread, real UDP sockets on loopback as the
 * phones. Timeouts of one second; every wait bounded.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { MediaError } from './errors.js';
import { MediaEngine } from './media-engine.js';
import { buildReceiverReport } from './rtp/rtcp.js';
import { RTP_HEADER_SIZE, writeRtpHeader } from './rtp/rtp-header.js';
import { FarEnd } from './test-support/far-end.js';
import { sleep, waitFor } from './test-support/wait.js';
import type { LegRemote, MediaNotification } from '@switchboard/media-control';

const BASE_PORT = 40000 + 2 * Math.floor(Math.random() * 5000);

const pcmu = (port: number): LegRemote => ({
  address: '127.0.0.1',
  port,
  codec: { name: 'PCMU', payloadType: 0, clockRate: 8000 },
  telephoneEventPayloadType: 101,
});

/** Sends one datagram every `everyMs` until stopped. */
function keepSending(everyMs: number, send: (n: number) => Promise<void>): () => void {
  let n = 0;
  const timer = setInterval(() => {
    void send(n++).catch(() => undefined);
  }, everyMs);
  return () => clearInterval(timer);
}

function pcmuPacket(n: number): Buffer {
  const packet = Buffer.alloc(RTP_HEADER_SIZE + 160, 0xff);
  writeRtpHeader(packet, { payloadType: 0, marker: n === 0, sequenceNumber: n & 0xffff, timestamp: n * 160, ssrc: 0x1234 });
  return packet;
}

describe('RTP timeout of a leg (MediaEngine)', () => {
  let engine: MediaEngine;
  let phone: FarEnd;
  type TimedOut = Extract<MediaNotification, { type: 'legRtpTimeout' }> & { at: number };
  const notes: TimedOut[] = [];
  const timedOut = (legId: string) => notes.find((n) => n.legId === legId);

  before(async () => {
    engine = new MediaEngine({ rtpStart: BASE_PORT, rtpEnd: BASE_PORT + 100, workers: 1 });
    await engine.start();
    engine.onNotification((n) => {
      if (n.type === 'legRtpTimeout') notes.push({ ...n, at: performance.now() });
    });
    phone = await FarEnd.open();
  });
  after(async () => {
    await engine.close();
    phone.close();
  });

  it('reports a quiet leg after about the timeout; RTP or RTCP keeps a leg alive; 0 disarms', { timeout: 15_000 }, async () => {
    const create = () => engine.createLeg({ bindAddress: '127.0.0.1', remote: pcmu(phone.port) });
    const [quiet, talking, reporting, disarmed] = await Promise.all([create(), create(), create(), create()]);
    const stopTalking = keepSending(20, (n) => phone.send(pcmuPacket(n), talking.localPort));
    // RTCP only, on the port after the leg's RTP port (RFC 3550 §11), as a phone on hold sends it.
    const stopReporting = keepSending(250, () => phone.send(buildReceiverReport(0x5678), reporting.localPort + 1));
    const armedAt = performance.now();
    await Promise.all([quiet, talking, reporting, disarmed].map((leg) => engine.setLegRtpTimeout(leg.legId, 1)));
    await engine.setLegRtpTimeout(disarmed.legId, 0);

    const note = await waitFor('the quiet leg to time out', () => timedOut(quiet.legId), 4000);
    const after = note.at - armedAt;
    // One-second checks: due between the timeout and one check later (plus a loaded machine's slack).
    assert.ok(after >= 950 && after < 3500, `timed out ${after.toFixed(0)} ms after arming`);
    // `seconds` is the quiet time the check found, whole seconds: 1, or 2 when the check came after 2 s.
    assert.deepEqual({ ...note, seconds: 0, at: 0 }, { type: 'legRtpTimeout', legId: quiet.legId, seconds: 0, at: 0 });
    assert.ok(note.seconds >= 1 && note.seconds <= Math.ceil(after / 1000), `seconds ${note.seconds} after ${after.toFixed(0)} ms`);

    await sleep(2500);
    assert.equal(timedOut(talking.legId), undefined, 'a leg receiving RTP is not timed out');
    assert.equal(timedOut(reporting.legId), undefined, 'a leg receiving RTCP is not timed out');
    assert.equal(timedOut(disarmed.legId), undefined, 'a disarmed leg is not timed out');
    assert.equal(notes.filter((n) => n.legId === quiet.legId).length, 1, 'reported once');

    stopTalking();
    stopReporting();
    const stoppedAt = performance.now();
    await waitFor('the talking leg to time out once it went quiet', () => timedOut(talking.legId), 4000);
    await waitFor('the reporting leg to time out once it went quiet', () => timedOut(reporting.legId), 4000);
    const talkingNote = timedOut(talking.legId);
    assert.ok(talkingNote !== undefined && talkingNote.at - stoppedAt >= 900, 'counted from the last packet');
    assert.equal(timedOut(disarmed.legId), undefined);
  });

  it('starts counting when the leg learns its remote, not when it was created', { timeout: 10_000 }, async () => {
    const leg = await engine.createLeg({ bindAddress: '127.0.0.1' });
    await engine.setLegRtpTimeout(leg.legId, 1);
    await sleep(2200);
    assert.equal(timedOut(leg.legId), undefined, 'no remote yet: not timed');
    const remoteAt = performance.now();
    await engine.setLegRemote(leg.legId, pcmu(phone.port));
    const note = await waitFor('the timeout after the remote', () => timedOut(leg.legId), 4000);
    assert.ok(note.at - remoteAt >= 950, `timed out ${(note.at - remoteAt).toFixed(0)} ms after the remote was set`);
  });

  it('refuses a timeout that is not a whole number of seconds, and an unknown leg', async () => {
    const leg = await engine.createLeg({ bindAddress: '127.0.0.1' });
    for (const bad of [-1, 1.5, Number.NaN, 40_000_000]) {
      await assert.rejects(engine.setLegRtpTimeout(leg.legId, bad), (e: MediaError) => e.code === 'invalid_argument', String(bad));
    }
    await assert.rejects(
      engine.setLegRtpTimeout('no-such-leg', 1),
      (e: MediaError) => e instanceof MediaError && e.code === 'leg_not_found',
    );
    await engine.destroyLeg(leg.legId);
  });
});
