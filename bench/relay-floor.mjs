#!/usr/bin/env node
// Benchmark: the relay benchmark's own floor. The far end of bench/sipp-relay.mjs (relay-far-end.mjs,
// the same process, sockets and pacing) runs with no server in between: each call's caller socket
// sends straight to its callee socket and back. Whatever jitter it reports is the load generator's
// (its sending bursts, its own scheduling), the part of a sipp-relay figure the server did not add.
// Both clocks are reported: the kernel's receive time (what sipp-relay's jitter uses now) and the
// time this process's event loop handled each datagram (loop_*, what it used before).
import { loadavg } from 'node:os';
import { startRelayFarEnd } from './relay-phones.mjs';
import { machine, printSteps, round, sleep, writeResult } from './common.mjs';

const counts = (process.env.BENCH_CALLS ?? '50,100,200,300,350').split(',').map(Number);
const seconds = Number(process.env.BENCH_STEP_SECONDS ?? 9);
const runs = Number(process.env.BENCH_RUNS ?? 2);
const WARM_UP_MS = 1000;

const farEnd = await startRelayFarEnd();
const steps = [];
for (const n of counts) {
  const ports = await farEnd.open(n);
  // Caller stream: caller socket → callee socket (expected from the caller's port); and back.
  const calls = ports.map(([callerPort, calleePort]) => ({ callerPort, calleePort, a: calleePort, b: callerPort }));
  for (let run = 1; run <= runs; run++) {
    const far = await farEnd.run(calls, seconds, WARM_UP_MS);
    const step = {
      calls: n,
      run,
      packets_sent: far.packets_sent,
      loss_pct: round(far.loss_pct, 3),
      arrival_clock: far.arrival_clock,
      jitter_ms_p50: round(far.jitter_ms_p50, 3),
      jitter_ms_p99: round(far.jitter_ms_p99, 3),
      delay_var_ms_p99: round(far.delay_var_ms_p99, 3),
      loop_jitter_ms_p50: round(far.loop_jitter_ms_p50, 3),
      loop_jitter_ms_p99: round(far.loop_jitter_ms_p99, 3),
      loop_delay_var_ms_p99: round(far.loop_delay_var_ms_p99, 3),
      send_late_max_ms: round(far.send_late_max_ms, 1),
      far_end_cpu_pct: round(far.far_end_cpu_pct, 1),
      loadavg_1m: round(loadavg()[0], 2),
    };
    steps.push(step);
    console.error(
      `calls ${n} run ${run}: jitter p99 ${step.jitter_ms_p99} ms (${step.arrival_clock}), at the loop ${step.loop_jitter_ms_p99} ms`,
    );
    await sleep(500);
  }
}
farEnd.exit();

const result = {
  benchmark: 'relay-floor',
  when: new Date().toISOString(),
  machine: machine(),
  far_end_sockets: process.env.BENCH_FAR_END_SOCKETS ?? 'native',
  setup: `relay-far-end.mjs with no server: per-call socket pairs sending to each other, PCMU both ways at 50 packets/s; ${WARM_UP_MS / 1000} s warm-up, ${seconds - WARM_UP_MS / 1000} s measured, ${runs} runs per size`,
  steps,
};
printSteps("relay-floor: the relay far end with no server in between (the load generator's own jitter)", steps);
writeResult('relay-floor', result);
