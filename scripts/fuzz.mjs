#!/usr/bin/env node
// Runs every fuzz target (packages/*/src/fuzz/*-targets.ts, compiled) for a time budget:
//   npm run fuzz -- --minutes 10 [--target sip-parser] [--seed 42]
// The budget is shared equally by the targets, in rounds of at most a minute each, so a long run
// keeps coming back to every target. An input that fails is written to fuzz-crashes/ and the run
// stops with status 1; add it to the target's `regressions` once fixed.
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: { minutes: { type: 'string', default: '1' }, target: { type: 'string' }, seed: { type: 'string' } },
});
const minutes = Number(values.minutes);
if (!(minutes > 0)) {
  console.error('--minutes must be a positive number');
  process.exit(2);
}

const { runFuzzTarget, FuzzFailure } = await import('../packages/core/dist/fuzz/engine.js');
const targets = [
  ...(await import('../packages/core/dist/fuzz/core-targets.js')).coreFuzzTargets,
  ...(await import('../packages/signalling/dist/fuzz/signalling-targets.js')).signallingFuzzTargets,
  ...(await import('../packages/api/dist/fuzz/api-targets.js')).apiFuzzTargets,
].filter((t) => values.target === undefined || t.name.includes(values.target));
if (targets.length === 0) {
  console.error(`no target matches ${values.target}`);
  process.exit(2);
}

const totalMs = minutes * 60_000;
const perTargetMs = totalMs / targets.length;
const roundMs = Math.min(60_000, perTargetMs);
const rounds = Math.max(1, Math.round(perTargetMs / roundMs));
let seed = values.seed === undefined ? Date.now() >>> 0 : Number(values.seed);
console.log(`fuzzing ${targets.length} targets for ${minutes} min (seed ${seed})`);
const totals = new Map(targets.map((t) => [t.name, 0]));
for (let round = 0; round < rounds; round++) {
  for (const target of targets) {
    try {
      const stats = runFuzzTarget(target, { timeMs: roundMs, seed: seed++ });
      totals.set(target.name, totals.get(target.name) + stats.executions);
    } catch (err) {
      if (!(err instanceof FuzzFailure)) throw err;
      const dir = 'fuzz-crashes';
      mkdirSync(dir, { recursive: true });
      const file = join(dir, `${target.name.replace(/\//g, '-')}-${createHash('sha1').update(err.input).digest('hex').slice(0, 12)}.bin`);
      writeFileSync(file, err.input);
      console.error(`${target.name}: ${err.message}\ninput written to ${file}`);
      console.error(err.cause);
      process.exit(1);
    }
  }
}
for (const [name, executions] of totals) console.log(`${name}: ${executions} inputs, no failure`);
