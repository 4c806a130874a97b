/**
 * The leg's codec path over real UDP on loopback: a G.722 or Opus leg sends what the media tick
 * writes in its codec with the codec's clock step, decodes what the peer sends through the jitter
 * buffer, detects in-band DTMF when no telephone-event was negotiated, and keeps RTCP statistics.
 */
import assert from 'node:assert/strict';
import dgram from 'node:dgram';
import { after, describe, it } from 'node:test';
import { createCodec, isCodecSupported } from '../codecs/index.js';
import { toneAmplitude } from '../dsp/goertzel.js';
import type { WorkerNotification } from '../protocol.js';
import { RTP_HEADER_SIZE, writeRtpHeader } from '../rtp/rtp-header.js';
import { parseRtcp } from '../rtp/rtcp.js';
import { FarEnd } from '../test-support/far-end.js';
import { sine } from '../test-support/audio-fixtures.js';
import { RtpLeg } from '../worker/rtp-leg.js';

const notifications: WorkerNotification[] = [];
const host = {
  notify: (n: WorkerNotification) => notifications.push(n),
  log: () => {},
  now: () => performance.now(),
};

let nextPort = 31000 + 2 * Math.floor(Math.random() * 1000);
const open: Array<{ close(): void }> = [];
after(() => {
  for (const thing of open) thing.close();
});

async function openLeg(): Promise<RtpLeg> {
  const leg = await RtpLeg.open(`leg-${nextPort}`, '127.0.0.1', nextPort, host);
  nextPort += 2;
  open.push(leg);
  return leg;
}

const settle = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function rtp(payloadType: number, seq: number, timestamp: number, payload: Uint8Array): Uint8Array {
  const packet = new Uint8Array(RTP_HEADER_SIZE + payload.length);
  writeRtpHeader(packet, { payloadType, marker: seq === 0, sequenceNumber: seq, timestamp, ssrc: 0x1234 });
  packet.set(payload, RTP_HEADER_SIZE);
  return packet;
}

describe('RtpLeg codec path', () => {
  it('sends G.722 with 160 octets and a 160-tick timestamp step per 20 ms frame', async () => {
    const far = await FarEnd.open();
    open.push(far);
    const leg = await openLeg();
    leg.setRemote({ address: '127.0.0.1', port: far.port, codec: { name: 'G722', payloadType: 9, clockRate: 8000 } });
    const tone = sine(1000, 8000, 100, 8000);
    for (let i = 0; i < 5; i += 1) leg.writeFrame(tone.subarray(i * 160, (i + 1) * 160), 8000);
    await settle(50);
    assert.equal(far.packets.length, 5);
    assert.ok(far.packets.every((p) => p.payload.length === 160 && p.info.payloadType === 9));
    assert.equal((far.packets[1].info.timestamp - far.packets[0].info.timestamp) >>> 0, 160);
    // The far end decodes our G.722 back to the tone.
    const decoder = createCodec('G722');
    const decoded = new Int16Array(5 * 320);
    far.packets.forEach((p, i) => {
      decoded.set(decoder.decode(p.payload), i * 320);
    });
    assert.ok(toneAmplitude(decoded, 1000, 16000, 640, 960) > 5000);
    assert.equal(leg.rtpStatistics.txcount, 5);
    assert.equal(leg.rtpStatistics.txoctetcount, 800);
  });

  it('steps Opus timestamps by 960 (RFC 7587 §4.1)', async () => {
    assert.ok(isCodecSupported('opus'), 'the @discordjs/opus binding must load');
    const far = await FarEnd.open();
    open.push(far);
    const leg = await openLeg();
    leg.setRemote({ address: '127.0.0.1', port: far.port, codec: { name: 'opus', payloadType: 111, clockRate: 48000 } });
    for (let i = 0; i < 3; i += 1) leg.writeFrame(new Int16Array(160), 8000);
    await settle(50);
    assert.equal(far.packets.length, 3);
    assert.equal((far.packets[2].info.timestamp - far.packets[1].info.timestamp) >>> 0, 960);
  });

  it('decodes received G.722, detects in-band DTMF without telephone-event, and answers RTCP on port + 1', async () => {
    const far = await FarEnd.open();
    open.push(far);
    const rtcpFar = dgram.createSocket('udp4');
    const rtcpSeen: Uint8Array[] = [];
    rtcpFar.on('message', (m) => rtcpSeen.push(m));
    await new Promise<void>((resolve) => rtcpFar.bind(0, '127.0.0.1', resolve));
    open.push(rtcpFar);
    const leg = await openLeg();
    leg.setRemote({ address: '127.0.0.1', port: far.port, codec: { name: 'G722', payloadType: 9, clockRate: 8000 } });
    const encoder = createCodec('G722');
    // Digit 5 (770 + 1336 Hz) for 200 ms inside 600 ms of audio at 16 kHz.
    const audio = new Int16Array(16000 * 0.6);
    for (let i = 3200; i < 6400; i += 1)
      audio[i] = Math.round(6000 * (Math.sin((2 * Math.PI * 770 * i) / 16000) + Math.sin((2 * Math.PI * 1336 * i) / 16000)));
    const frames: Int16Array[] = [];
    for (let f = 0; f < 30; f += 1) {
      await far.send(rtp(9, f, f * 160, encoder.encode(audio.subarray(f * 320, (f + 1) * 320))), leg.localPort);
      await settle(2);
      const frame = leg.readFrame(8000);
      if (frame !== null) frames.push(frame);
    }
    for (let f = 0; f < 5; f += 1) leg.readFrame(8000);
    assert.ok(frames.length >= 25, `frames ${frames.length}`);
    assert.ok(frames.every((frame) => frame.length === 160));
    assert.deepEqual(
      notifications.filter((n) => n.type === 'dtmfReceived' && n.legId === leg.id).map((n) => (n.type === 'dtmfReceived' ? n.digit : '')),
      ['5'],
    );
    const stats = leg.rtpStatistics;
    assert.equal(stats.rxcount, 30);
    assert.equal(stats.remote_ssrc, 0x1234);
    assert.equal(stats.rxploss, 0);
    // An RR about the far end's stream reaches the address RTCP came from (RFC 4961).
    const rr = new Uint8Array([0x80, 201, 0, 1, 0, 0, 0x12, 0x34]);
    await new Promise<void>((resolve) => rtcpFar.send(rr, leg.localPort + 1, '127.0.0.1', () => resolve()));
    await settle(20);
    leg.close();
    await settle(50);
    const parsed = rtcpSeen.map((m) => parseRtcp(m));
    assert.ok(parsed.length >= 1, 'a final report with BYE');
    const last = parsed[parsed.length - 1];
    assert.ok(last.ok);
    if (!last.ok) return;
    assert.deepEqual(
      last.packets.map((p) => p.type),
      ['rr', 'sdes', 'bye'],
    );
    const report = last.packets[0];
    assert.ok(report.type === 'rr' && report.reports[0].ssrc === 0x1234 && report.reports[0].cumulativeLost === 0);
  });
});
