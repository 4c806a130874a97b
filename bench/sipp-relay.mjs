#!/usr/bin/env node
// Benchmark: relayed calls through the real server, measured the way a phone feels them. For each
// step N a fresh server is started; sipp (uac-relay-hold-bye.xml) places N calls at BENCH_SETUP_RATE/s
// into 300 = Dial(SIP/bob), bob a sipp UAS (uas-relay-answer-hold.xml). Every call's SDP names sockets
// of its own in one Node child process (bench/relay-far-end.mjs), which sends PCMU at 50 packets/s in
// both directions of every call and measures loss and the RFC 3550 §6.4.1 interarrival jitter and delay
// variation the server adds, p50/p99: from real send times (the sender's own lateness cancels) to the
// kernel's receive times (the far end's own event loop does not count; bench/relay-floor.mjs shows that part).
// Server CPU (whole process, and the main thread vs the busiest other thread, the media worker) and
// RSS growth per call come from /proc. A step passes at loss < 0.1 % and jitter p99 < 5 ms; stepping
// stops at the first loss or failed call set-up.
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { basicAuth } from '../test/dist/harness.js';
import { benchServer, resultName, serverDescription, startBenchServer } from './bench-server.mjs';
import { localPhone, staticContactPhone, udpTransport } from '../test/dist/pjsip-phones.js';
import { phonePort, placeRelayCalls, startRelayFarEnd } from './relay-phones.mjs';
import {
  channelCount,
  cpuSeconds,
  threadCpuSeconds,
  threadSplit,
  machine,
  machineBusySeconds,
  printSteps,
  round,
  rssMiB,
  sippCount,
  sleep,
  untilNone,
  writeResult,
} from './common.mjs';

const counts = (process.env.BENCH_CALLS ?? '50,100,200,300,350,400').split(',').map(Number);
const seconds = Number(process.env.BENCH_STEP_SECONDS ?? 9);
const WARM_UP_MS = 1000;
const setupRate = Number(process.env.BENCH_SETUP_RATE ?? 100);
/** `mediaworkers` in switchboard.conf; unset keeps the test harness's 1. */
const workers = process.env.BENCH_MEDIA_WORKERS;
/** BENCH_NATIVE_SOCKETS=no: rtp.conf `native_sockets = no` (Node's dgram instead of the native socket hub). */
const nativeSockets = (process.env.BENCH_NATIVE_SOCKETS ?? 'yes') !== 'no';
const MAX_LOSS_PCT = 0.1;
const MAX_JITTER_MS_P99 = 5;
const SETUP_SLACK_MS = 3000;
const END_WAIT_MS = 5000;

const DIALPLAN = `
exten => 300,1,Dial(SIP/bob,20)
 same => n,Hangup()
`;

function pjsip(sipPort, bobPort) {
  return [udpTransport(sipPort), localPhone(), staticContactPhone('bob', bobPort)].join('\n');
}

const machineAtStart = machine();
const farEnd = await startRelayFarEnd();

/** One step on a fresh server. */
async function step(n) {
  const bobPort = await phonePort();
  const sb = await startBenchServer({
    dialplan: DIALPLAN,
    rtpStart: 21000,
    rtpEnd: 29998,
    rtpLines: nativeSockets ? [] : ['native_sockets = no'],
  });
  writeFileSync(join(sb.confDir, 'pjsip.conf'), pjsip(sb.sipPort, bobPort));
  if (workers !== undefined) {
    const confFile = join(sb.confDir, 'switchboard.conf');
    const conf = readFileSync(confFile, 'utf8');
    writeFileSync(
      confFile,
      /^mediaworkers\s*=/m.test(conf)
        ? conf.replace(/^mediaworkers\s*=.*$/m, `mediaworkers = ${workers}`)
        : `${conf}\nmediaworkers = ${workers}\n`,
    );
  }
  await sb.restart();
  const target = { host: '127.0.0.1', port: sb.sipPort };
  const channels = () => channelCount(`${sb.baseUrl}/ari`, basicAuth());
  const pid = sb.process.pid;
  const ports = await farEnd.open(n);
  await sleep(500);
  const rssBefore = rssMiB(pid);
  const placed = await placeRelayCalls({
    target,
    n,
    rate: setupRate,
    holdSeconds: seconds,
    slackMs: SETUP_SLACK_MS,
    bobPort,
    ports,
    caller: { scenario: 'uac-relay-hold-bye.xml', service: '300' },
    allowAddress: (address) => address === '127.0.0.1',
    channelCount: channels,
  });
  const { calls, allUp } = placed;
  let far = null;
  let cpuPct = Number.NaN;
  let busyPct = Number.NaN;
  let threads = { main: Number.NaN, worker: Number.NaN };
  let rssUp = Number.NaN;
  if (allUp) {
    const cpuBefore = cpuSeconds(pid);
    const threadsBefore = threadCpuSeconds(pid);
    const busyBefore = machineBusySeconds();
    const wallBefore = performance.now();
    far = await farEnd.run(calls, seconds, WARM_UP_MS);
    const wall = (performance.now() - wallBefore) / 1000;
    cpuPct = (100 * (cpuSeconds(pid) - cpuBefore)) / wall;
    threads = threadSplit(pid, threadsBefore, threadCpuSeconds(pid), wall);
    busyPct = (100 * (machineBusySeconds() - busyBefore)) / (wall * cpus().length);
    rssUp = rssMiB(pid);
  }
  const [callerRun, calleeRun] = await placed.finished;
  const channelsLeft = await untilNone(channels, END_WAIT_MS);
  await sb.stop();
  const callerOk = sippCount(callerRun.stdout, 'Successful call');
  const calleeOk = sippCount(calleeRun.stdout, 'Successful call');
  const callsOk = allUp && callerOk === n && calleeOk === n && channelsLeft === 0;
  if (!callsOk)
    console.error(`calls ${n}: caller ok ${callerOk}, callee ok ${calleeOk}, left ${channelsLeft}\n${callerRun.stderr.slice(-600)}`);
  const loss = far?.loss_pct ?? 100;
  const jitterP99 = far?.jitter_ms_p99 ?? Number.NaN;
  return {
    calls: n,
    calls_ok: callsOk,
    packets_sent: far?.packets_sent ?? 0,
    foreign_packets: far?.foreign_packets ?? null,
    loss_pct: round(loss, 3),
    jitter_ms_p50: round(far?.jitter_ms_p50 ?? Number.NaN, 3),
    jitter_ms_p99: round(jitterP99, 3),
    arrival_clock: far?.arrival_clock ?? null,
    loop_jitter_ms_p99: round(far?.loop_jitter_ms_p99 ?? Number.NaN, 3),
    delay_var_ms_p50: round(far?.delay_var_ms_p50 ?? Number.NaN, 3),
    delay_var_ms_p99: round(far?.delay_var_ms_p99 ?? Number.NaN, 3),
    transit_ms_p50: round(far?.transit_ms_p50 ?? Number.NaN, 3),
    transit_above_floor_ms_p99: round(far?.transit_above_floor_ms_p99 ?? Number.NaN, 3),
    server_cpu_pct_of_one_core: round(cpuPct, 1),
    server_main_thread_cpu_pct: round(threads.main, 1),
    server_media_worker_cpu_pct: round(threads.worker, 1),
    server_rss_kib_per_call: round(((rssUp - rssBefore) * 1024) / n, 1),
    far_end_cpu_pct: round(far?.far_end_cpu_pct ?? Number.NaN, 1),
    machine_busy_pct: round(busyPct, 1),
    loadavg_1m: round(loadavg()[0], 2),
    pass: callsOk && far !== null && far.foreign_packets === 0 && loss < MAX_LOSS_PCT && jitterP99 < MAX_JITTER_MS_P99,
  };
}

const steps = [];
for (const n of counts) {
  const result = await step(n);
  steps.push(result);
  console.error(
    `calls ${n}: loss ${result.loss_pct} %, jitter p99 ${result.jitter_ms_p99} ms (${result.arrival_clock} arrival; ${result.loop_jitter_ms_p99} ms at the far end's loop), server CPU ${result.server_cpu_pct_of_one_core} %`,
  );
  if (!result.calls_ok || !(result.loss_pct < MAX_LOSS_PCT)) break;
  await sleep(1000);
}
farEnd.exit();

const passing = steps.filter((s) => s.pass);
const result = {
  benchmark: 'sipp-relay',
  when: new Date().toISOString(),
  machine: machineAtStart,
  ...serverDescription(),
  media_workers: Number(workers ?? 1),
  rtp_sockets: nativeSockets ? 'native' : 'dgram',
  far_end_sockets: process.env.BENCH_FAR_END_SOCKETS ?? 'native',
  setup:
    `fresh ${benchServer} process per step; sipp uac-relay-hold-bye.xml → 300: Dial(SIP/bob) → uas-relay-answer-hold.xml, set up at ${setupRate}/s; ` +
    `per-call sockets, PCMU both ways at 50 packets/s; ${WARM_UP_MS / 1000} s warm-up, ${seconds - WARM_UP_MS / 1000} s measured`,
  criteria: { max_loss_pct: MAX_LOSS_PCT, max_jitter_ms_p99: MAX_JITTER_MS_P99 },
  best_calls: passing.length > 0 ? passing[passing.length - 1].calls : null,
  steps,
};
printSteps(`sipp-relay: relayed calls, RFC 3550 jitter the server adds, fresh server per step, ${seconds} s per step`, steps);
console.log(`most calls with loss < ${MAX_LOSS_PCT} % and jitter p99 < ${MAX_JITTER_MS_P99} ms: ${result.best_calls ?? 'none'}`);
writeResult(resultName('sipp-relay'), result);
