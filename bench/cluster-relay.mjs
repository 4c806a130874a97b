#!/usr/bin/env node
// Benchmark: concurrent relayed calls through a cluster of 1, 2 and 3 nodes behind Kamailio
// (`npm run cluster`, a PostgreSQL store), measured as sipp-relay.mjs measures one server. bob (a
// sipp UAS) registers through the edge, so his contact and its Path are in the shared store. For
// each step N, sipp alice (digest: INVITE, 401, INVITE again) places N calls through the edge at
// BENCH_SETUP_RATE/s to `bob` = Dial(SIP/bob): the edge spreads them over the nodes, and each node
// calls bob back through the edge and relays the media of its calls. Every call's SDP names sockets
// of its own in one Node child process (relay-far-end.mjs), which sends PCMU at 50 packets/s both
// ways and measures loss and the RFC 3550 delay variation the cluster adds.
// Per step: how the calls spread over the nodes, CPU of the nodes (each process tree), of Kamailio
// and of PostgreSQL while the calls are set up and while media flows, and the same per call, so
// the per-node efficiency and the overhead of the edge and of the shared store can be compared.
// A step passes at loss < 0.1 % and jitter p99 < 5 ms; a size stops at its first loss or failed
// set-up. Every loop is bounded in count and time.
import { readFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { runSipp } from '../test/dist/harness.js';
import { clusterDown, clusterUp } from './cluster-bench.mjs';
import { channelCount, machine, printSteps, round, sippCount, sleep, treeCpuSeconds, untilNone, writeResult } from './common.mjs';
import { phonePort, placeRelayCalls, startRelayFarEnd } from './relay-phones.mjs';

const SIZES = (process.env.BENCH_NODES ?? '1,2,3').split(',').map(Number);
const COUNTS = (process.env.BENCH_CALLS ?? '50,100,150,200').split(',').map(Number);
const SECONDS = Number(process.env.BENCH_STEP_SECONDS ?? 9);
const SETUP_RATE = Number(process.env.BENCH_SETUP_RATE ?? 50);
const WARM_UP_MS = 1000;
const MAX_LOSS_PCT = 0.1;
const MAX_JITTER_MS_P99 = 5;
const SETUP_SLACK_MS = 4000;
const END_WAIT_MS = 8000;
const IDLE_MS = 4000;
const BOB = { name: 'bob', password: 'builder' };
const ALICE = { name: 'alice', password: 'wonderland' };

function cpuSample(c) {
  return {
    nodes: c.cluster.nodes.map((n) => treeCpuSeconds(n.pid)),
    kamailio: treeCpuSeconds(c.kamailioPid),
    postgres: treeCpuSeconds(c.postgresPid),
  };
}

/** CPU between two samples: percent of one core over `wall` seconds, per node and for the rest. */
function cpuUse(before, after, wall) {
  const pct = (a, b) => (100 * (b - a)) / wall;
  const nodes = after.nodes.map((v, i) => pct(before.nodes[i], v));
  return {
    nodes,
    nodesTotal: nodes.reduce((s, v) => s + v, 0),
    kamailio: pct(before.kamailio, after.kamailio),
    postgres: pct(before.postgres, after.postgres),
  };
}

/** The last warnings and errors of each node's log (the cluster's directory goes with `down`). */
function printNodeWarnings(c) {
  for (const node of c.cluster.nodes) {
    const lines = readFileSync(join(c.dir, node.name, 'switchboard.log'), 'utf8')
      .split('\n')
      .filter((line) => /"level":(40|50|60)/.test(line));
    console.error(`${node.name}: ${lines.length} warnings or errors; the last:\n${lines.slice(-8).join('\n').slice(0, 4000)}`);
  }
}

/** Channels of the whole cluster (any node lists every node's). */
const clusterChannels = (c) => channelCount(c.cluster.nodes[0].ari, `Basic ${Buffer.from(c.cluster.ari_user).toString('base64')}`);

/** Inbound calls each node has taken since it started, from its /metrics. */
async function inboundPerNode(c) {
  return Promise.all(
    c.cluster.nodes.map(async (node) => {
      const text = await (await fetch(node.ari.replace(/\/ari$/, '/metrics'))).text();
      const line = text.split('\n').find((l) => l.startsWith('switchboard_call_attempts_total{direction="inbound"}'));
      return line === undefined ? 0 : Number(line.split(' ').pop());
    }),
  );
}

async function registerBob(c, bobPort) {
  const result = await runSipp('register-auth.xml', c.edge, {
    service: BOB.name,
    keys: { expires: 3600 },
    extra: ['-au', BOB.name, '-ap', BOB.password, '-p', String(bobPort)],
  });
  if (result.code !== 0) throw new Error(`bob could not register: ${result.stdout.slice(-800)}`);
}

async function step(c, farEnd, bobPort, n) {
  const inboundBefore = await inboundPerNode(c);
  let setupCpuBefore;
  const placed = await placeRelayCalls({
    target: c.edge,
    n,
    rate: SETUP_RATE,
    holdSeconds: SECONDS,
    slackMs: SETUP_SLACK_MS,
    bobPort,
    ports: await farEnd.open(n),
    caller: {
      scenario: 'uac-auth-relay-hold-bye.xml',
      service: BOB.name,
      keys: { user: ALICE.name },
      extra: ['-au', ALICE.name, '-ap', ALICE.password],
    },
    allowAddress: (address) => address.startsWith(`${c.subnet}.`),
    channelCount: () => clusterChannels(c),
    beforeCaller: () => {
      setupCpuBefore = cpuSample(c);
    },
  });
  const { calls, allUp, setupSeconds: setupWall } = placed;
  const setupCpu = cpuUse(setupCpuBefore, cpuSample(c), setupWall);
  let far = null;
  let media = null;
  if (allUp) {
    const before = cpuSample(c);
    const wallBefore = performance.now();
    far = await farEnd.run(calls, SECONDS, WARM_UP_MS);
    media = cpuUse(before, cpuSample(c), (performance.now() - wallBefore) / 1000);
  }
  const [callerRun, calleeRun] = await placed.finished;
  const channelsLeft = await untilNone(() => clusterChannels(c), END_WAIT_MS);
  const inboundAfter = await inboundPerNode(c);
  const callerOk = sippCount(callerRun.stdout, 'Successful call');
  const calleeOk = sippCount(calleeRun.stdout, 'Successful call');
  const callsOk = allUp && callerOk === n && calleeOk === n && channelsLeft === 0;
  if (!callsOk) {
    console.error(`calls ${n}: caller ok ${callerOk}, callee ok ${calleeOk}, left ${channelsLeft}\n${callerRun.stderr.slice(-600)}`);
    console.error(`callee: ${calleeRun.stderr.slice(-600)}`);
    printNodeWarnings(c);
  }
  const loss = far?.loss_pct ?? 100;
  const jitterP99 = far?.jitter_ms_p99 ?? Number.NaN;
  const perCall = (pct) => round(pct / n, 3);
  return {
    nodes: c.cluster.nodes.length,
    calls: n,
    calls_ok: callsOk,
    // Each node's share of the step's calls (the inbound channels it created).
    inbound_per_node: inboundAfter.map((v, i) => v - inboundBefore[i]),
    loss_pct: round(loss, 3),
    jitter_ms_p50: round(far?.jitter_ms_p50 ?? Number.NaN, 3),
    jitter_ms_p99: round(jitterP99, 3),
    arrival_clock: far?.arrival_clock ?? null,
    loop_jitter_ms_p99: round(far?.loop_jitter_ms_p99 ?? Number.NaN, 3),
    delay_var_ms_p99: round(far?.delay_var_ms_p99 ?? Number.NaN, 3),
    transit_ms_p50: round(far?.transit_ms_p50 ?? Number.NaN, 3),
    media_nodes_cpu_pct: media ? media.nodes.map((v) => round(v, 1)) : null,
    media_nodes_cpu_pct_per_call: media ? perCall(media.nodesTotal) : null,
    media_kamailio_cpu_pct: media ? round(media.kamailio, 2) : null,
    media_postgres_cpu_pct: media ? round(media.postgres, 2) : null,
    setup_nodes_cpu_ms_per_call: round((setupCpu.nodesTotal * setupWall * 10) / n, 2),
    setup_kamailio_cpu_ms_per_call: round((setupCpu.kamailio * setupWall * 10) / n, 2),
    setup_postgres_cpu_ms_per_call: round((setupCpu.postgres * setupWall * 10) / n, 2),
    far_end_cpu_pct: round(far?.far_end_cpu_pct ?? Number.NaN, 1),
    loadavg_1m: round(loadavg()[0], 2),
    pass: callsOk && far !== null && far.foreign_packets === 0 && loss < MAX_LOSS_PCT && jitterP99 < MAX_JITTER_MS_P99,
  };
}

/** What the cluster uses with no calls (heartbeats, the dispatcher's probes): the floor of every step. */
async function idleCpu(c) {
  const before = cpuSample(c);
  const since = performance.now();
  await sleep(IDLE_MS);
  const use = cpuUse(before, cpuSample(c), (performance.now() - since) / 1000);
  return { nodes: use.nodes.map((v) => round(v, 1)), kamailio: round(use.kamailio, 2), postgres: round(use.postgres, 2) };
}

const machineAtStart = machine();
const idleBySize = {};
const farEnd = await startRelayFarEnd();
const steps = [];
try {
  for (const size of SIZES) {
    const c = clusterUp(size, { subnet: `127.0.${205 + size}`, dir: join(tmpdir(), `switchboard-cluster-relay-${size}`) });
    try {
      const bobPort = await phonePort();
      await registerBob(c, bobPort);
      const idle = await idleCpu(c);
      console.error(`${size} nodes idle: nodes CPU ${idle.nodes}, Kamailio ${idle.kamailio}, PostgreSQL ${idle.postgres}`);
      idleBySize[size] = idle;
      for (const n of COUNTS) {
        const result = await step(c, farEnd, bobPort, n);
        steps.push(result);
        console.error(
          `${size} nodes, ${n} calls: loss ${result.loss_pct} %, jitter p99 ${result.jitter_ms_p99} ms, nodes CPU ${result.media_nodes_cpu_pct}`,
        );
        if (!result.calls_ok || !(result.loss_pct < MAX_LOSS_PCT)) break;
        await sleep(1000);
      }
    } finally {
      clusterDown(c.dir);
    }
  }
} finally {
  farEnd.exit();
}

const bestOf = (size) => {
  const passing = steps.filter((s) => s.nodes === size && s.pass);
  return passing.length > 0 ? passing[passing.length - 1].calls : null;
};
const result = {
  benchmark: 'cluster-relay',
  when: new Date().toISOString(),
  machine: machineAtStart,
  setup:
    `npm run cluster per size (Kamailio edge, PostgreSQL store, one media worker per node); bob registered through the edge; ` +
    `sipp alice (digest) → edge → node: Dial(SIP/bob) → edge → bob, set up at ${SETUP_RATE}/s; per-call sockets, PCMU both ways at 50 packets/s; ` +
    `${WARM_UP_MS / 1000} s warm-up, ${SECONDS - WARM_UP_MS / 1000} s measured`,
  criteria: { max_loss_pct: MAX_LOSS_PCT, max_jitter_ms_p99: MAX_JITTER_MS_P99 },
  idle_cpu_pct: idleBySize,
  best_calls: Object.fromEntries(SIZES.map((size) => [size, bestOf(size)])),
  steps,
};
printSteps(`cluster-relay: relayed calls through Kamailio over 1–3 nodes, ${SECONDS} s per step`, steps);
console.log(
  `most calls with loss < ${MAX_LOSS_PCT} % and jitter p99 < ${MAX_JITTER_MS_P99} ms, by nodes: ${JSON.stringify(result.best_calls)}`,
);
writeResult('cluster-relay', result);
