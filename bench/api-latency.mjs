#!/usr/bin/env node
// Benchmark: REST and event latency of the control API, each phase on a freshly started server.
//  1. Sequential keep-alive GETs (one connection, the next request only after the last answer):
//     /ari/system/ping, /ari/asterisk/ping and /ari/channels with no calls, BENCH_REQUESTS (2000) each after
//     BENCH_WARMUP_REQUESTS (2000) unmeasured on every path (JIT warm-up: with 500 the first path measured
//     was 1.5–2× slower than the same path measured later), p50/p99.
//  2. GET /ari/channels with BENCH_CHANNELS (1000) channels up (Local/500@from-internal originated
//     into the application: two channels each, the ;2 half waits in the dialplan), p50/p99.
//  3. INVITE → AppStart: a plain UDP SIP client sends INVITEs into 100 = App(bench) at BENCH_RATE
//     (200) per second for BENCH_SECONDS (5) s; the time from sending each INVITE to its AppStart
//     arriving on the WebSocket, p50/p99. Each channel is hung up through the API once it has arrived
//     (the final response is acknowledged), so the server carries the load of a real application.
//     The first BENCH_WARMUP_SECONDS (1) s of INVITEs at the same rate are not measured, as the GETs
//     of phase 1 are not: a fresh process compiles its call path on the first calls (their p99 is
//     reported apart, `cold_p99_ms`).
// Every loop is bounded in count and time.
import { createSocket } from 'node:dgram';
import http from 'node:http';
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import WebSocket from 'ws';
import { API_PASSWORD, API_USER, basicAuth } from '../test/dist/harness.js';
import { benchServer, resultName, serverDescription, startBenchServer } from './bench-server.mjs';
import { cpuSeconds, machine, percentile, printSteps, round, rssMiB, sleep, writeResult } from './common.mjs';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 2000);
const CHANNELS = Number(process.env.BENCH_CHANNELS ?? 1000);
const RATE = Number(process.env.BENCH_RATE ?? 200);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 1);
/** BENCH_PHASES=3 runs only the phases named (1, 2, 3); the results file is written only by a complete run. */
const PHASES = new Set((process.env.BENCH_PHASES ?? '1,2,3').split(',').map((phase) => phase.trim()));
const ALL_PHASES = ['1', '2', '3'].every((phase) => PHASES.has(phase));
const APP = 'bench';
/** Unmeasured requests per path before the idle measurements. */
const WARM_UP_REQUESTS = Number(process.env.BENCH_WARMUP_REQUESTS ?? 2000);
/** No phase may take longer than this. */
const PHASE_LIMIT_MS = 120_000;

const DIALPLAN = `
exten => 100,1,App(${APP})
 same => n,Hangup()
exten => 500,1,Answer()
 same => n,Wait(300)
 same => n,Hangup()
`;

const AUTH = basicAuth();

function request(agent, port, method, path) {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path, agent, headers: { authorization: AUTH } }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end();
  });
}

/**
 * `count` sequential GETs of `path` on one keep-alive connection; latencies in ms, the first 50 not
 * measured. With the server's `pid`, also the server's CPU time per measured request (user + system,
 * from /proc: what the request costs the server, whatever else the machine is doing).
 */
async function sequentialGets(port, path, count, pid) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const times = [];
  const started = performance.now();
  let bytes = 0;
  let cpuBefore = 0;
  for (let i = 0; i < count + 50 && performance.now() - started < PHASE_LIMIT_MS; i++) {
    if (i === 50 && pid !== undefined) cpuBefore = cpuSeconds(pid);
    const t0 = performance.now();
    const res = await request(agent, port, 'GET', path);
    const t = performance.now() - t0;
    if (res.status !== 200) throw new Error(`GET ${path}: ${res.status}`);
    bytes = res.body.length;
    if (i >= 50) times.push(t);
  }
  const serverCpu = pid !== undefined ? cpuSeconds(pid) - cpuBefore : undefined;
  agent.destroy();
  times.sort((a, b) => a - b);
  return {
    path,
    requests: times.length,
    p50_ms: round(percentile(times, 50)),
    p99_ms: round(percentile(times, 99)),
    max_ms: round(times[times.length - 1]),
    body_bytes: bytes,
    ...(serverCpu !== undefined ? { server_cpu_us_per_request: round((1e6 * serverCpu) / Math.max(1, times.length), 1) } : {}),
  };
}

function connectEvents(sb) {
  const socket = new WebSocket(`ws://127.0.0.1:${sb.httpPort}/ari/events?app=${APP}&api_key=${API_USER}:${API_PASSWORD}`);
  return new Promise((resolve, reject) => {
    socket.once('open', () => resolve(socket));
    socket.once('error', reject);
  });
}

async function withServer(task) {
  const sb = await startBenchServer({ dialplan: DIALPLAN, rtpStart: 40000, rtpEnd: 49998 });
  try {
    return await task(sb);
  } finally {
    await sb.stop();
  }
}

const machineAtStart = machine();
const rows = [];

// Phase 1: no calls.
if (PHASES.has('1'))
  await withServer(async (sb) => {
    const load = round(loadavg()[0], 2);
    // The original has /asterisk/ping only; Switchboard answers it as the spec's /system/ping.
    const paths = [...(benchServer === 'asterisk' ? [] : ['/ari/system/ping']), '/ari/asterisk/ping', '/ari/channels'];
    // Warm every path up first (JIT): otherwise whichever path is measured first pays for it.
    for (const path of paths) await sequentialGets(sb.httpPort, path, WARM_UP_REQUESTS);
    for (const path of paths) {
      rows.push({ phase: 'idle', ...(await sequentialGets(sb.httpPort, path, REQUESTS, sb.process.pid)), loadavg_1m: load });
    }
  });

// Phase 2: GET /channels with CHANNELS channels.
if (PHASES.has('2'))
  await withServer(async (sb) => {
    const events = await connectEvents(sb);
    const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });
    const started = performance.now();
    const originates = CHANNELS / 2;
    for (let i = 0; i < originates && performance.now() - started < PHASE_LIMIT_MS; i += 8) {
      await Promise.all(
        Array.from({ length: Math.min(8, originates - i) }, () =>
          request(agent, sb.httpPort, 'POST', `/ari/channels?endpoint=${encodeURIComponent('Local/500@from-internal')}&app=${APP}`),
        ),
      );
    }
    agent.destroy();
    let up = 0;
    while (performance.now() - started < PHASE_LIMIT_MS) {
      const res = await request(undefined, sb.httpPort, 'GET', '/ari/channels');
      up = JSON.parse(res.body.toString()).length;
      if (up >= CHANNELS) break;
      await sleep(200);
    }
    const rssUp = rssMiB(sb.process.pid);
    const load = round(loadavg()[0], 2);
    const row = await sequentialGets(sb.httpPort, '/ari/channels', Math.min(REQUESTS, 500), sb.process.pid);
    rows.push({ phase: `${up} channels`, ...row, server_rss_mib: round(rssUp, 1), loadavg_1m: load });
    events.close();
  });

// Phase 3: INVITE → AppStart at RATE per second.
let appStart = null;
if (PHASES.has('3'))
  await withServer(async (sb) => {
    const events = await connectEvents(sb);
    const sip = createSocket('udp4');
    await new Promise((resolve) => sip.bind(0, '127.0.0.1', resolve));
    const myPort = sip.address().port;
    const media = createSocket('udp4');
    await new Promise((resolve) => media.bind(0, '127.0.0.1', resolve));
    const sentAt = new Map();
    const latencies = [];
    const coldLatencies = [];
    const warmup = Math.round(RATE * WARMUP_SECONDS);
    const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
    events.on('message', (data) => {
      const at = performance.now();
      const event = JSON.parse(data.toString());
      if (event.type !== 'AppStart' && event.type !== 'StasisStart') return;
      const number = event.channel?.caller?.number;
      const t0 = sentAt.get(number);
      if (t0 === undefined) return;
      sentAt.delete(number);
      (Number(number) - 7000000 < warmup ? coldLatencies : latencies).push(at - t0);
      void request(agent, sb.httpPort, 'DELETE', `/ari/channels/${encodeURIComponent(event.channel.id)}`).catch(() => {});
    });
    // Acknowledge final non-2xx responses (RFC 3261 §17.1.1.3) so the server stops retransmitting them.
    sip.on('message', (msg) => {
      const text = msg.toString();
      const status = Number(/^SIP\/2\.0 (\d{3})/.exec(text)?.[1] ?? 0);
      if (status < 300 || !/^CSeq:\s*1 INVITE/im.test(text)) return;
      const header = (name) => new RegExp(`^${name}:\\s*(.*)$`, 'im').exec(text)?.[1] ?? '';
      const ack =
        `ACK sip:100@127.0.0.1:${sb.sipPort} SIP/2.0\r\nVia: ${header('Via')}\r\nFrom: ${header('From')}\r\nTo: ${header('To')}\r\n` +
        `Call-ID: ${header('Call-ID')}\r\nCSeq: 1 ACK\r\nMax-Forwards: 70\r\nContent-Length: 0\r\n\r\n`;
      sip.send(ack, sb.sipPort, '127.0.0.1');
    });
    const sdp = `v=0\r\no=bench 1 1 IN IP4 127.0.0.1\r\ns=-\r\nc=IN IP4 127.0.0.1\r\nt=0 0\r\nm=audio ${media.address().port} RTP/AVP 0\r\na=rtpmap:0 PCMU/8000\r\na=sendrecv\r\n`;
    const total = warmup + RATE * SECONDS;
    let cpuBefore = 0;
    // The main thread alone (signalling, core, API): /proc/<pid>/task/<pid> is the process's first thread.
    let mainCpuBefore = 0;
    const start = performance.now();
    let sent = 0;
    while (sent < total && performance.now() - start < PHASE_LIMIT_MS) {
      if (sent === warmup && cpuBefore === 0) {
        cpuBefore = cpuSeconds(sb.process.pid);
        mainCpuBefore = cpuSeconds(`${sb.process.pid}/task/${sb.process.pid}`);
      }
      while (sent < total && start + (sent * 1000) / RATE <= performance.now()) {
        const number = String(7000000 + sent);
        const invite =
          `INVITE sip:100@127.0.0.1:${sb.sipPort} SIP/2.0\r\nVia: SIP/2.0/UDP 127.0.0.1:${myPort};branch=z9hG4bK-bench-${sent};rport\r\n` +
          `From: <sip:${number}@127.0.0.1:${myPort}>;tag=bench${sent}\r\nTo: <sip:100@127.0.0.1:${sb.sipPort}>\r\nCall-ID: bench-${sent}@127.0.0.1\r\n` +
          `CSeq: 1 INVITE\r\nContact: <sip:${number}@127.0.0.1:${myPort}>\r\nMax-Forwards: 70\r\nContent-Type: application/sdp\r\nContent-Length: ${sdp.length}\r\n\r\n${sdp}`;
        sentAt.set(number, performance.now());
        sip.send(invite, sb.sipPort, '127.0.0.1');
        sent += 1;
      }
      await sleep(1);
    }
    const wall = (performance.now() - start) / 1000;
    // Late AppStarts still count; a call whose AppStart never came within 5 s is missing.
    const waitStart = performance.now();
    while (sentAt.size > 0 && performance.now() - waitStart < 5000) await sleep(50);
    const cpu = cpuSeconds(sb.process.pid) - cpuBefore;
    const mainCpu = cpuSeconds(`${sb.process.pid}/task/${sb.process.pid}`) - mainCpuBefore;
    await sleep(1000);
    latencies.sort((a, b) => a - b);
    coldLatencies.sort((a, b) => a - b);
    appStart = {
      rate_per_s: RATE,
      invites: sent,
      warmup_invites: warmup,
      cold_p99_ms: round(percentile(coldLatencies, 99)),
      app_starts: latencies.length,
      missing: sentAt.size,
      p50_ms: round(percentile(latencies, 50)),
      p99_ms: round(percentile(latencies, 99)),
      max_ms: round(latencies[latencies.length - 1]),
      server_cpu_ms_per_call: round((1000 * cpu) / Math.max(1, latencies.length)),
      server_main_thread_cpu_ms_per_call: round((1000 * mainCpu) / Math.max(1, latencies.length)),
      sending_seconds: round(wall, 2),
      loadavg_1m: round(loadavg()[0], 2),
    };
    agent.destroy();
    events.close();
    sip.close();
    media.close();
  });

const result = {
  benchmark: 'api-latency',
  when: new Date().toISOString(),
  machine: machineAtStart,
  ...serverDescription(),
  setup: `fresh ${benchServer} process per phase; sequential keep-alive GETs (${REQUESTS} after 50 unmeasured); ${CHANNELS} channels from Local/500 originates; INVITE → AppStart at ${RATE}/s for ${SECONDS} s after ${WARMUP_SECONDS} s unmeasured`,
  rest: rows,
  invite_to_app_start: appStart,
};
printSteps('api-latency: sequential keep-alive GETs', rows);
if (appStart !== null) printSteps(`api-latency: INVITE → AppStart on the WebSocket at ${RATE}/s`, [appStart]);
if (ALL_PHASES) writeResult(resultName('api-latency'), result);
