#!/usr/bin/env node
// Benchmark: concurrent bridged calls through the real server with RTP both ways. Callers (a sipp
// UAC, identified by address) dial 300 = Dial(SIP/bob); bob is a static contact answered by a sipp
// UAS. Both phones' SDP point at the far ends' socket (bench/media-far-end.mjs, a child process).
// Once all N calls are up (every caller paired with its callee leg from the sipp logs, and GET
// /channels counts 2N), every leg's far end sends PCMU at 50 packets/s; the far end measures, per
// direction, loss and the jitter the server added, and checks by a payload mark that each stream
// arrives from the other leg of its own call (the server relays it). Server CPU and RSS are read from
// /proc. Then the callers hang up (BYE, relayed to bob) and every call must end. Steps N up and reports
// the most calls with loss < 0.1 % and added jitter p99 < 5 ms, and the most with loss < 0.1 % alone.
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { basicAuth, freePort, runSipp, startSwitchboard } from '../test/dist/harness.js';
import { localPhone, staticContactPhone, udpTransport } from '../test/dist/pjsip-phones.js';
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
import { MAX_ADDED_JITTER_MS, MAX_LOSS_PCT, startFarEnd } from './media-common.mjs';

const counts = (process.env.BENCH_CALLS ?? '25,50,100,150,200,250,300').split(',').map(Number);
/** Sending time per step: WARM_UP_MS unmeasured, then the measured window. */
const seconds = Number(process.env.BENCH_STEP_SECONDS ?? 9);
const WARM_UP_MS = 1000;
/** Calls per second sipp sets up (well under the Dial() rate the server sustains, see sipp-dial-rate). */
const setupRate = Number(process.env.BENCH_SETUP_RATE ?? 100);
/** Added jitter beyond this means the server is overloaded: stepping stops. */
const OVERLOAD_JITTER_MS = 20;
/** Time for every call to come up beyond N / setupRate. */
const SETUP_SLACK_MS = 3000;
/** Time for every channel to be gone once sipp has finished. */
const END_WAIT_MS = 5000;

const DIALPLAN = `
exten => 300,1,Dial(SIP/bob,20)
 same => n,Hangup()
`;

const machineAtStart = machine();
const bobPort = await freePort('udp');
const sb = await startSwitchboard({ dialplan: DIALPLAN, rtpStart: 21000, rtpEnd: 29998 });
// The callers are matched by address (local-phone, no authentication: the figures are about media);
// bob is a permanent contact where his sipp UAS listens.
writeFileSync(join(sb.confDir, 'pjsip.conf'), [udpTransport(sb.sipPort), localPhone(), staticContactPhone('bob', bobPort)].join('\n'));
await sb.restart();
const target = { host: '127.0.0.1', port: sb.sipPort };
const farEnd = await startFarEnd();

const channels = () => channelCount(`${sb.baseUrl}/ari`, basicAuth());

const openFiles = (pid) => readdirSync(`/proc/${pid}/fd`).length;

/** "<role> <number> <addr> <port>" lines the scenarios log for each call, by caller number. */
function mediaPorts(file, role) {
  const ports = new Map();
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return ports; // sipp creates the file with its first line
  }
  for (const line of text.split('\n')) {
    const [who, number, address, port] = line.trim().split(' ');
    if (who !== role) continue;
    if (address !== '127.0.0.1') throw new Error(`the server offered media on ${address}, not 127.0.0.1`);
    ports.set(number, Number(port));
  }
  return ports;
}

/** One run of a step: set up N calls, send for `seconds`, hang up, check every call ended. */
async function attempt(n) {
  const pid = sb.process.pid;
  const logDir = mkdtempSync(join(tmpdir(), 'bridged-calls-'));
  const callerLog = join(logDir, 'caller.log');
  const calleeLog = join(logDir, 'callee.log');
  const rssBefore = rssMiB(pid);
  const filesBefore = openFiles(pid);
  const setupBudgetMs = (1000 * n) / setupRate + SETUP_SLACK_MS;
  // The first caller hangs up after holdMs: by then the calls must have come up (setupBudgetMs) and
  // the far end must have finished sending and counting late packets.
  const holdMs = Math.round(setupBudgetMs + seconds * 1000 + 1000);
  const sippSeconds = Math.ceil((holdMs + (1000 * n) / setupRate) / 1000) + 10;
  const callee = runSipp('uas-answer-hold.xml', target, {
    service: 'bob',
    keys: { rtpport: farEnd.port },
    calls: n,
    timeoutSeconds: sippSeconds + 2,
    extra: ['-p', String(bobPort), '-l', String(n + 10), '-trace_logs', '-log_file', calleeLog],
  });
  await sleep(300);
  const caller = runSipp('uac-hold-bye.xml', target, {
    service: '300',
    keys: { rtpport: farEnd.port },
    calls: n,
    rate: setupRate,
    timeoutSeconds: sippSeconds,
    extra: ['-l', String(n + 10), '-d', String(holdMs), '-trace_logs', '-log_file', callerLog],
  });

  // Up = the caller got its 200 and bob's INVITE for that caller arrived (both logged the server's
  // media port), and the server counts two channels per call.
  const setupStart = performance.now();
  let pairs = [];
  let channelsUp = 0;
  while (performance.now() - setupStart < setupBudgetMs) {
    const callers = mediaPorts(callerLog, 'caller');
    const callees = mediaPorts(calleeLog, 'callee');
    pairs = [...callers].filter(([number]) => callees.has(number)).map(([number, port]) => ({ a: port, b: callees.get(number) }));
    if (pairs.length === n) {
      channelsUp = await channels();
      if (channelsUp === 2 * n) break;
    }
    await sleep(100);
  }
  const setupSeconds = (performance.now() - setupStart) / 1000;
  const allUp = pairs.length === n && channelsUp === 2 * n;

  let far = null;
  let cpuPct = Number.NaN;
  let busyPct = Number.NaN;
  let threads = { main: Number.NaN, worker: Number.NaN };
  let rssUp = Number.NaN;
  let filesUp = Number.NaN;
  let channelsAfterWindow = Number.NaN;
  if (allUp) {
    // What is sent to the caller's leg comes back from bob's leg of the same call, and the other way round.
    const streams = pairs.flatMap(({ a, b }) => [
      { to: a, from: b, codec: 'PCMU' },
      { to: b, from: a, codec: 'PCMU' },
    ]);
    const cpuBefore = cpuSeconds(pid);
    const threadsBefore = threadCpuSeconds(pid);
    const busyBefore = machineBusySeconds();
    const wallBefore = performance.now();
    far = await farEnd.run(streams, seconds, { settleMs: WARM_UP_MS, mark: true });
    const wall = (performance.now() - wallBefore) / 1000;
    cpuPct = (100 * (cpuSeconds(pid) - cpuBefore)) / wall;
    threads = threadSplit(pid, threadsBefore, threadCpuSeconds(pid), wall);
    busyPct = (100 * (machineBusySeconds() - busyBefore)) / (wall * cpus().length);
    // Read while the calls are still up.
    rssUp = rssMiB(pid);
    filesUp = openFiles(pid);
    channelsAfterWindow = await channels();
  } else {
    console.error(`calls ${n}: only ${pairs.length} paired, ${channelsUp} channels after ${round(setupSeconds, 1)} s`);
  }

  const [callerRun, calleeRun] = await Promise.all([caller, callee]);
  const channelsLeft = await untilNone(channels, END_WAIT_MS);
  const rssAfter = rssMiB(pid);
  const filesAfter = openFiles(pid);
  rmSync(logDir, { recursive: true, force: true });

  const callerOk = sippCount(callerRun.stdout, 'Successful call');
  const calleeOk = sippCount(calleeRun.stdout, 'Successful call');
  const bridged = far !== null && far.foreign_packets === 0;
  const callsOk = allUp && channelsAfterWindow === 2 * n && callerOk === n && calleeOk === n && channelsLeft === 0;
  if (!callsOk) {
    console.error(
      `calls ${n}: caller ok ${callerOk}, callee ok ${calleeOk}, channels after window ${channelsAfterWindow}, left ${channelsLeft}\n` +
        `caller sipp: ${callerRun.stderr.slice(-800)}\ncallee sipp: ${calleeRun.stderr.slice(-800)}`,
    );
  }
  const loss = far === null ? 100 : far.loss_pct;
  const added = far === null ? Number.NaN : far.recv_dev_ms_p99 - far.send_dev_ms_p99;
  return {
    calls: n,
    setup_s: round(setupSeconds, 2),
    calls_up: pairs.length,
    channels_up: channelsUp,
    channels_after_window: channelsAfterWindow,
    caller_sipp_ok: callerOk,
    callee_sipp_ok: calleeOk,
    channels_left_after_hangup: channelsLeft,
    streams: far?.streams ?? 0,
    packets_sent: far?.packets_sent ?? 0,
    packets_received: far?.packets_received ?? 0,
    foreign_packets: far?.foreign_packets ?? null,
    loss_pct: round(loss, 3),
    seq_loss_pct: round(far?.seq_loss_pct ?? Number.NaN, 3),
    shortfall_pct: round(far?.shortfall_pct ?? Number.NaN, 3),
    streams_with_loss: far?.streams_with_loss ?? null,
    recv_dev_ms_p50: round(far?.recv_dev_ms_p50 ?? Number.NaN, 2),
    recv_dev_ms_p99: round(far?.recv_dev_ms_p99 ?? Number.NaN, 2),
    send_dev_ms_p99: round(far?.send_dev_ms_p99 ?? Number.NaN, 2),
    added_jitter_ms_p99: round(added, 2),
    server_cpu_pct_of_one_core: round(cpuPct, 1),
    server_cpu_pct_per_call: round(cpuPct / n, 4),
    server_main_thread_cpu_pct: round(threads.main, 1),
    server_media_worker_cpu_pct: round(threads.worker, 1),
    server_rss_mib_before: round(rssBefore, 1),
    server_rss_mib_up: round(rssUp, 1),
    server_rss_mib_after_hangup: round(rssAfter, 1),
    server_rss_kib_per_call: round(((rssUp - rssBefore) * 1024) / n, 1),
    server_open_files_before_up_after: [filesBefore, filesUp, filesAfter],
    far_end_cpu_pct: round(far?.far_end_cpu_pct ?? Number.NaN, 1),
    machine_busy_pct: round(busyPct, 1),
    loadavg_1m: round(loadavg()[0], 2),
    calls_ok: callsOk,
    bridged_ok: bridged,
    loss_ok: callsOk && bridged && loss < MAX_LOSS_PCT,
    jitter_ok: added < MAX_ADDED_JITTER_MS,
  };
}

const steps = [];
for (const n of counts) {
  let step = await attempt(n);
  // The machine is shared: a failing step is run once more and the better run is kept, so that one
  // stall caused by someone else's job does not set the capacity. Both runs are recorded.
  if (!step.loss_ok || !step.jitter_ok) {
    await sleep(1000);
    const again = await attempt(n);
    const better =
      (again.loss_ok && !step.loss_ok) ||
      (again.loss_ok === step.loss_ok &&
        (again.loss_pct < step.loss_pct || (again.loss_pct === step.loss_pct && again.added_jitter_ms_p99 < step.added_jitter_ms_p99)));
    const [kept, other] = better ? [again, step] : [step, again];
    step = {
      ...kept,
      other_run_calls_ok: other.calls_ok,
      other_run_loss_pct: other.loss_pct,
      other_run_added_jitter_ms_p99: other.added_jitter_ms_p99,
    };
  }
  steps.push(step);
  console.error(
    `calls ${n}: up ${step.calls_up}, loss ${step.loss_pct} %, added jitter p99 ${step.added_jitter_ms_p99} ms, server CPU ${step.server_cpu_pct_of_one_core} %, foreign ${step.foreign_packets}`,
  );
  // As media-relay: go on past a jitter miss while nothing is lost, stop at the first loss (or failed
  // calls) or once the jitter is grossly over.
  if (!step.loss_ok || !(step.added_jitter_ms_p99 < OVERLOAD_JITTER_MS)) break;
  await sleep(1000);
}
farEnd.close();
await sb.stop();

const last = (list) => (list.length > 0 ? list[list.length - 1] : null);
const best = last(steps.filter((s) => s.loss_ok && s.jitter_ok));
const bestLossOnly = last(steps.filter((s) => s.loss_ok && s.added_jitter_ms_p99 < OVERLOAD_JITTER_MS));
const result = {
  benchmark: 'sipp-bridged-calls',
  when: new Date().toISOString(),
  machine: machineAtStart,
  setup:
    `switchboard process, 1 media worker; sipp uac-hold-bye.xml → 300: Dial(SIP/bob) → bob (static contact) uas-answer-hold.xml, set up at ${setupRate}/s; ` +
    `PCMU both ways on every call, 50 packets/s per direction, far ends in a child process; ${WARM_UP_MS / 1000} s warm-up, then ${seconds - WARM_UP_MS / 1000} s measured`,
  step_seconds: seconds,
  warm_up_seconds: WARM_UP_MS / 1000,
  setup_rate_per_s: setupRate,
  criteria: { max_loss_pct: MAX_LOSS_PCT, max_added_jitter_ms_p99: MAX_ADDED_JITTER_MS },
  best_calls: best?.calls ?? null,
  best_calls_loss_only: bestLossOnly?.calls ?? null,
  loss_only_added_jitter_ms_p99: bestLossOnly?.added_jitter_ms_p99 ?? null,
  best_server_cpu_pct_per_call: best?.server_cpu_pct_per_call ?? null,
  best_server_rss_kib_per_call: best?.server_rss_kib_per_call ?? null,
  steps,
};
printSteps(`sipp-bridged-calls: concurrent Dial() calls with PCMU both ways through the server, ${seconds} s per step`, steps);
console.log(`most calls within loss < ${MAX_LOSS_PCT} % and added jitter p99 < ${MAX_ADDED_JITTER_MS} ms: ${result.best_calls ?? 'none'}`);
console.log(
  `most calls with loss < ${MAX_LOSS_PCT} % (jitter aside): ${bestLossOnly?.calls ?? 'none'} (added jitter p99 ${bestLossOnly?.added_jitter_ms_p99 ?? '-'} ms)`,
);
writeResult('sipp-bridged-calls', result);
