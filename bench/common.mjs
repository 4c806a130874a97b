// Helpers shared by the benchmarks: process CPU and memory from /proc, percentiles, the machine and
// its load (the machine is shared, so every result records how busy it was), sipp's final counts,
// and writing bench/results/<name>.json.
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { join } from 'node:path';
import { REPO_ROOT } from '../test/dist/harness.js';

const TICKS_PER_SECOND = 100;

/** utime + stime of a whole process (every thread, media workers included), in seconds. */
export function cpuSeconds(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
}

/** The kernel's part of cpuSeconds (stime): system calls, and the interrupts they cause. */
export function systemCpuSeconds(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return Number(fields[12]) / TICKS_PER_SECOND;
}

/**
 * CPU seconds of a process and its live children: those in its process group or with it as parent
 * (PostgreSQL's backends start sessions of their own, so its postmaster's children count by parent),
 * each with its ended children's (so a backend that exits does not take its time with it).
 */
export function treeCpuSeconds(root) {
  let total = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const fields = readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1].split(' ');
      if (Number(entry) === root || Number(fields[1]) === root || Number(fields[2]) === root)
        total += (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) / TICKS_PER_SECOND;
    } catch {
      // The process ended while the list was read.
    }
  }
  return total;
}

/** Resident set size of a process in MiB. */
export function rssMiB(pid) {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : Number.NaN;
}

/** CPU seconds the whole machine spent busy (all cores), to say how loaded it was during a step. */
export function machineBusySeconds() {
  const [, ...values] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/);
  const [user, nice, system, , , irq, softirq, steal] = values.map(Number);
  return (user + nice + system + irq + softirq + steal) / TICKS_PER_SECOND;
}

export function percentile(sorted, p) {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

export function round(value, digits = 3) {
  return Number.isFinite(value) ? Number(value.toFixed(digits)) : null;
}

export function machine() {
  return { nproc: cpus().length, model: cpus()[0]?.model ?? 'unknown', node: process.version, loadavg_1m_at_start: round(loadavg()[0], 2) };
}

/** sipp's cumulative count for a row of its final statistics screen ("Successful call", "Failed call"). */
export function sippCount(stdout, label) {
  const matches = [...stdout.matchAll(new RegExp(`${label}\\s*\\|\\s*\\d+\\s*\\|\\s*(\\d+)`, 'g'))];
  return matches.length === 0 ? 0 : Number(matches[matches.length - 1][1]);
}

export function writeResult(name, result) {
  writeFileSync(join(REPO_ROOT, 'bench', 'results', `${name}.json`), `${JSON.stringify(result, null, 2)}\n`);
}

export function printSteps(title, steps) {
  console.log(title);
  console.table(steps);
}

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Steps a sipp scenario through rising rates, `seconds` each, against a running server, and stops
 * at the first step whose failure ratio reaches `maxFailureRatio`. A call counts as failed unless
 * sipp reports it successful, so calls still open when the step's time limit hits are failures too.
 * A step in which every call succeeded also fails when fewer than 90 % of the offered calls per second
 * were achieved (sipp, or the machine, could not keep the pace): the offered rate was not sustained.
 * `run(rate, calls)` runs the sipp scenario and resolves with its result. With `metricsUrl` (the
 * server's /metrics) each step also reports the main event loop's longest delay over the step.
 */
export async function stepRates({ pid, rates, seconds, maxFailureRatio, run, metricsUrl }) {
  const steps = [];
  for (const rate of rates) {
    const calls = rate * seconds;
    const sipBefore = metricsUrl !== undefined ? await scrapeStep(metricsUrl) : undefined; // starts the step's lag window
    const cpuBefore = cpuSeconds(pid);
    const mainBefore = cpuSeconds(`${pid}/task/${pid}`);
    const mainSystemBefore = systemCpuSeconds(`${pid}/task/${pid}`);
    const busyBefore = machineBusySeconds();
    const started = performance.now();
    const sipp = await run(rate, calls);
    const elapsed = (performance.now() - started) / 1000;
    const cpu = cpuSeconds(pid) - cpuBefore;
    const mainCpu = cpuSeconds(`${pid}/task/${pid}`) - mainBefore;
    const mainSystem = systemCpuSeconds(`${pid}/task/${pid}`) - mainSystemBefore;
    const busy = machineBusySeconds() - busyBefore;
    const sipAfter = metricsUrl !== undefined ? await scrapeStep(metricsUrl) : undefined;
    const ok = sippCount(sipp.stdout, 'Successful call');
    const failed = calls - ok;
    const step = {
      rate,
      attempted: calls,
      ok,
      failed,
      failed_pct: round((100 * failed) / calls, 3),
      seconds: round(elapsed, 2),
      achieved_per_s: round(ok / elapsed, 1),
      server_cpu_ms_per_call: ok > 0 ? round((1000 * cpu) / ok, 3) : null,
      server_cpu_pct_of_one_core: round((100 * cpu) / elapsed, 1),
      // The main thread alone (signalling, the object model, the API): the one that saturates first.
      main_thread_cpu_ms_per_call: ok > 0 ? round((1000 * mainCpu) / ok, 3) : null,
      main_thread_cpu_pct: round((100 * mainCpu) / elapsed, 1),
      main_thread_system_pct: round((100 * mainSystem) / elapsed, 1),
      server_rss_mib: round(rssMiB(pid), 1),
      // How busy both cores were, all processes together (sipp, the server, anyone else's jobs).
      machine_busy_pct: round((100 * busy) / (elapsed * cpus().length), 1),
      ...(sipBefore !== undefined && sipAfter !== undefined
        ? {
            main_loop_lag_max_ms: round(sipAfter.lagMaxMs, 1),
            // Datagrams the server's SIP socket received but dropped, and its retransmissions: where
            // failed calls of a step went.
            sip_datagrams_dropped: sipAfter.dropped - sipBefore.dropped,
            sip_retransmissions_sent: sipAfter.retransmissionsSent - sipBefore.retransmissionsSent,
          }
        : {}),
    };
    // With a failed call the step lasts until sipp's time limit, so its pace can only be judged
    // when every call succeeded.
    step.sustained = failed / calls < maxFailureRatio && (failed > 0 || ok / elapsed >= 0.9 * rate);
    steps.push(step);
    if (!step.sustained) {
      // The first failing step shows why sipp counted failures (unexpected message, timeout, …).
      console.error(`step ${rate}/s: ${failed} failed; sipp said:\n${(sipp.stderr || '').slice(-1500)}`);
      break;
    }
    // Let the server finish closing the last calls before the next step is measured.
    await sleep(1000);
  }
  const passing = steps.filter((s) => s.sustained);
  return { steps, best: passing.length > 0 ? passing[passing.length - 1] : null };
}

/**
 * One scrape of the server's /metrics: the main event loop's longest delay since the last scrape, in
 * ms (prom-client's `nodejs_eventloop_lag_max_seconds`, whose histogram starts again at every scrape:
 * the longest interval between two ticks of the server's 20 ms monitoring timer, so a stall of S ms
 * reads as S to S + 20 and an idle loop as 20), and the SIP datagrams dropped and retransmissions
 * sent so far.
 */
async function scrapeStep(metricsUrl) {
  const text = await (await fetch(metricsUrl)).text();
  const number = (pattern) => {
    const match = pattern.exec(text);
    return match === null ? 0 : Number(match[1]);
  };
  const lag = /^nodejs_eventloop_lag_max_seconds(?:\{[^}]*\})? ([0-9.e+-]+)$/m.exec(text);
  return {
    lagMaxMs: lag === null ? Number.NaN : 1000 * Number(lag[1]),
    dropped:
      number(/^switchboard_sip_datagrams_dropped_total\{reason="inbound_queue"\} ([0-9.e+]+)$/m) +
      number(/^switchboard_sip_datagrams_dropped_total\{reason="receive_buffer"\} ([0-9.e+]+)$/m),
    retransmissionsSent: number(/^switchboard_sip_retransmissions_total\{direction="sent"\} ([0-9.e+]+)$/m),
  };
}

/**
 * Waits until the server has sent no SIP retransmission for `quietMs` (its
 * `switchboard_sip_retransmissions_total{direction="sent"}`), at most `limitMs`. After a collapsed step
 * the server still retransmits, for up to 32 s (Timer F), the BYEs of calls it ended to the previous
 * step's phones: a new sipp UAS on the same port would take them for calls of its own and count them
 * against its call limit.
 */
export async function untilNoRetransmissions(metricsUrl, { quietMs = 5000, limitMs = 45_000 } = {}) {
  const sent = async () => {
    const text = await (await fetch(metricsUrl)).text();
    const match = /^switchboard_sip_retransmissions_total\{direction="sent"\} ([0-9.e+]+)$/m.exec(text);
    return match === null ? 0 : Number(match[1]);
  };
  const deadline = performance.now() + limitMs;
  let last = await sent();
  let quietSince = performance.now();
  while (performance.now() < deadline) {
    await sleep(500);
    const now = await sent();
    if (now !== last) {
      last = now;
      quietSince = performance.now();
    } else if (performance.now() - quietSince >= quietMs) return true;
  }
  return false;
}

/** How many channels a server lists (`GET <ari>/channels`; any cluster node lists every node's). */
export async function channelCount(ariUrl, authorization) {
  const response = await fetch(`${ariUrl}/channels`, { headers: { authorization } });
  if (!response.ok) throw new Error(`GET /channels: ${response.status}`);
  return (await response.json()).length;
}

/** Reads `count()` until it is 0 or `limitMs` have passed; resolves with the last reading. */
export async function untilNone(count, limitMs) {
  const since = performance.now();
  let left = await count();
  while (left > 0 && performance.now() - since < limitMs) {
    await sleep(200);
    left = await count();
  }
  return left;
}

/** utime + stime of each thread of a process, in seconds, by thread id. */
export function threadCpuSeconds(pid) {
  const perThread = new Map();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      perThread.set(tid, cpuSeconds(`${pid}/task/${tid}`));
    } catch {
      // The thread ended between the listing and the read.
    }
  }
  return perThread;
}

/**
 * CPU % of a core of the main thread and of the busiest other thread over `wall` seconds. While RTP
 * flows the busiest other thread is the media worker (every thread is named "node", so it is found
 * by its load rather than by name).
 */
export function threadSplit(pid, before, after, wall) {
  let main = Number.NaN;
  let worker = 0;
  for (const [tid, end] of after) {
    const used = (100 * (end - (before.get(tid) ?? 0))) / wall;
    if (tid === String(pid)) main = used;
    else worker = Math.max(worker, used);
  }
  return { main, worker };
}

/**
 * sipp's socket buffers (SO_RCVBUF/SO_SNDBUF, 4 MiB). With the kernel's default 208 KiB a fresh server's
 * first burst of replies overflowed the load generator's own socket: `sipp-dial-rate` lost 2–38 calls in 6 of
 * 13 first steps at 350/s, every loss matched by `RcvbufErrors` in /proc/net/snmp, and none with this.
 */
export const SIPP_SOCKET_BUFFERS = ['-buff_size', String(4 * 1024 * 1024)];

/**
 * Pins every thread of process `pid` (threads started later inherit it) to `cpus`, a taskset list
 * ("0", "1", "0-1"). Used to hold the scheduler's placement of a client and a server fixed.
 */
export function pinThreads(pid, cpus) {
  const result = spawnSync('taskset', ['-a', '-p', '-c', cpus, String(pid)], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`taskset -a -p -c ${cpus} ${pid}: ${result.stderr.trim()}`);
}
