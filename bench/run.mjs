#!/usr/bin/env node
// Runs every benchmark in turn; each prints its figures and writes bench/results/<name>.json.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const benchmarks = ['sipp-dialplan.mjs'];
for (const file of benchmarks) {
  console.log(`\n== ${file}`);
  const run = spawnSync(process.execPath, [fileURLToPath(new URL(file, import.meta.url))], { stdio: 'inherit' });
  if (run.status !== 0) process.exit(run.status ?? 1);
}
