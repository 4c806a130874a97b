#!/usr/bin/env node
// The far ends of the media benchmarks, in a child process of their own so that their CPU is not
// counted as the engine's and their timing does not depend on the engine's main thread. One UDP
// socket on 127.0.0.1 sends every stream and receives every leg's output; streams are spread evenly
// over the 20 ms period and paced by a monotonic clock (performance.now()) with one global schedule,
// so a late timer never lets drift build up. Parent ↔ child messages (IPC):
//   parent → { cmd: 'run', streams: [{ to, from, codec, srtp? }], seconds, settleMs?, mark? }   (`to`: the leg
//            port we send to; `from`: the leg port whose output carries that stream's audio back to
//            us; `settleMs`: unmeasured start, SETTLE_MS by default; `mark`: see MARK below; `srtp`:
//            { suite, key, peerKey } in base64: the stream is sent as SRTP with `key`; what comes back
//            is counted by its header, which SRTP leaves in the clear; `ice`: { ufrag, password } of the
//            leg, an ICE-lite one: before sending, a Binding request nominates us as a browser's would,
//            RFC 8445 §7.2.2; RTCP multiplexed on the port and STUN coming back are not counted)
//   child  → { kind: 'ready', port } once bound; { kind: 'result', … } after each run.
import { createSocket } from 'node:dgram';
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';
import { createCodec, isCodecSupported } from '../packages/media/dist/codecs/index.js';
import { randomBytes } from 'node:crypto';
import { ATTRIBUTE, buildStun, STUN_METHOD_BINDING } from '../packages/media/dist/ice/stun.js';
import { SrtpSession } from '../packages/media/dist/srtp/index.js';

const PERIOD_MS = 20;
/** Intervals in the first half second are not measured: the far ends and the legs are settling. */
const SETTLE_MS = 500;
/** After the last packet, late arrivals are still counted for this long. */
const DRAIN_MS = 300;
/**
 * With `mark`, the first payload bytes of every packet carry MARK and the stream's index, so that a
 * relay (which forwards payloads untouched) can be shown to deliver each stream from the right leg:
 * a packet counts as _foreign_ when it arrives from a stream's `from` port without that stream's
 * mark (another call's audio, or audio the relay did not pass through unchanged).
 */
const MARK = 0x5b;

function linearToUlaw(sample) {
  const sign = sample < 0 ? 0x80 : 0;
  const magnitude = Math.min(Math.abs(sample), 32635) + 0x84;
  let exponent = 7;
  for (let mask = 0x4000; (magnitude & mask) === 0 && exponent > 0; mask >>= 1) exponent -= 1;
  return ~(sign | (exponent << 4) | ((magnitude >> (exponent + 3)) & 0x0f)) & 0xff;
}

/** One 20 ms frame of a 440 Hz tone per codec (the engine decodes what it mixes or transcodes). */
function payloads() {
  const pcmu = Buffer.alloc(160);
  for (let i = 0; i < 160; i++) pcmu[i] = linearToUlaw(Math.round(6000 * Math.sin((2 * Math.PI * 440 * i) / 8000)));
  const result = { PCMU: { payload: pcmu, payloadType: 0, samples: 160 } };
  try {
    const { OpusEncoder } = createRequire(import.meta.url)('@discordjs/opus');
    const encoder = new OpusEncoder(48000, 1);
    const pcm = Buffer.alloc(960 * 2);
    for (let i = 0; i < 960; i++) pcm.writeInt16LE(Math.round(6000 * Math.sin((2 * Math.PI * 440 * i) / 48000)), i * 2);
    result.opus = { payload: encoder.encode(pcm), payloadType: 111, samples: 960 };
  } catch {
    // Without the binding only G.711 streams can be sent; the transcoding benchmark says so.
  }
  if (isCodecSupported('G722')) {
    // G.722 (16 kHz audio, RTP clock 8000 per RFC 3551 §4.5.2): 440 Hz plus 6 kHz, which only a wideband path carries.
    const wide = new Int16Array(320);
    for (let i = 0; i < 320; i++)
      wide[i] = Math.round(4000 * Math.sin((2 * Math.PI * 440 * i) / 16000) + 2000 * Math.sin((2 * Math.PI * 6000 * i) / 16000));
    result.G722 = { payload: Buffer.from(createCodec('G722').encode(wide)), payloadType: 9, samples: 160 };
  }
  return result;
}

const PAYLOADS = payloads();
const socket = createSocket('udp4');
// Large buffers: a burst of thousands of packets must not be dropped by our own socket.
await new Promise((resolve) => socket.bind({ port: 0, address: '127.0.0.1' }, resolve));
socket.setRecvBufferSize(8 * 1024 * 1024);
socket.setSendBufferSize(8 * 1024 * 1024);

/** Receive state, indexed by the source port of the leg that sent it. */
let streamOfPort = new Int32Array(65536).fill(-1);
let received = [];
let lastArrival = [];
let receiveDeviations = [];
/** Per stream, over the measured window: packets, first and last extended sequence number. */
let windowCount = [];
let firstSeq = [];
let lastSeq = [];
let measuring = false;
let settledAt = 0;
let windowEnd = 0;
let acceptUntil = 0;
let marking = false;
/** Packets in the measured window without the mark of the stream their source port belongs to. */
let foreign = 0;

socket.on('message', (msg, rinfo) => {
  const now = performance.now();
  const stream = streamOfPort[rinfo.port];
  if (stream < 0 || msg.length < 12 || now > acceptUntil) return;
  // STUN responses (first byte 0–3) and RTCP multiplexed on the RTP port (RFC 5761 §4: 192–223) are not media.
  if (msg[0] < 128 || (msg[1] >= 192 && msg[1] <= 223)) return;
  received[stream] += 1;
  const last = lastArrival[stream];
  lastArrival[stream] = now;
  if (measuring && last > settledAt) receiveDeviations.push(Math.abs(now - last - PERIOD_MS));
  if (now > settledAt && now <= windowEnd) {
    windowCount[stream] += 1;
    if (marking && (msg.length < 16 || msg[12] !== MARK || msg[13] !== MARK || msg.readUInt16BE(14) !== stream)) foreign += 1;
    const seq = msg.readUInt16BE(2);
    if (firstSeq[stream] < 0) {
      firstSeq[stream] = seq;
      lastSeq[stream] = seq;
    } else {
      // Extend the 16-bit sequence number across wraps (RFC 3550 §A.1); reordering is not expected on loopback.
      const delta = (seq - (lastSeq[stream] & 0xffff) + 0x10000) & 0xffff;
      if (delta < 0x8000) lastSeq[stream] += delta;
    }
  }
});

/** A full agent's nominating check to an ICE-lite leg: USERNAME "<its ufrag>:<ours>", its password as key. */
function nominate({ ufrag, password }) {
  const priority = Buffer.alloc(4);
  priority.writeUInt32BE(2130706431, 0);
  return buildStun(
    STUN_METHOD_BINDING,
    randomBytes(12),
    [
      { type: ATTRIBUTE.username, value: Buffer.from(`${ufrag}:bench`) },
      { type: ATTRIBUTE.priority, value: priority },
      { type: ATTRIBUTE.iceControlling, value: randomBytes(8) },
      { type: ATTRIBUTE.useCandidate, value: Buffer.alloc(0) },
    ],
    Buffer.from(password),
  );
}

function percentile(values, p) {
  if (values.length === 0) return null;
  const sorted = Float64Array.from(values).sort();
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function run({ streams, seconds, settleMs = SETTLE_MS, mark = false }) {
  const n = streams.length;
  streamOfPort = new Int32Array(65536).fill(-1);
  streams.forEach((s, i) => {
    streamOfPort[s.from] = i;
  });
  received = new Array(n).fill(0);
  lastArrival = new Array(n).fill(0);
  receiveDeviations = [];
  windowCount = new Array(n).fill(0);
  firstSeq = new Array(n).fill(-1);
  lastSeq = new Array(n).fill(-1);
  marking = mark;
  foreign = 0;
  const sent = new Array(n).fill(0);
  const lastSend = new Array(n).fill(0);
  const sendDeviations = [];
  const headers = streams.map((s, i) => {
    const codec = PAYLOADS[s.codec];
    const packet = Buffer.alloc(12 + codec.payload.length);
    packet[0] = 0x80;
    packet[1] = codec.payloadType;
    packet.writeUInt32BE((Math.random() * 0xffffffff) >>> 0, 8);
    codec.payload.copy(packet, 12);
    if (mark) {
      packet[12] = MARK;
      packet[13] = MARK;
      packet.writeUInt16BE(i, 14);
    }
    const srtp = s.srtp
      ? new SrtpSession({
          suite: s.srtp.suite,
          localMasterKey: Buffer.from(s.srtp.key, 'base64'),
          remoteMasterKey: Buffer.from(s.srtp.peerKey, 'base64'),
        })
      : null;
    return { packet, samples: codec.samples, seq: 0, ts: (Math.random() * 0xffffffff) >>> 0, srtp };
  });
  for (const s of streams) if (s.ice) socket.send(nominate(s.ice), s.to, '127.0.0.1');
  if (streams.some((s) => s.ice)) await new Promise((resolve) => setTimeout(resolve, 100));
  const cpuBefore = process.cpuUsage();
  const start = performance.now();
  settledAt = start + settleMs;
  const end = start + seconds * 1000;
  windowEnd = end;
  acceptUntil = end + DRAIN_MS;
  measuring = true;
  // Packet k of the whole schedule belongs to stream k mod n and is due at start + k·(20 / n) ms.
  const spacing = PERIOD_MS / n;
  let k = 0;
  let lateMax = 0;
  while (true) {
    const now = performance.now();
    if (now >= end) break;
    while (start + k * spacing <= now) {
      const i = k % n;
      const h = headers[i];
      h.packet.writeUInt16BE(h.seq & 0xffff, 2);
      h.packet.writeUInt32BE(h.ts >>> 0, 4);
      h.seq += 1;
      h.ts = (h.ts + h.samples) >>> 0;
      // A copy per send: dgram may still hold the buffer when we rewrite the header.
      socket.send(h.srtp ? h.srtp.protectRtp(h.packet) : Buffer.from(h.packet), streams[i].to, '127.0.0.1');
      const at = performance.now();
      lateMax = Math.max(lateMax, at - (start + k * spacing));
      if (lastSend[i] > settledAt) sendDeviations.push(Math.abs(at - lastSend[i] - PERIOD_MS));
      lastSend[i] = at;
      sent[i] += 1;
      k += 1;
    }
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  await new Promise((resolve) => setTimeout(resolve, DRAIN_MS + 50));
  measuring = false;
  const cpu = process.cpuUsage(cpuBefore);
  // Loss is measured in the window after settling, so set-up effects (the first packets while a
  // bridge decides to relay) do not count, in two ways, and the worse one is reported:
  //  - sequence gaps: packets the engine numbered but that never arrived (RFC 3550 §6.4.1 "expected");
  //  - shortfall: fewer packets than one per 20 ms arrived from a leg (frames the engine's tick
  //    skipped, which leave no gap in its numbering). Counting by arrival time is unbiased across
  //    streams because their phases are spread evenly over the period.
  const windowMs = end - settledAt;
  let expectedBySeq = 0;
  let gotBySeq = 0;
  let shortfall = 0;
  let streamsWithLoss = 0;
  for (let i = 0; i < n; i++) {
    const span = firstSeq[i] < 0 ? 0 : lastSeq[i] - firstSeq[i] + 1;
    expectedBySeq += span;
    gotBySeq += Math.min(windowCount[i], span);
    const expectedByRate = windowMs / PERIOD_MS;
    shortfall += expectedByRate - windowCount[i];
    if (windowCount[i] < span || windowCount[i] < expectedByRate - 1) streamsWithLoss += 1;
  }
  const seqLossPct = expectedBySeq > 0 ? (100 * (expectedBySeq - gotBySeq)) / expectedBySeq : 100;
  const shortfallPct = (100 * shortfall) / ((n * windowMs) / PERIOD_MS);
  return {
    kind: 'result',
    streams: n,
    packets_sent: sent.reduce((a, b) => a + b, 0),
    packets_received: received.reduce((a, b) => a + b, 0),
    loss_pct: Math.max(seqLossPct, shortfallPct),
    seq_loss_pct: seqLossPct,
    shortfall_pct: shortfallPct,
    streams_with_loss: streamsWithLoss,
    foreign_packets: mark ? foreign : null,
    send_dev_ms_p50: percentile(sendDeviations, 50),
    send_dev_ms_p99: percentile(sendDeviations, 99),
    send_late_max_ms: lateMax,
    recv_dev_ms_p50: percentile(receiveDeviations, 50),
    recv_dev_ms_p99: percentile(receiveDeviations, 99),
    far_end_cpu_pct: (100 * (cpu.user + cpu.system)) / 1000 / (seconds * 1000 + DRAIN_MS),
  };
}

process.on('message', (message) => {
  if (message.cmd === 'run') run(message).then((result) => process.send(result));
  else if (message.cmd === 'exit') {
    socket.close();
    process.disconnect();
  }
});
process.send({ kind: 'ready', port: socket.address().port, codecs: Object.keys(PAYLOADS) });
