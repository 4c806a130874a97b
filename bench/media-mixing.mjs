#!/usr/bin/env node
// Benchmark: how many participants one media worker mixes at its 20 ms tick. Two layouts, one after
// the other: several 3-party mixing bridges, and one conference bridge with every participant. Every
// participant is a PCMU leg whose far end sends 50 packets/s; each leg sends back its own minus-one
// mix once per tick. The engine does not expose its mixing time per tick, so overruns are inferred at
// the far ends: a skipped tick is a packet missing from a leg's 50/s output (shortfall), a late tick
// is output-interval jitter. Reports the most participants with loss < 0.1 % and added jitter
// p99 < 5 ms, and with loss < 0.1 % alone; CPU and memory per leg.
import { machine, printSteps, writeResult } from './common.mjs';
import { MAX_ADDED_JITTER_MS, MAX_LOSS_PCT, PCMU, farLeg, inBatches, startEngine, startFarEnd, stepCounts } from './media-common.mjs';

const seconds = Number(process.env.BENCH_STEP_SECONDS ?? 4);
const layouts = {
  'three-party': (process.env.BENCH_THREE_PARTY ?? '60,120,240,360,480').split(',').map(Number),
  conference: (process.env.BENCH_CONFERENCE ?? '25,50,100,200,300,450').split(',').map(Number),
};

const engine = await startEngine();
const farEnd = await startFarEnd();

let bridgeSerial = 0;
/** `participants` legs in bridges of `size` (the last bridge takes the remainder). */
function setupFor(size) {
  return async (participants) => {
    const groups = [];
    for (let left = participants; left > 0; left -= size) groups.push(Math.min(size, left));
    const bridges = [];
    await inBatches(groups, 20, async (members) => {
      const bridgeId = `mix-${bridgeSerial++}`;
      await engine.createBridge({ bridgeId, kind: 'mixing' });
      const legs = [];
      for (let i = 0; i < members; i++) {
        const leg = await farLeg(engine, farEnd, PCMU);
        await engine.joinBridge(bridgeId, leg.legId);
        legs.push(leg);
      }
      bridges.push({ bridgeId, legs });
    });
    // Each leg's output is its own minus-one mix: one packet per tick, compared with what it was sent.
    const streams = bridges.flatMap(({ legs }) => legs.map((leg) => ({ to: leg.localPort, from: leg.localPort, codec: 'PCMU' })));
    const teardown = () =>
      inBatches(bridges, 20, async ({ bridgeId, legs }) => {
        await engine.destroyBridge(bridgeId);
        await Promise.all(legs.map((leg) => engine.destroyLeg(leg.legId)));
      });
    return { streams, legs: participants, teardown };
  };
}

const results = {};
for (const [layout, counts] of Object.entries(layouts)) {
  const size = layout === 'three-party' ? 3 : Number.POSITIVE_INFINITY;
  const { steps, best, bestLossOnly } = await stepCounts({ counts, seconds, setup: setupFor(size), farEnd, unit: 'participants' });
  results[layout] = {
    best_participants: best?.participants ?? null,
    best_participants_loss_only: bestLossOnly?.participants ?? null,
    loss_only_added_jitter_ms_p99: bestLossOnly?.added_jitter_ms_p99 ?? null,
    best_engine_cpu_pct_per_leg: (best ?? bestLossOnly)?.engine_cpu_pct_per_leg ?? null,
    steps,
  };
  printSteps(`media-mixing (${layout}): participants on one worker, ${seconds} s per step`, steps);
  console.log(
    `${layout}: most participants within loss < ${MAX_LOSS_PCT} % and added jitter p99 < ${MAX_ADDED_JITTER_MS} ms: ${results[layout].best_participants ?? 'none'}; with loss < ${MAX_LOSS_PCT} % alone: ${results[layout].best_participants_loss_only ?? 'none'}`,
  );
}
farEnd.close();
await engine.close();

writeResult('media-mixing', {
  benchmark: 'media-mixing',
  when: new Date().toISOString(),
  machine: machine(),
  setup:
    'MediaEngine, 1 worker, in process; PCMU legs in 3-party mixing bridges, then in one conference bridge; far ends in a child process, 50 packets/s per leg; overruns inferred from output shortfall and jitter',
  step_seconds: seconds,
  criteria: { max_loss_pct: MAX_LOSS_PCT, max_added_jitter_ms_p99: MAX_ADDED_JITTER_MS },
  layouts: results,
});
