#!/usr/bin/env node
// The phones' media for bench/sipp-relay.mjs, in a child process of its own (its CPU is not the
// server's). Unlike media-far-end.mjs every call has sockets of its own: a caller socket and a callee
// socket per call, as real phones would. Both directions of every call send PCMU at 50 packets/s,
// spread evenly over the 20 ms period on one performance.now() schedule.
//
// Each packet's payload carries MARK, the stream index and the sender's own 32-bit packet number, and
// the sender keeps the send time of every packet number. The receiver therefore knows each packet's
// transit time through the server (both ends share this process's clock), which is what
// RFC 3550 §6.4.1 interarrival jitter is built from: D(i,j) = (Rj − Ri) − (Sj − Si), J += (|D| − J)/16.
// Here S is the real send time rather than the RTP timestamp, so the sender's own lateness cancels
// and what remains is the delay variation the server adds; a relay may rewrite the RTP header, the
// payload passes untouched.
//
// R is the kernel's receive time of the datagram (SO_TIMESTAMPNS on the native hub's sockets): on
// loopback that is the moment the server sent it. This process's own event loop (busy with sending a
// burst, or not yet scheduled) would otherwise show as the server's jitter; measured with no server
// in between (`relay-floor.mjs`), that alone reaches 0.3–1.3 ms p99 at 200 calls here. The same
// figures taken when this process handled each datagram are reported beside them as loop_*.
// With dgram sockets there is no kernel time and both are the handling time.
//
// Parent ↔ child messages (IPC):
//   parent → { cmd: 'open', calls }           child → { kind: 'opened', ports: [[callerPort, calleePort], …] }
//   parent → { cmd: 'run', calls: [{ callerPort, a, aHost, calleePort, b, bHost }], seconds, settleMs }
//            (a, b: the server's ports for the caller's and the callee's leg of a call, at aHost and
//            bHost, 127.0.0.1 when absent; callerPort, calleePort: our sockets the phones' SDP named
//            for that call)
//                                             child → { kind: 'result', … }
//   parent → { cmd: 'close' } closes the sockets; { cmd: 'exit' } ends the process.
//
// The sockets are the media package's leg sockets (BENCH_FAR_END_SOCKETS: `native`, the default, the
// native socket hub when it is built; `dgram` Node's dgram): on two cores the load generator's own
// CPU is taken from the server, and the hub needs about half of dgram's per packet.
import { performance } from 'node:perf_hooks';
import { openLegSocket, setNativeLegSockets } from '../packages/media/dist/rtp/leg-socket.js';

setNativeLegSockets((process.env.BENCH_FAR_END_SOCKETS ?? 'native') !== 'dgram');

const PERIOD_MS = 20;
const DRAIN_MS = 300;
const MARK = 0x5b;
/** Packet numbers whose send time is kept per stream (a ring: 2^14 packets = 327 s at 50/s). */
const SEND_RING = 1 << 14;
/** Buffers each stream rotates through: dgram may still hold one while the next is written. */
const BUFFERS_PER_STREAM = 4;
const PAYLOAD_BYTES = 160;

/** [caller socket, callee socket] per call, as opened. */
let sockets = [];
/** Every open socket by its port. */
const byPort = new Map();

/** A socket whose datagrams go to its current `listener` (msg, from), or nowhere. */
async function bindOne() {
  const holder = { listener: null, socket: null };
  holder.socket = await openLegSocket(
    '127.0.0.1',
    0,
    {
      message: (datagram, from) => holder.listener?.(datagram, from, holder.socket.arrivalTime()),
      error: (error) => console.error(`far-end socket: ${error.message}`),
      sendFailed: () => {},
    },
    { arrivalTimes: true },
  );
  return {
    port: holder.socket.localPort,
    send: (packet, port, host) => holder.socket.send(packet, port, host),
    listen: (listener) => {
      holder.listener = listener;
    },
    close: () => holder.socket.close(),
  };
}

async function open(calls) {
  close();
  for (let i = 0; i < calls; i++) sockets.push([await bindOne(), await bindOne()]);
  for (const pair of sockets) for (const socket of pair) byPort.set(socket.port, socket);
  return sockets.map(([a, b]) => [a.port, b.port]);
}

function close() {
  for (const pair of sockets) for (const socket of pair) socket.close();
  sockets = [];
  byPort.clear();
}

function percentile(values, p) {
  if (values.length === 0) return null;
  const sorted = Float64Array.from(values).sort();
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/**
 * RFC 3550 §6.4.1 / §A.8 interarrival jitter of n streams on one clock: D = the change in transit
 * between a stream's consecutive packets, J += (|D| − J)/16; every |D| and every J is kept for percentiles.
 */
function jitterEstimator(n) {
  const previous = new Array(n).fill(Number.NaN);
  const jitter = new Array(n).fill(0);
  const deltas = [];
  const samples = [];
  return {
    jitter,
    deltas,
    samples,
    add(stream, transit) {
      if (!Number.isNaN(previous[stream])) {
        const d = Math.abs(transit - previous[stream]);
        deltas.push(d);
        jitter[stream] += (d - jitter[stream]) / 16;
        samples.push(jitter[stream]);
      }
      previous[stream] = transit;
    },
  };
}

function ulawTone() {
  const payload = Buffer.alloc(PAYLOAD_BYTES);
  for (let i = 0; i < PAYLOAD_BYTES; i++) payload[i] = 0xff - (i % 32); // any µ-law bytes do: a relay does not decode
  return payload;
}

async function run({ calls, seconds, settleMs }) {
  const n = calls.length * 2;
  // Stream 2i: caller socket → server leg a → (bridge) → leg b → callee socket. Stream 2i+1 the other way.
  const sendTimes = Array.from({ length: n }, () => new Float64Array(SEND_RING));
  const sent = new Array(n).fill(0);
  const windowCount = new Array(n).fill(0);
  const firstNumber = new Array(n).fill(-1);
  const lastNumber = new Array(n).fill(-1);
  const prevArrival = new Array(n).fill(Number.NaN);
  const minTransit = new Array(n).fill(Number.POSITIVE_INFINITY);
  // On the arrival clock (the kernel's when stamped), and on this process's clock when it handled
  // each datagram (the measure before kernel stamps).
  const arrival = jitterEstimator(n);
  const loop = jitterEstimator(n);
  let kernelStamped = 0;
  const transits = [];
  const transitStreams = [];
  const arrivalDeviations = [];
  let foreign = 0;
  const start = performance.now();
  const settledAt = start + settleMs;
  const end = start + seconds * 1000;
  const acceptUntil = end + DRAIN_MS;

  const onMessage = (expectedStream, fromPort) => (msg, rinfo, arrived) => {
    const handled = performance.now();
    const stamped = !Number.isNaN(arrived);
    const now = stamped ? arrived : handled;
    // Only what the other leg of this call sends counts. The server's RTCP (sent to the SDP port + 1,
    // which may be another call's socket here, RFC 3550 §11) and other strays are ignored.
    if (now > acceptUntil || rinfo.port !== fromPort || msg.length < 12) return;
    if (msg.length < 12 + 8 || msg[12] !== MARK || msg[13] !== MARK || msg.readUInt16BE(14) !== expectedStream) {
      if (now > settledAt && now <= end) foreign += 1;
      return;
    }
    const s = expectedStream;
    const number = msg.readUInt32BE(16);
    const transit = now - sendTimes[s][number % SEND_RING];
    const loopTransit = handled - sendTimes[s][number % SEND_RING];
    if (now <= settledAt || now > end + DRAIN_MS) return;
    if (number < 0 || number >= sent[s]) return;
    if (stamped) kernelStamped += 1;
    loop.add(s, loopTransit);
    if (now <= end) {
      windowCount[s] += 1;
      if (firstNumber[s] < 0) firstNumber[s] = number;
      lastNumber[s] = Math.max(lastNumber[s], number);
    }
    transits.push(transit);
    transitStreams.push(s);
    minTransit[s] = Math.min(minTransit[s], transit);
    arrival.add(s, transit);
    if (!Number.isNaN(prevArrival[s])) arrivalDeviations.push(Math.abs(now - prevArrival[s] - PERIOD_MS));
    prevArrival[s] = now;
  };
  const socketsOfCall = calls.map(({ callerPort, calleePort }) => [byPort.get(callerPort), byPort.get(calleePort)]);
  calls.forEach(({ a, b }, i) => {
    const [callerSocket, calleeSocket] = socketsOfCall[i];
    calleeSocket.listen(onMessage(2 * i, b));
    callerSocket.listen(onMessage(2 * i + 1, a));
  });

  const payload = ulawTone();
  const streams = [];
  for (let s = 0; s < n; s++) {
    const call = Math.floor(s / 2);
    const fromCaller = s % 2 === 0;
    const buffers = Array.from({ length: BUFFERS_PER_STREAM }, () => {
      const packet = Buffer.alloc(12 + PAYLOAD_BYTES);
      packet[0] = 0x80;
      packet[1] = 0; // PCMU
      packet.writeUInt32BE((Math.random() * 0xffffffff) >>> 0, 8);
      payload.copy(packet, 12);
      packet[12] = MARK;
      packet[13] = MARK;
      packet.writeUInt16BE(s, 14);
      return packet;
    });
    const ssrc = buffers[0].readUInt32BE(8);
    for (const packet of buffers) packet.writeUInt32BE(ssrc, 8);
    streams.push({
      socket: socketsOfCall[call][fromCaller ? 0 : 1],
      to: fromCaller ? calls[call].a : calls[call].b,
      host: (fromCaller ? calls[call].aHost : calls[call].bHost) ?? '127.0.0.1',
      buffers,
      seq: (Math.random() * 0xffff) | 0,
      ts: (Math.random() * 0xffffffff) >>> 0,
    });
  }

  const cpuBefore = process.cpuUsage();
  const spacing = PERIOD_MS / n;
  let k = 0;
  let lateMax = 0;
  while (true) {
    const now = performance.now();
    if (now >= end) break;
    while (start + k * spacing <= now) {
      const s = k % n;
      const stream = streams[s];
      const number = sent[s];
      const packet = stream.buffers[number % BUFFERS_PER_STREAM];
      packet.writeUInt16BE((stream.seq + number) & 0xffff, 2);
      packet.writeUInt32BE((stream.ts + number * 160) >>> 0, 4);
      packet.writeUInt32BE(number, 16);
      const at = performance.now();
      sendTimes[s][number % SEND_RING] = at;
      stream.socket.send(packet, stream.to, stream.host);
      lateMax = Math.max(lateMax, at - (start + k * spacing));
      sent[s] += 1;
      k += 1;
    }
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  await new Promise((resolve) => setTimeout(resolve, DRAIN_MS + 50));
  const cpu = process.cpuUsage(cpuBefore);
  for (const pair of sockets) for (const socket of pair) socket.listen(null);

  // Loss over the measured window by the sender's own packet numbers (RFC 3550 §6.4.1 "expected").
  let expected = 0;
  let got = 0;
  let streamsWithLoss = 0;
  for (let s = 0; s < n; s++) {
    const span = firstNumber[s] < 0 ? Math.round((end - settledAt) / PERIOD_MS) : lastNumber[s] - firstNumber[s] + 1;
    expected += span;
    got += Math.min(windowCount[s], span);
    if (windowCount[s] < span) streamsWithLoss += 1;
  }
  // Transit above its stream's fastest packet: how much later than it could have arrived (delay variation end to end).
  const aboveFloor = transits.map((t, i) => t - minTransit[transitStreams[i]]);
  return {
    kind: 'result',
    streams: n,
    packets_sent: sent.reduce((x, y) => x + y, 0),
    packets_measured: transits.length,
    loss_pct: expected > 0 ? (100 * (expected - got)) / expected : 100,
    streams_with_loss: streamsWithLoss,
    foreign_packets: foreign,
    jitter_ms_p50: percentile(arrival.samples, 50),
    jitter_ms_p99: percentile(arrival.samples, 99),
    jitter_ms_max_stream_final: Math.max(0, ...arrival.jitter),
    arrival_clock: kernelStamped === transits.length && transits.length > 0 ? 'kernel' : 'event loop',
    loop_jitter_ms_p50: percentile(loop.samples, 50),
    loop_jitter_ms_p99: percentile(loop.samples, 99),
    loop_delay_var_ms_p99: percentile(loop.deltas, 99),
    delay_var_ms_p50: percentile(arrival.deltas, 50),
    delay_var_ms_p99: percentile(arrival.deltas, 99),
    transit_ms_p50: percentile(transits, 50),
    transit_ms_p99: percentile(transits, 99),
    transit_above_floor_ms_p99: percentile(aboveFloor, 99),
    arrival_dev_ms_p99: percentile(arrivalDeviations, 99),
    send_late_max_ms: lateMax,
    far_end_cpu_pct: (100 * (cpu.user + cpu.system)) / 1000 / (seconds * 1000 + DRAIN_MS),
  };
}

process.on('message', (message) => {
  if (message.cmd === 'open') open(message.calls).then((ports) => process.send({ kind: 'opened', ports }));
  else if (message.cmd === 'run') run(message).then((result) => process.send(result));
  else if (message.cmd === 'close') {
    close();
    process.send({ kind: 'closed' });
  } else if (message.cmd === 'exit') {
    close();
    process.disconnect();
  }
});
process.send({ kind: 'ready' });
