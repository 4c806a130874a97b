/**
 * A bounded fuzzing run of this package's targets in the test suite (`npm run fuzz -- --minutes N`
 * runs them for longer). Fixed seeds keep it repeatable; the regression inputs run every time.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runFuzzTarget } from './engine.js';
import { coreFuzzTargets as targets } from './core-targets.js';

const BUDGET_MS = 2500;

describe('fuzz smoke run', () => {
  for (const [index, target] of targets.entries()) {
    it(`${target.name} survives ${BUDGET_MS} ms of generated and mutated input`, () => {
      const stats = runFuzzTarget(target, { timeMs: BUDGET_MS, seed: 1000 + index });
      assert.ok(stats.executions > target.regressions.length, `only ${stats.executions} inputs ran`);
    });
  }
});
