#!/usr/bin/env node
// Benchmark: two-party same-codec (PCMU) bridges relayed by one media worker. Each call is two legs in
// a mixing bridge (which relays packets without decoding); each far end sends 50 packets/s. Steps the
// number of calls up and reports the most calls with loss < 0.1 % and added jitter p99 < 5 ms, the
// engine's CPU and memory per leg.
import { machine, printSteps, writeResult } from './common.mjs';
import { MAX_ADDED_JITTER_MS, MAX_LOSS_PCT, PCMU, farLeg, inBatches, startEngine, startFarEnd, stepCounts } from './media-common.mjs';

const counts = (process.env.BENCH_CALLS ?? '50,100,150,200,300,400').split(',').map(Number);
const seconds = Number(process.env.BENCH_STEP_SECONDS ?? 5);

const engine = await startEngine();
const farEnd = await startFarEnd();

let bridgeSerial = 0;
async function setup(n) {
  const calls = [];
  await inBatches(Array.from({ length: n }), 50, async () => {
    const bridgeId = `relay-${bridgeSerial++}`;
    await engine.createBridge({ bridgeId, kind: 'mixing' });
    // RFC 4733 events negotiated, as the phones of sipp-relay do: the relay then decodes nothing.
    const a = await farLeg(engine, farEnd, PCMU, { telephoneEventPayloadType: 101 });
    const b = await farLeg(engine, farEnd, PCMU, { telephoneEventPayloadType: 101 });
    await engine.joinBridge(bridgeId, a.legId);
    await engine.joinBridge(bridgeId, b.legId);
    calls.push({ bridgeId, a, b });
  });
  // What is sent to leg a comes back relayed from leg b, and the other way round.
  const streams = calls.flatMap(({ a, b }) => [
    { to: a.localPort, from: b.localPort, codec: 'PCMU' },
    { to: b.localPort, from: a.localPort, codec: 'PCMU' },
  ]);
  const teardown = () =>
    inBatches(calls, 50, async ({ bridgeId, a, b }) => {
      await engine.destroyBridge(bridgeId);
      await Promise.all([engine.destroyLeg(a.legId), engine.destroyLeg(b.legId)]);
    });
  return { streams, legs: 2 * n, teardown };
}

const { steps, best, bestLossOnly } = await stepCounts({ counts, seconds, setup, farEnd, unit: 'calls', engine });
farEnd.close();
await engine.close();

const result = {
  benchmark: 'media-relay',
  when: new Date().toISOString(),
  machine: machine(),
  setup:
    'MediaEngine, 1 worker, in process; N mixing bridges of two PCMU legs (relay); far ends in a child process, one socket, 50 packets/s per stream',
  step_seconds: seconds,
  criteria: { max_loss_pct: MAX_LOSS_PCT, max_added_jitter_ms_p99: MAX_ADDED_JITTER_MS },
  best_calls: best?.calls ?? null,
  // The most calls with loss < 0.1 % whatever the jitter (below the overload bound of 20 ms).
  best_calls_loss_only: bestLossOnly?.calls ?? null,
  loss_only_added_jitter_ms_p99: bestLossOnly?.added_jitter_ms_p99 ?? null,
  best_engine_cpu_pct_per_leg: best?.engine_cpu_pct_per_leg ?? null,
  best_rss_kib_per_leg: best?.rss_kib_per_leg ?? null,
  steps,
};
printSteps(`media-relay: two-party PCMU relay calls on one worker, ${seconds} s per step`, steps);
console.log(`most calls within loss < ${MAX_LOSS_PCT} % and added jitter p99 < ${MAX_ADDED_JITTER_MS} ms: ${result.best_calls ?? 'none'}`);
console.log(
  `most calls with loss < ${MAX_LOSS_PCT} % (jitter aside): ${bestLossOnly?.calls ?? 'none'} (added jitter p99 ${bestLossOnly?.added_jitter_ms_p99 ?? '-'} ms)`,
);
writeResult('media-relay', result);
