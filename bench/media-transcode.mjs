#!/usr/bin/env node
// Benchmark: G.711 ↔ Opus transcoded two-party calls on one media worker (one core). Each call is a
// PCMU leg and an opus leg (48 kHz, 20 ms) in a mixing bridge: different codecs cannot be relayed, so
// every frame is decoded, resampled, mixed and encoded. Each far end sends 50 packets/s in its leg's
// codec. Steps the number of calls up; reports the most calls with loss < 0.1 % and added jitter
// p99 < 5 ms, and the engine's CPU and memory per leg.
import { machine, printSteps, writeResult } from './common.mjs';
import { MAX_ADDED_JITTER_MS, MAX_LOSS_PCT, OPUS, PCMU, farLeg, inBatches, startEngine, startFarEnd, stepCounts } from './media-common.mjs';

const counts = (process.env.BENCH_CALLS ?? '5,10,15,20,30,40').split(',').map(Number);
const seconds = Number(process.env.BENCH_STEP_SECONDS ?? 5);

const engine = await startEngine();
const farEnd = await startFarEnd();
if (!farEnd.codecs.includes('opus')) {
  farEnd.close();
  await engine.close();
  throw new Error('@discordjs/opus did not load in the far end: no opus streams can be sent');
}

let bridgeSerial = 0;
async function setup(n) {
  const calls = [];
  await inBatches(Array.from({ length: n }), 25, async () => {
    const bridgeId = `transcode-${bridgeSerial++}`;
    await engine.createBridge({ bridgeId, kind: 'mixing' });
    const ulaw = await farLeg(engine, farEnd, PCMU);
    const opus = await farLeg(engine, farEnd, OPUS);
    await engine.joinBridge(bridgeId, ulaw.legId);
    await engine.joinBridge(bridgeId, opus.legId);
    calls.push({ bridgeId, ulaw, opus });
  });
  // What the PCMU phone sends comes back as opus from the other leg, and the other way round.
  const streams = calls.flatMap(({ ulaw, opus }) => [
    { to: ulaw.localPort, from: opus.localPort, codec: 'PCMU' },
    { to: opus.localPort, from: ulaw.localPort, codec: 'opus' },
  ]);
  const teardown = () =>
    inBatches(calls, 25, async ({ bridgeId, ulaw, opus }) => {
      await engine.destroyBridge(bridgeId);
      await Promise.all([engine.destroyLeg(ulaw.legId), engine.destroyLeg(opus.legId)]);
    });
  return { streams, legs: 2 * n, teardown };
}

const { steps, best, bestLossOnly } = await stepCounts({ counts, seconds, setup, farEnd, unit: 'calls' });
farEnd.close();
await engine.close();

const result = {
  benchmark: 'media-transcode',
  when: new Date().toISOString(),
  machine: machine(),
  setup:
    'MediaEngine, 1 worker, in process; N mixing bridges of a PCMU leg and an opus leg (48 kHz mono, 20 ms, 32 kbit/s, @discordjs/opus); far ends in a child process, 50 packets/s per stream',
  step_seconds: seconds,
  criteria: { max_loss_pct: MAX_LOSS_PCT, max_added_jitter_ms_p99: MAX_ADDED_JITTER_MS },
  best_calls_per_worker: best?.calls ?? null,
  // The most calls with loss < 0.1 % whatever the jitter (below the overload bound of 20 ms).
  best_calls_per_worker_loss_only: bestLossOnly?.calls ?? null,
  loss_only_added_jitter_ms_p99: bestLossOnly?.added_jitter_ms_p99 ?? null,
  best_engine_cpu_pct_per_leg: best?.engine_cpu_pct_per_leg ?? null,
  best_rss_kib_per_leg: best?.rss_kib_per_leg ?? null,
  steps,
};
printSteps(`media-transcode: PCMU ↔ opus calls on one worker, ${seconds} s per step`, steps);
console.log(`most transcoded calls per worker within the criteria: ${result.best_calls_per_worker ?? 'none'}`);
console.log(
  `most calls with loss < ${MAX_LOSS_PCT} % (jitter aside): ${bestLossOnly?.calls ?? 'none'} (added jitter p99 ${bestLossOnly?.added_jitter_ms_p99 ?? '-'} ms)`,
);
writeResult('media-transcode', result);
