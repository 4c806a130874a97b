/**
 * The engine end to end: real worker threads, real UDP sockets on loopback as the far end, real
 * WAV files in the temporary directory. Every test is bounded in time.
 */
import assert from 'node:assert/strict';
import dgram from 'node:dgram';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import { alawToLinear, decodeUlaw } from './codecs/g711.js';
import { LegNotFoundError, MediaError, PortsExhaustedError, WorkerDiedError } from './errors.js';
import type { MediaLogger } from './logger.js';
import { MediaEngine, killWorkerForTest } from './media-engine.js';
import { RTP_HEADER_SIZE, writeRtpHeader } from './rtp/rtp-header.js';
import { writeTelephoneEvent } from './rtp/telephone-event.js';
import { sine, wav16 } from './test-support/audio-fixtures.js';
import { FarEnd } from './test-support/far-end.js';
import { sleep, waitFor } from './test-support/wait.js';
import type { LegRemote, MediaNotification } from '@switchboard/media-control';

/** A random even base port per run, so parallel runs on one machine rarely meet. */
const BASE_PORT = 40000 + 2 * Math.floor(Math.random() * 5000);

const pcmu = (port: number, extra: Partial<LegRemote> = {}): LegRemote => ({
  address: '127.0.0.1',
  port,
  codec: { name: 'PCMU', payloadType: 0, clockRate: 8000 },
  telephoneEventPayloadType: 101,
  ...extra,
});

/** Collects log lines, so a test can check that worker logs reach the main thread. */
function memoryLogger(): MediaLogger & { lines: Array<{ level: string; fields: object; msg: string }> } {
  const lines: Array<{ level: string; fields: object; msg: string }> = [];
  const write =
    (level: string) =>
    (obj: object | string, msg?: string): void => {
      lines.push(typeof obj === 'string' ? { level, fields: {}, msg: obj } : { level, fields: obj, msg: msg ?? '' });
    };
  return { lines, debug: write('debug'), info: write('info'), warn: write('warn'), error: write('error') };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

let dir = '';
let oneSecond = '';
let longTone = '';
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'switchboard-media-engine-'));
  oneSecond = join(dir, 'one-second.wav');
  longTone = join(dir, 'five-seconds.wav');
  await writeFile(oneSecond, wav16(sine(440, 8000, 1000), 8000));
  await writeFile(longTone, wav16(sine(440, 8000, 5000), 8000));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('MediaEngine with one worker', () => {
  let engine: MediaEngine;
  let far: FarEnd;
  let notes: MediaNotification[] = [];
  let logger = memoryLogger();

  const noteOf = <T extends MediaNotification['type']>(
    type: T,
    match: (n: Extract<MediaNotification, { type: T }>) => boolean = () => true,
  ) =>
    notes.find((n): n is Extract<MediaNotification, { type: T }> => n.type === type && match(n as Extract<MediaNotification, { type: T }>));

  beforeEach(async () => {
    logger = memoryLogger();
    engine = new MediaEngine({ rtpStart: BASE_PORT, rtpEnd: BASE_PORT + 200, workers: 1, logger });
    await engine.start();
    notes = [];
    engine.onNotification((n) => notes.push(n));
    far = await FarEnd.open();
  });
  afterEach(async () => {
    await engine.close();
    far.close();
  });

  it('plays a 1-second WAV as 50 paced PCMU packets', { timeout: 10_000 }, async () => {
    const leg = await engine.createLeg({ bindAddress: '127.0.0.1' });
    assert.equal(leg.localAddress, '127.0.0.1');
    assert.ok(leg.localPort >= BASE_PORT && leg.localPort <= BASE_PORT + 200 && leg.localPort % 2 === 0);
    await engine.setLegRemote(leg.legId, pcmu(far.port));
    await engine.playFile(leg.legId, { playbackId: 'pb1', file: oneSecond });

    const finished = await waitFor('playbackFinished', () => noteOf('playbackFinished'), 5000);
    assert.deepEqual(finished, { type: 'playbackFinished', legId: leg.legId, playbackId: 'pb1', reason: 'complete' });
    assert.deepEqual(noteOf('playbackStarted'), { type: 'playbackStarted', legId: leg.legId, playbackId: 'pb1' });
    assert.ok(notes.indexOf(noteOf('playbackStarted') as MediaNotification) < notes.indexOf(finished));
    await waitFor('50 packets', () => (far.packets.length >= 50 ? true : undefined), 1000);

    const packets = far.packets;
    assert.equal(packets.length, 50);
    const ssrc = packets[0].info.ssrc;
    for (let i = 0; i < packets.length; i += 1) {
      const { info } = packets[i];
      assert.equal(info.payloadType, 0);
      assert.equal(info.ssrc, ssrc, 'constant SSRC');
      assert.equal(info.marker, i === 0, `marker only on the first packet (packet ${i})`);
      assert.equal(packets[i].payload.length, 160);
      if (i > 0) {
        assert.equal(info.sequenceNumber, (packets[i - 1].info.sequenceNumber + 1) & 0xffff, 'sequence +1');
        assert.equal(info.timestamp, (packets[i - 1].info.timestamp + 160) >>> 0, 'timestamp +160');
      }
    }
    const decoded = new Int16Array(160);
    decodeUlaw(packets[10].payload, decoded);
    assert.ok(Math.max(...decoded) > 8000, 'the payload is the tone, not silence');

    const gaps = packets.slice(1).map((p, i) => p.at - packets[i].at);
    const gap = median(gaps);
    assert.ok(gap > 17 && gap < 23, `median inter-packet gap ${gap.toFixed(2)} ms`);
    const span = packets[49].at - packets[0].at;
    assert.ok(span > 49 * 20 - 30 && span < 49 * 20 + 60, `50 packets span ${span.toFixed(1)} ms`);

    const counters = await engine.getCounters(leg.legId);
    assert.equal(counters.packetsSent, 50);
    assert.equal(counters.bytesSent, 50 * (RTP_HEADER_SIZE + 160));
  });

  it('reports each worker tick statistics, and starts a new window on reset', { timeout: 10_000 }, async () => {
    const idle = await engine.getWorkerStats({ reset: true });
    assert.equal(idle.length, 1);
    assert.equal(idle[0].workerIndex, 0);
    const leg = await engine.createLeg({ bindAddress: '127.0.0.1' });
    await engine.setLegRemote(leg.legId, pcmu(far.port));
    await engine.playTone(
      { kind: 'leg', legId: leg.legId },
      { playbackId: 't', segments: [{ frequencies: [440], durationMs: 0 }], repeat: true },
    );
    await sleep(400);
    const [busy] = await engine.getWorkerStats({ reset: true });
    assert.ok(busy.ticks >= 15 && busy.ticks <= 25, `about 20 frames in 400 ms (${busy.ticks})`);
    assert.ok(busy.tickMsP50 > 0 && busy.tickMsP50 <= busy.tickMsP99 && busy.tickMsP99 <= busy.tickMsMax, JSON.stringify(busy));
    assert.equal(busy.budgetMs, 20);
    assert.ok(busy.overruns <= busy.ticks);
    assert.ok(busy.windowMs >= 380, `the window covers the wait (${busy.windowMs} ms)`);
    await sleep(100);
    const [fresh] = await engine.getWorkerStats();
    assert.ok(fresh.ticks <= 8 && fresh.windowMs < 300, `a new window after the reset (${fresh.ticks} ticks, ${fresh.windowMs} ms)`);
  });

  it('stops a playback mid-way: finished stopped, no more packets', { timeout: 10_000 }, async () => {
    const leg = await engine.createLeg({ bindAddress: '127.0.0.1' });
    await engine.setLegRemote(leg.legId, pcmu(far.port));
    await engine.playFile(leg.legId, { playbackId: 'long', file: longTone });
    await waitFor('10 packets', () => (far.packets.length >= 10 ? true : undefined));
    await engine.stopPlayback(leg.legId, 'long');
    const finished = await waitFor('finished', () => noteOf('playbackFinished'));
    assert.equal(finished.reason, 'stopped');
    const count = far.packets.length;
    await sleep(100);
    assert.ok(far.packets.length <= count + 1, 'nothing after the stop (one packet may have been in flight)');
    assert.ok(count < 100);
  });

  it(
    'replaces a playback: the first finishes stopped, the second starts with a marker and continues the stream',
    {
      timeout: 10_000,
    },
    async () => {
      const leg = await engine.createLeg({ bindAddress: '127.0.0.1' });
      await engine.setLegRemote(leg.legId, pcmu(far.port));
      await engine.playFile(leg.legId, { playbackId: 'a', file: longTone });
      await waitFor('5 packets', () => (far.packets.length >= 5 ? true : undefined));
      await engine.playFile(leg.legId, { playbackId: 'b', file: oneSecond, offsetMs: 900 });
      await waitFor('b finished', () => noteOf('playbackFinished', (n) => n.playbackId === 'b'));
      assert.equal(noteOf('playbackFinished', (n) => n.playbackId === 'a')?.reason, 'stopped');
      assert.equal(noteOf('playbackFinished', (n) => n.playbackId === 'b')?.reason, 'complete');
      await sleep(50);

      const markers = far.packets.map((p, i) => (p.info.marker ? i : -1)).filter((i) => i >= 0);
      assert.equal(markers.length, 2, 'one talkspurt per playback');
      const startOfB = markers[1];
      assert.equal(far.packets.length - startOfB, 5, 'the last 100 ms of the file is 5 packets');
      for (let i = 1; i < far.packets.length; i += 1) {
        const previous = far.packets[i - 1].info;
        const current = far.packets[i].info;
        assert.equal(current.ssrc, previous.ssrc);
        assert.equal(current.sequenceNumber, (previous.sequenceNumber + 1) & 0xffff);
        const advance = (current.timestamp - previous.timestamp) >>> 0;
        assert.ok(advance >= 160 && advance < 8000, `timestamp advances monotonically (${advance})`);
        if (i !== startOfB) assert.equal(advance, 160);
      }
    },
  );

  it('pads the partial last frame with silence', { timeout: 10_000 }, async () => {
    const file = join(dir, 'partial.wav');
    await writeFile(file, wav16(sine(440, 8000, 50, 12000), 8000)); // 400 samples: 2.5 frames
    const leg = await engine.createLeg({ bindAddress: '127.0.0.1' });
    await engine.setLegRemote(leg.legId, pcmu(far.port, { codec: { name: 'PCMA', payloadType: 8, clockRate: 8000 } }));
    await engine.playFile(leg.legId, { playbackId: 'p', file });
    await waitFor('finished', () => noteOf('playbackFinished'));
    await waitFor('3 packets', () => (far.packets.length >= 3 ? true : undefined), 1000);
    assert.equal(far.packets.length, 3);
    const last = far.packets[2];
    assert.equal(last.info.payloadType, 8);
    assert.equal(last.payload.length, 160);
    const decoded = Array.from(last.payload, alawToLinear);
    assert.ok(
      decoded.slice(0, 80).some((s) => Math.abs(s) > 5000),
      'the remaining audio',
    );
    assert.ok(
      decoded.slice(80).every((s) => Math.abs(s) <= 8),
      'then silence',
    );
  });

  it('fails a playback of a missing file, naming the file', { timeout: 5000 }, async () => {
    const leg = await engine.createLeg({ bindAddress: '127.0.0.1' });
    await engine.setLegRemote(leg.legId, pcmu(far.port));
    await engine.playFile(leg.legId, { playbackId: 'missing', file: join(dir, 'no-such.wav') });
    const finished = await waitFor('finished', () => noteOf('playbackFinished'));
    assert.equal(finished.reason, 'failed');
    assert.match(finished.error ?? '', /no-such\.wav.*ENOENT/);
    assert.equal(noteOf('playbackStarted'), undefined);
  });

  it('fails a playback of an unsupported WAV format with a clear error', { timeout: 5000 }, async () => {
    const file = join(dir, 'stereo.wav');
    await writeFile(file, wav16(new Int16Array(1600), 8000, 2));
    const leg = await engine.createLeg({ bindAddress: '127.0.0.1' });
    await engine.setLegRemote(leg.legId, pcmu(far.port));
    await engine.playFile(leg.legId, { playbackId: 'stereo', file });
    const finished = await waitFor('finished', () => noteOf('playbackFinished'));
    assert.equal(finished.reason, 'failed');
    assert.match(finished.error ?? '', /unsupported WAV format.*2 channel/);
  });

  it('reports an RFC 4733 event once, however many end packets arrive', { timeout: 5000 }, async () => {
    const leg = await engine.createLeg({ bindAddress: '127.0.0.1' });
    await engine.setLegRemote(leg.legId, pcmu(far.port));
    let sequence = 1000;
    const event = async (digitCode: number, end: boolean, duration: number, timestamp: number, marker = false): Promise<void> => {
      const packet = new Uint8Array(RTP_HEADER_SIZE + 4);
      writeRtpHeader(packet, { payloadType: 101, marker, sequenceNumber: sequence++, timestamp, ssrc: 0xabcdef });
      writeTelephoneEvent(packet, { event: digitCode, end, volume: 10, duration }, RTP_HEADER_SIZE);
      await far.send(packet, leg.localPort);
    };
    await event(11, false, 160, 5000, true);
    await event(11, false, 480, 5000);
    for (let i = 0; i < 3; i += 1) await event(11, true, 960, 5000); // the end, sent three times (RFC 4733 §2.5.1.4)
    await event(4, true, 800, 9000);
    await waitFor('two digits', () => (notes.filter((n) => n.type === 'dtmfReceived').length >= 2 ? true : undefined));
    await sleep(50);
    const digits = notes.filter((n) => n.type === 'dtmfReceived');
    assert.deepEqual(digits, [
      { type: 'dtmfReceived', legId: leg.legId, digit: '#', durationMs: 120 },
      { type: 'dtmfReceived', legId: leg.legId, digit: '4', durationMs: 100 },
    ]);
    const counters = await engine.getCounters(leg.legId);
    assert.equal(counters.packetsReceived, 6);
    assert.equal(counters.bytesReceived, 6 * 16);
  });

  it('drops hostile datagrams without harm and keeps working', { timeout: 5000 }, async () => {
    const leg = await engine.createLeg({ bindAddress: '127.0.0.1' });
    await engine.setLegRemote(leg.legId, pcmu(far.port));
    const wrongType = new Uint8Array(RTP_HEADER_SIZE + 160);
    writeRtpHeader(wrongType, { payloadType: 18, marker: false, sequenceNumber: 1, timestamp: 1, ssrc: 1 });
    const shortEvent = new Uint8Array(RTP_HEADER_SIZE + 2);
    writeRtpHeader(shortEvent, { payloadType: 101, marker: false, sequenceNumber: 2, timestamp: 2, ssrc: 1 });
    const hostile = [
      new Uint8Array(0),
      new Uint8Array([0x80, 0x00, 0x00]),
      new Uint8Array(172).fill(0x00), // version 0
      new Uint8Array([0x8f, ...new Array(15).fill(0)]), // 15 CSRCs claimed, none present
      new Uint8Array([0xa0, ...new Array(10).fill(0), 200]), // padding longer than the packet
      wrongType,
    ];
    for (const datagram of hostile) await far.send(datagram, leg.localPort);
    await far.send(shortEvent, leg.localPort); // valid RTP, too short to be an event: counted, ignored
    const settled = await waitFor('every datagram accounted for', async () => {
      const current = await engine.getCounters(leg.legId);
      return current.packetsDropped + current.packetsReceived >= hostile.length + 1 ? current : undefined;
    });
    assert.equal(settled.packetsDropped, hostile.length);
    assert.equal(settled.packetsReceived, 1);
    assert.equal(notes.filter((n) => n.type === 'dtmfReceived').length, 0);
    await engine.playFile(leg.legId, { playbackId: 'after', file: oneSecond, offsetMs: 900 });
    assert.equal((await waitFor('finished', () => noteOf('playbackFinished'))).reason, 'complete');
  });

  it('sends to the source of received RTP (symmetric RTP), not the signalled address', { timeout: 5000 }, async () => {
    const signalled = await FarEnd.open();
    try {
      const leg = await engine.createLeg({ bindAddress: '127.0.0.1' });
      await engine.setLegRemote(leg.legId, pcmu(signalled.port));
      const audio = new Uint8Array(RTP_HEADER_SIZE + 160).fill(0xff);
      writeRtpHeader(audio, { payloadType: 0, marker: true, sequenceNumber: 1, timestamp: 0, ssrc: 77 });
      await far.send(audio, leg.localPort); // arrives from `far`, which the SDP never mentioned
      await waitFor('received', async () => ((await engine.getCounters(leg.legId)).packetsReceived === 1 ? true : undefined));
      await engine.playFile(leg.legId, { playbackId: 'p', file: oneSecond, offsetMs: 900 });
      await waitFor('finished', () => noteOf('playbackFinished'));
      await waitFor('5 packets at the latched address', () => (far.packets.length >= 5 ? true : undefined), 1000);
      assert.equal(signalled.packets.length, 0);
    } finally {
      signalled.close();
    }
  });

  it('creates a leg already pointed at its remote, in one request to the worker', { timeout: 5000 }, async () => {
    const leg = await engine.createLeg({ bindAddress: '127.0.0.1', remote: pcmu(far.port) });
    assert.equal(engine.legCodec(leg.legId), 'PCMU');
    await engine.playFile(leg.legId, { playbackId: 'p', file: oneSecond, offsetMs: 900 });
    assert.equal((await waitFor('finished', () => noteOf('playbackFinished'))).reason, 'complete');
    await waitFor('5 packets at the remote', () => (far.packets.length >= 5 ? true : undefined), 1000);
    assert.equal(far.packets[0].info.payloadType, 0);
    assert.equal((await engine.getCounters(leg.legId)).packetsSent, 5);
  });

  it('answers each of many requests made in one turn (sent to the worker together), a refused one alone', { timeout: 5000 }, async () => {
    const legs = await Promise.all(
      Array.from({ length: 12 }, (_, i) => engine.createLeg({ bindAddress: '127.0.0.1', remote: pcmu(far.port + i) })),
    );
    assert.equal(new Set(legs.map((leg) => leg.localPort)).size, 12, 'twelve legs on twelve ports');
    const answers = await Promise.allSettled([
      ...legs.map((leg) => engine.getCounters(leg.legId)),
      engine.getCounters('no-such-leg'),
      ...legs.map((leg) => engine.destroyLeg(leg.legId)),
    ]);
    assert.deepEqual(
      answers.map((answer) => answer.status),
      [...Array(12).fill('fulfilled'), 'rejected', ...Array(12).fill('fulfilled')],
    );
    assert.ok((answers[12] as PromiseRejectedResult).reason instanceof LegNotFoundError);
    for (const leg of legs) await assert.rejects(engine.getCounters(leg.legId), LegNotFoundError);
  });

  it('does not send while the peer holds the call (sendonly), yet the playback still completes', { timeout: 5000 }, async () => {
    const leg = await engine.createLeg({ bindAddress: '127.0.0.1' });
    await engine.setLegRemote(leg.legId, pcmu(far.port, { direction: 'sendonly' }));
    await engine.playFile(leg.legId, { playbackId: 'held', file: oneSecond, offsetMs: 800 });
    assert.equal((await waitFor('finished', () => noteOf('playbackFinished'))).reason, 'complete');
    await sleep(30);
    assert.equal(far.packets.length, 0);
    assert.equal((await engine.getCounters(leg.legId)).packetsSent, 0);
  });

  it('destroys a leg: its playback finishes stopped and the leg is gone', { timeout: 5000 }, async () => {
    const leg = await engine.createLeg({ bindAddress: '127.0.0.1' });
    await engine.setLegRemote(leg.legId, pcmu(far.port));
    await engine.playFile(leg.legId, { playbackId: 'p', file: longTone });
    await waitFor('started', () => noteOf('playbackStarted'));
    await Promise.all([engine.destroyLeg(leg.legId), engine.destroyLeg(leg.legId)]); // one request, shared
    // The notification follows the reply, so it may arrive just after destroyLeg resolves.
    assert.equal((await waitFor('finished', () => noteOf('playbackFinished'))).reason, 'stopped');
    await assert.rejects(engine.getCounters(leg.legId), LegNotFoundError);
    await assert.rejects(engine.destroyLeg(leg.legId), LegNotFoundError);
  });

  it('refuses bad arguments before they reach the worker', { timeout: 5000 }, async () => {
    const leg = await engine.createLeg({ bindAddress: '127.0.0.1' });
    await assert.rejects(engine.createLeg({ bindAddress: 'localhost' }), { code: 'invalid_argument' });
    await assert.rejects(engine.createLeg({ bindAddress: '127.0.0.1', remote: pcmu(0) }), { code: 'invalid_argument' });
    await assert.rejects(engine.setLegRemote(leg.legId, pcmu(0)), { code: 'invalid_argument' });
    await assert.rejects(engine.setLegRemote(leg.legId, pcmu(far.port, { codec: { name: 'PCMU', payloadType: 0, clockRate: 16000 } })), {
      code: 'invalid_argument',
    });
    await assert.rejects(engine.playFile(leg.legId, { playbackId: 'x', file: oneSecond, offsetMs: -5 }), { code: 'invalid_argument' });
    await assert.rejects(engine.playFile('no-such-leg', { playbackId: 'x', file: oneSecond }), LegNotFoundError);
  });
});

describe('MediaEngine ports', () => {
  it('skips a port another program holds, and reports exhaustion clearly', { timeout: 5000 }, async () => {
    const base = BASE_PORT + 1000;
    const squatter = dgram.createSocket('udp4');
    await new Promise<void>((resolve) => squatter.bind(base, '127.0.0.1', resolve));
    const engine = new MediaEngine({ rtpStart: base, rtpEnd: base + 5, workers: 1 });
    await engine.start();
    try {
      const first = await engine.createLeg({ bindAddress: '127.0.0.1' });
      const second = await engine.createLeg({ bindAddress: '127.0.0.1' });
      assert.deepEqual([first.localPort, second.localPort], [base + 2, base + 4]);
      await assert.rejects(engine.createLeg({ bindAddress: '127.0.0.1' }), (error: unknown) => {
        assert.ok(error instanceof PortsExhaustedError);
        assert.match(error.message, new RegExp(`no free RTP port in ${base}-${base + 4}: 2 held by legs, 1 bound by other programs`));
        return true;
      });
      await engine.destroyLeg(first.legId);
      const third = await engine.createLeg({ bindAddress: '127.0.0.1' });
      assert.equal(third.localPort, base + 2, 'a released port is used again');
    } finally {
      await engine.close();
      squatter.close();
    }
  });
});

describe('MediaEngine legs named by the caller', () => {
  it('takes commands for a leg before its socket is bound and sends them in the order given', { timeout: 5000 }, async () => {
    const base = BASE_PORT + 1100;
    // The first port is taken: the worker refuses it and the engine binds the next, with commands waiting.
    const squatter = dgram.createSocket('udp4');
    await new Promise<void>((resolve) => squatter.bind(base, '127.0.0.1', resolve));
    const far = await FarEnd.open();
    const engine = new MediaEngine({ rtpStart: base, rtpEnd: base + 10, workers: 1 });
    await engine.start();
    const notes: MediaNotification[] = [];
    engine.onNotification((n) => notes.push(n));
    try {
      const creating = engine.createLeg({ bindAddress: '127.0.0.1', legId: 'early-leg' });
      // Given before the leg exists in the worker: without the wait the playback would find no remote.
      const remote = engine.setLegRemote('early-leg', pcmu(far.port));
      const playing = engine.playFile('early-leg', { playbackId: 'early', file: oneSecond, offsetMs: 900 });
      const leg = await creating;
      await Promise.all([remote, playing]);
      assert.equal(leg.legId, 'early-leg');
      assert.equal(leg.localPort, base + 2, 'the squatted port was skipped');
      const finished = await waitFor('finished', () => notes.find((n) => n.type === 'playbackFinished'));
      assert.equal(finished.type === 'playbackFinished' && finished.reason, 'complete');
      await waitFor('5 packets at the remote', () => (far.packets.length >= 5 ? true : undefined), 1000);
      await assert.rejects(engine.createLeg({ bindAddress: '127.0.0.1', legId: 'early-leg' }), { code: 'invalid_argument' });
      await assert.rejects(engine.createLeg({ bindAddress: '127.0.0.1', legId: '' }), { code: 'invalid_argument' });
    } finally {
      await engine.close();
      far.close();
      squatter.close();
    }
  });

  it(
    'fails the waiting commands with leg_not_found when the leg cannot be bound, and a destroy while binding wins',
    { timeout: 5000 },
    async () => {
      const base = BASE_PORT + 1200;
      const engine = new MediaEngine({ rtpStart: base, rtpEnd: base + 1, workers: 1 });
      await engine.start();
      try {
        const first = engine.createLeg({ bindAddress: '127.0.0.1', legId: 'first' });
        const destroyed = engine.destroyLeg('first');
        await first;
        await destroyed;
        await assert.rejects(engine.getCounters('first'), LegNotFoundError);
        // The only port pair is held: the second leg cannot be bound, and what waited for it fails.
        const holder = await engine.createLeg({ bindAddress: '127.0.0.1' });
        const doomed = engine.createLeg({ bindAddress: '127.0.0.1', legId: 'doomed' });
        const waiting = engine.getCounters('doomed');
        await assert.rejects(doomed, PortsExhaustedError);
        await assert.rejects(waiting, LegNotFoundError);
        await assert.rejects(engine.destroyLeg('doomed'), LegNotFoundError);
        await engine.destroyLeg(holder.legId);
      } finally {
        await engine.close();
      }
    },
  );
});

describe('MediaEngine workers', () => {
  it('spreads legs over workers and forwards worker logs to the main logger', { timeout: 10_000 }, async () => {
    const logger = memoryLogger();
    const engine = new MediaEngine({ rtpStart: BASE_PORT + 2000, rtpEnd: BASE_PORT + 2100, workers: 2, logger });
    await engine.start();
    try {
      const legs = await Promise.all([0, 1, 2, 3].map(() => engine.createLeg({ bindAddress: '127.0.0.1' })));
      assert.equal(new Set(legs.map((leg) => leg.localPort)).size, 4);
      const created = logger.lines.filter((line) => line.msg === 'RTP leg created');
      assert.equal(created.length, 4);
      const perWorker = [0, 1].map((index) => created.filter((line) => (line.fields as { worker?: number }).worker === index).length);
      assert.deepEqual(perWorker, [2, 2], 'least-loaded placement');
      assert.ok(created.every((line) => (line.fields as { module?: string }).module === 'switchboard:media:worker'));
    } finally {
      await engine.close();
    }
  });

  it('places a leg beside the leg it is near, and by load when that leg is gone', { timeout: 10_000 }, async () => {
    const engine = new MediaEngine({ rtpStart: BASE_PORT + 2200, rtpEnd: BASE_PORT + 2300, workers: 2 });
    await engine.start();
    const workerOf = (legId: string) => engine.legsByWorker().find((leg) => leg.legId === legId)?.workerIndex;
    try {
      const first = await engine.createLeg({ bindAddress: '127.0.0.1' });
      const second = await engine.createLeg({ bindAddress: '127.0.0.1' });
      assert.notEqual(workerOf(first.legId), workerOf(second.legId), 'without near, load decides');
      // Worker of `first` now holds two legs against one: load alone would pick the other worker.
      const nearLegs = [first, first, first, second];
      const pairs = await Promise.all(nearLegs.map((near) => engine.createLeg({ bindAddress: '127.0.0.1', near: near.legId })));
      assert.deepEqual(
        pairs.map((leg) => workerOf(leg.legId)),
        nearLegs.map((near) => workerOf(near.legId)),
      );
      // Four legs on first's worker, two on the other: with first gone, three against two.
      const firstWorker = workerOf(first.legId);
      await engine.destroyLeg(first.legId);
      assert.notEqual(workerOf(second.legId), firstWorker);
      const orphan = await engine.createLeg({ bindAddress: '127.0.0.1', near: first.legId });
      assert.equal(workerOf(orphan.legId), workerOf(second.legId), 'a gone leg is no hint: the less-loaded worker');
      const unknown = await engine.createLeg({ bindAddress: '127.0.0.1', near: 'no-such-leg' });
      assert.notEqual(workerOf(unknown.legId), undefined);
    } finally {
      await engine.close();
    }
  });

  it('reports a worker that dies, fails its playbacks, rejects its requests and replaces it', { timeout: 15_000 }, async () => {
    const engine = new MediaEngine({ rtpStart: BASE_PORT + 3000, rtpEnd: BASE_PORT + 3100, workers: 1 });
    await engine.start();
    const notes: MediaNotification[] = [];
    engine.onNotification((n) => notes.push(n));
    const far = await FarEnd.open();
    try {
      const leg = await engine.createLeg({ bindAddress: '127.0.0.1' });
      await engine.setLegRemote(leg.legId, pcmu(far.port));
      await engine.playFile(leg.legId, { playbackId: 'doomed', file: longTone });
      await waitFor('started', () => notes.find((n) => n.type === 'playbackStarted'));

      await killWorkerForTest(engine, 0);
      const died = await waitFor('workerDied', () => notes.find((n) => n.type === 'workerDied'));
      assert.deepEqual(
        { ...died, error: undefined },
        { type: 'workerDied', workerIndex: 0, legIds: [leg.legId], bridgeIds: [], error: undefined },
      );
      assert.match(died.type === 'workerDied' ? died.error : '', /exited unexpectedly/);
      const failed = notes.find((n) => n.type === 'playbackFinished');
      assert.deepEqual(failed, {
        type: 'playbackFinished',
        legId: leg.legId,
        playbackId: 'doomed',
        reason: 'failed',
        error: 'media worker 0 died',
      });
      await assert.rejects(engine.getCounters(leg.legId), LegNotFoundError);

      // The slot has a fresh worker that plays as before.
      const fresh = await engine.createLeg({ bindAddress: '127.0.0.1' });
      assert.notEqual(fresh.localPort, leg.localPort, 'the cursor moved on');
      await engine.setLegRemote(fresh.legId, pcmu(far.port));
      await engine.playFile(fresh.legId, { playbackId: 'after', file: oneSecond, offsetMs: 900 });
      const finished = await waitFor('finished', () => notes.find((n) => n.type === 'playbackFinished' && n.playbackId === 'after'));
      assert.equal(finished.type === 'playbackFinished' && finished.reason, 'complete');
    } finally {
      far.close();
      await engine.close();
    }
  });

  it('rejects a request pending when its worker dies', { timeout: 10_000 }, async () => {
    const engine = new MediaEngine({ rtpStart: BASE_PORT + 4000, rtpEnd: BASE_PORT + 4100, workers: 1 });
    await engine.start();
    try {
      const leg = await engine.createLeg({ bindAddress: '127.0.0.1' });
      const pending = engine.getCounters(leg.legId);
      const kill = killWorkerForTest(engine, 0);
      // Either the reply wins the race or the death does; a death must reject, never hang.
      await pending.then(
        () => {},
        (error: unknown) => assert.ok(error instanceof WorkerDiedError, String(error)),
      );
      await kill;
    } finally {
      await engine.close();
    }
  });

  it('closes: playbacks finish stopped, later calls are refused', { timeout: 10_000 }, async () => {
    const engine = new MediaEngine({ rtpStart: BASE_PORT + 5000, rtpEnd: BASE_PORT + 5100, workers: 2 });
    await engine.start();
    const notes: MediaNotification[] = [];
    engine.onNotification((n) => notes.push(n));
    const far = await FarEnd.open();
    try {
      const leg = await engine.createLeg({ bindAddress: '127.0.0.1' });
      await engine.setLegRemote(leg.legId, pcmu(far.port));
      await engine.playFile(leg.legId, { playbackId: 'p', file: longTone });
      await waitFor('started', () => notes.find((n) => n.type === 'playbackStarted'));
      await engine.close();
      assert.deepEqual(notes.at(-1), { type: 'playbackFinished', legId: leg.legId, playbackId: 'p', reason: 'stopped' });
      assert.ok(!notes.some((n) => n.type === 'workerDied'), 'a closed worker is not a dead one');
      await assert.rejects(
        engine.createLeg({ bindAddress: '127.0.0.1' }),
        (error: unknown) => error instanceof MediaError && error.code === 'not_running',
      );
      await engine.close(); // idempotent
    } finally {
      far.close();
    }
  });
});
