#!/usr/bin/env node
// Benchmark: how many participants one media worker mixes at its 20 ms tick without tick overruns.
// Layouts, one after the other:
//   three-party        PCMU legs in 3-party mixing bridges (8 kHz mixing)
//   conference         PCMU legs in one conference bridge (8 kHz mixing)
//   three-party-g722   G.722 legs in 3-party mixing bridges (16 kHz mixing, no resampling)
//   conference-16k     one G.722 leg and N-1 PCMU legs in one bridge: 16 kHz mixing, every PCMU leg
//                      resampled 8→16→8 kHz
//   conference-48k     one opus leg and N-1 PCMU legs: 48 kHz mixing (needs @discordjs/opus)
// Every far end sends 50 packets/s; each leg sends back its own minus-one mix once per tick. The
// worker's tick statistics (engine.getWorkerStats(), reset at the start of each step) give the work
// time per 20 ms frame (p50/p99/max) and the overruns: frames that took longer than 20 ms or started
// more than 10 ms late. The capacity is the most participants with no overrun and no skipped frame;
// the far ends' view (loss, added jitter) is reported beside it.
import { machine, printSteps, writeResult } from './common.mjs';
import {
  G722,
  MAX_ADDED_JITTER_MS,
  MAX_LOSS_PCT,
  OPUS,
  PCMU,
  farLeg,
  inBatches,
  startEngine,
  startFarEnd,
  stepCounts,
} from './media-common.mjs';

const seconds = Number(process.env.BENCH_STEP_SECONDS ?? 4);
const list = (name, fallback) => (process.env[name] ?? fallback).split(',').filter(Boolean).map(Number);
const layouts = {
  'three-party': { size: 3, codecs: () => PCMU, counts: list('BENCH_THREE_PARTY', '60,120,240,360,480,600') },
  conference: { size: Number.POSITIVE_INFINITY, codecs: () => PCMU, counts: list('BENCH_CONFERENCE', '25,50,100,200,300,450,600') },
  'three-party-g722': { size: 3, codecs: () => G722, counts: list('BENCH_THREE_PARTY_G722', '15,30,45,60,90,120') },
  'conference-16k': {
    size: Number.POSITIVE_INFINITY,
    codecs: (index) => (index === 0 ? G722 : PCMU),
    counts: list('BENCH_CONFERENCE_16K', '25,50,100,200,300'),
  },
  'conference-48k': {
    size: Number.POSITIVE_INFINITY,
    codecs: (index) => (index === 0 ? OPUS : PCMU),
    counts: list('BENCH_CONFERENCE_48K', '25,50,100,200,300'),
  },
};
const only = process.env.BENCH_MIXING_LAYOUTS?.split(',');

const engine = await startEngine();
const farEnd = await startFarEnd();

let bridgeSerial = 0;
/** `participants` legs in bridges of `size` (the last bridge takes the remainder); member i of a bridge uses `codecs(i)`. */
function setupFor(size, codecs) {
  return async (participants) => {
    const groups = [];
    for (let left = participants; left > 0; left -= size) groups.push(Math.min(size, left));
    const bridges = [];
    await inBatches(groups, 20, async (members) => {
      const bridgeId = `mix-${bridgeSerial++}`;
      await engine.createBridge({ bridgeId, kind: 'mixing' });
      const legs = [];
      for (let i = 0; i < members; i++) {
        const codec = codecs(i);
        const leg = await farLeg(engine, farEnd, codec);
        await engine.joinBridge(bridgeId, leg.legId);
        legs.push({ ...leg, codec: codec.name });
      }
      bridges.push({ bridgeId, legs });
    });
    // Each leg's output is its own minus-one mix: one packet per tick, compared with what it was sent.
    const streams = bridges.flatMap(({ legs }) => legs.map((leg) => ({ to: leg.localPort, from: leg.localPort, codec: leg.codec })));
    const teardown = () =>
      inBatches(bridges, 20, async ({ bridgeId, legs }) => {
        await engine.destroyBridge(bridgeId);
        await Promise.all(legs.map((leg) => engine.destroyLeg(leg.legId)));
      });
    return { streams, legs: participants, teardown };
  };
}

const results = {};
for (const [layout, { size, codecs, counts }] of Object.entries(layouts)) {
  if (only !== undefined && !only.includes(layout)) continue;
  const needed = new Set([codecs(0).name, codecs(1).name]);
  const missing = [...needed].filter((name) => !farEnd.codecs.includes(name));
  if (missing.length > 0) {
    console.log(`${layout}: skipped, the far end cannot send ${missing.join(', ')}`);
    results[layout] = { skipped: `far end cannot send ${missing.join(', ')}` };
    continue;
  }
  const { steps, best, bestLossOnly, bestTicks } = await stepCounts({
    counts,
    seconds,
    setup: setupFor(size, codecs),
    farEnd,
    unit: 'participants',
    engine,
  });
  results[layout] = {
    best_participants_no_overrun: bestTicks?.participants ?? null,
    tick_ms_p50_there: bestTicks?.tick_ms_p50 ?? null,
    tick_ms_p99_there: bestTicks?.tick_ms_p99 ?? null,
    best_participants: best?.participants ?? null,
    best_participants_loss_only: bestLossOnly?.participants ?? null,
    loss_only_added_jitter_ms_p99: bestLossOnly?.added_jitter_ms_p99 ?? null,
    best_engine_cpu_pct_per_leg: (bestTicks ?? best ?? bestLossOnly)?.engine_cpu_pct_per_leg ?? null,
    steps,
  };
  printSteps(`media-mixing (${layout}): participants on one worker, ${seconds} s per step`, steps);
  console.log(
    `${layout}: most participants without tick overruns: ${results[layout].best_participants_no_overrun ?? 'none'} (tick p50 ${results[layout].tick_ms_p50_there} ms, p99 ${results[layout].tick_ms_p99_there} ms); far ends: loss < ${MAX_LOSS_PCT} % and added jitter p99 < ${MAX_ADDED_JITTER_MS} ms: ${results[layout].best_participants ?? 'none'}; loss alone: ${results[layout].best_participants_loss_only ?? 'none'}`,
  );
}
farEnd.close();
await engine.close();

writeResult('media-mixing', {
  benchmark: 'media-mixing',
  when: new Date().toISOString(),
  machine: machine(),
  setup:
    'MediaEngine, 1 worker, in process; mixing bridges (PCMU 3-party and conference at 8 kHz, G.722 3-party at 16 kHz, a PCMU conference with one G.722 leg at 16 kHz or one opus leg at 48 kHz); far ends in a child process, 50 packets/s per leg; overruns from the worker tick statistics (engine.getWorkerStats)',
  step_seconds: seconds,
  criteria: {
    tick_overruns: 0,
    tick_budget_ms: 20,
    tick_late_threshold_ms: 10,
    max_loss_pct: MAX_LOSS_PCT,
    max_added_jitter_ms_p99: MAX_ADDED_JITTER_MS,
  },
  layouts: results,
});
