/**
 * Recordings end to end: a real engine, a real UDP far end sending tones, real files. Bounded in time.
 */
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import { parseWav, pcm16Samples } from '../audio/wav.js';
import { toneAmplitude } from '../dsp/goertzel.js';
import { MediaEngine, killWorkerForTest } from '../media-engine.js';
import { RTP_HEADER_SIZE, writeRtpHeader } from '../rtp/rtp-header.js';
import { writeTelephoneEvent } from '../rtp/telephone-event.js';
import { TonePeer } from '../test-support/tone-peer.js';
import { sleep, waitFor } from '../test-support/wait.js';
import type { LegRemote, MediaLegInfo, MediaNotification } from '@switchboard/media-control';
import { supportedRecordingFormats } from './formats.js';

let nextBase = 34000 + 2 * Math.floor(Math.random() * 3000);
const pcmu = (port: number): LegRemote => ({
  address: '127.0.0.1',
  port,
  codec: { name: 'PCMU', payloadType: 0, clockRate: 8000 },
  telephoneEventPayloadType: 101,
});

describe('recordings', () => {
  let dir = '';
  let engine: MediaEngine;
  let notes: MediaNotification[] = [];
  let peers: TonePeer[] = [];
  let legs: MediaLegInfo[] = [];

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'switchboard-recording-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  afterEach(async () => {
    await engine.close();
    for (const peer of peers) peer.close();
    peers = [];
    legs = [];
  });

  async function start(workers: number, parties: number): Promise<void> {
    engine = new MediaEngine({ rtpStart: nextBase, rtpEnd: nextBase + 40, workers });
    nextBase += 42;
    await engine.start();
    notes = [];
    engine.onNotification((n) => notes.push(n));
    for (let i = 0; i < parties; i += 1) {
      const leg = await engine.createLeg({ bindAddress: '127.0.0.1' });
      const peer = await TonePeer.open();
      await engine.setLegRemote(leg.legId, pcmu(peer.port));
      legs.push(leg);
      peers.push(peer);
    }
  }

  const finished = (recordingId: string, timeoutMs = 5000) =>
    waitFor(
      `recording ${recordingId} finished`,
      () =>
        notes.find(
          (n): n is Extract<MediaNotification, { type: 'recordingFinished' }> =>
            n.type === 'recordingFinished' && n.recordingId === recordingId,
        ),
      timeoutMs,
    );

  it('records a leg to WAV until max silence, with durations and talking/silence accounting', { timeout: 10_000 }, async () => {
    await start(1, 1);
    const file = join(dir, 'leg.wav');
    peers[0].sendTone(legs[0].localPort, 800);
    await sleep(100);
    await engine.startRecording({ kind: 'leg', legId: legs[0].legId }, { recordingId: 'r1', file, format: 'wav', maxSilenceMs: 400 });
    await sleep(600);
    peers[0].stop(); // the phone goes quiet: silence from here on
    const done = await finished('r1');
    assert.equal(done.reason, 'max-silence');
    assert.ok(notes.findIndex((n) => n.type === 'recordingStarted') < notes.indexOf(done));
    assert.equal(done.silenceMs !== undefined && done.silenceMs >= 400, true, `silenceMs ${done.silenceMs}`);
    assert.ok(done.talkingMs !== undefined && done.talkingMs >= 450 && done.talkingMs <= 750, `talkingMs ${done.talkingMs}`);
    assert.equal(done.durationMs, (done.talkingMs ?? 0) + (done.silenceMs ?? 0));
    const wav = parseWav(await readFile(file));
    assert.equal(wav.truncated, false);
    assert.equal(wav.data.length, (done.durationMs / 1000) * 8000 * 2, 'the file holds exactly durationMs of audio');
    const samples = pcm16Samples(wav.data);
    assert.ok(toneAmplitude(samples.subarray(0, 3200), 800, 8000) > 3000, 'the tone is in the recording');
  });

  it('records a bridge mix, stops on request, and honours maxDuration', { timeout: 10_000 }, async () => {
    await start(2, 2);
    await engine.createBridge({ bridgeId: 'b', kind: 'mixing' });
    for (const leg of legs) await engine.joinBridge('b', leg.legId);
    peers[0].sendTone(legs[0].localPort, 500);
    peers[1].sendTone(legs[1].localPort, 1300);
    await sleep(200);
    const file = join(dir, 'bridge.wav');
    await engine.startRecording({ kind: 'bridge', bridgeId: 'b' }, { recordingId: 'rb', file, format: 'wav' });
    await sleep(500);
    await engine.stopRecording('rb', { discard: false });
    const done = await finished('rb');
    assert.equal(done.reason, 'stopped');
    assert.equal(done.talkingMs, undefined, 'no accounting without maxSilenceMs');
    const samples = pcm16Samples(parseWav(await readFile(file)).data);
    assert.ok(samples.length >= 0.4 * 8000, `about 500 ms recorded (${samples.length} samples)`);
    const tail = samples.subarray(samples.length - 2400);
    assert.ok(toneAmplitude(tail, 500, 8000) > 3000 && toneAmplitude(tail, 1300, 8000) > 3000, 'both parties are in the mix');

    await engine.startRecording(
      { kind: 'bridge', bridgeId: 'b' },
      { recordingId: 'rd', file: join(dir, 'short.sln'), format: 'sln', maxDurationMs: 200 },
    );
    const limited = await finished('rd');
    assert.equal(limited.reason, 'max-duration');
    assert.equal(limited.durationMs, 200);
    assert.equal((await stat(join(dir, 'short.sln'))).size, 200 * 16);
  });

  it('beeps first, ends on a terminating DTMF digit, and cancels by deleting the file', { timeout: 10_000 }, async () => {
    await start(1, 1);
    const file = join(dir, 'dtmf.ulaw');
    await engine.startRecording(
      { kind: 'leg', legId: legs[0].legId },
      { recordingId: 'rt', file, format: 'ulaw', beep: true, terminateOn: '#' },
    );
    await waitFor('recordingStarted after the beep', () => notes.find((n) => n.type === 'recordingStarted'));
    const beep = peers[0].levels(0, [1000]);
    assert.ok(beep[1000] > 3000, `the beep reached the phone (${beep[1000].toFixed(0)})`);
    const packet = new Uint8Array(RTP_HEADER_SIZE + 4);
    writeRtpHeader(packet, { payloadType: 101, marker: true, sequenceNumber: 1, timestamp: 4000, ssrc: 9 });
    writeTelephoneEvent(packet, { event: 11, end: true, volume: 10, duration: 800 }, RTP_HEADER_SIZE);
    await sleep(200);
    await peers[0].far.send(packet, legs[0].localPort);
    const done = await finished('rt');
    assert.equal(done.reason, 'dtmf');
    assert.ok(done.durationMs >= 100);

    await engine.startRecording({ kind: 'leg', legId: legs[0].legId }, { recordingId: 'rc', file: join(dir, 'cancel.wav'), format: 'wav' });
    await sleep(100);
    await engine.stopRecording('rc', { discard: true });
    assert.equal((await finished('rc')).reason, 'canceled');
    await assert.rejects(stat(join(dir, 'cancel.wav')), /ENOENT/);
  });

  it('pauses (nothing written) and mutes (silence written)', { timeout: 10_000 }, async () => {
    await start(1, 1);
    peers[0].sendTone(legs[0].localPort, 800);
    const file = join(dir, 'paused.sln');
    await engine.startRecording({ kind: 'leg', legId: legs[0].legId }, { recordingId: 'rp', file, format: 'sln' });
    await engine.setRecordingState('rp', { paused: true });
    await sleep(300);
    await engine.setRecordingState('rp', { paused: false, muted: true });
    await sleep(200);
    await engine.stopRecording('rp', { discard: false });
    const done = await finished('rp');
    assert.ok(done.durationMs >= 160 && done.durationMs <= 280, `only the muted part counts (${done.durationMs})`);
    const bytes = await readFile(file);
    const samples = new Int16Array(bytes.buffer, bytes.byteOffset, bytes.length / 2);
    assert.ok(
      samples.every((s) => s === 0),
      'muted audio is silence',
    );
  });

  // scripts/ensure-tools.mjs installs Debian's ffmpeg before the tests run.
  it('writes ogg and mp3 through ffmpeg', { timeout: 15_000 }, async () => {
    assert.ok(supportedRecordingFormats().includes('ogg'), 'ffmpeg must be on PATH (apt-get install ffmpeg)');
    await start(1, 1);
    peers[0].sendTone(legs[0].localPort, 800);
    for (const format of ['ogg', 'mp3'] as const) {
      const file = join(dir, `leg.${format}`);
      await engine.startRecording({ kind: 'leg', legId: legs[0].legId }, { recordingId: format, file, format });
      await sleep(300);
      await engine.stopRecording(format, { discard: false });
      const done = await finished(format);
      assert.equal(done.reason, 'stopped', done.error);
      assert.ok((await stat(file)).size > 100, `${format} file written`);
    }
  });

  it('fails an ogg/mp3 recording clearly when ffmpeg is not on PATH', { timeout: 10_000 }, async () => {
    const path = process.env.PATH;
    process.env.PATH = ''; // the worker threads copy the environment when they start
    try {
      await start(1, 1);
    } finally {
      process.env.PATH = path;
    }
    await engine.startRecording({ kind: 'leg', legId: legs[0].legId }, { recordingId: 'mp', file: join(dir, 'x.mp3'), format: 'mp3' });
    const failed = await finished('mp');
    assert.equal(failed.reason, 'failed');
    assert.match(failed.error ?? '', /needs ffmpeg, which is not on PATH/);
  });

  it('fails live recordings and bridge media when their worker dies', { timeout: 15_000 }, async () => {
    await start(1, 1);
    await engine.createBridge({ bridgeId: 'b', kind: 'mixing' });
    await engine.joinBridge('b', legs[0].legId);
    await engine.playTone(
      { kind: 'bridge', bridgeId: 'b' },
      { playbackId: 'tone', segments: [{ frequencies: [425], durationMs: 0 }], repeat: true },
    );
    await engine.startRecording({ kind: 'bridge', bridgeId: 'b' }, { recordingId: 'rw', file: join(dir, 'dies.wav'), format: 'wav' });
    await sleep(100);
    await killWorkerForTest(engine, 0);
    const failed = await finished('rw');
    assert.equal(failed.reason, 'failed');
    await waitFor('bridge tone failed', () =>
      notes.find((n) => n.type === 'playbackFinished' && n.playbackId === 'tone' && n.reason === 'failed' && n.bridgeId === 'b'),
    );
    await waitFor('workerDied', () => notes.find((n) => n.type === 'workerDied'));
  });
});
