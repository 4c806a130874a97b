#!/usr/bin/env node
// Runs the unit tests (compiled, beside each package) and the end-to-end tests (test/dist) with
// node's built-in test runner. Node 20 has no glob support in `--test`, so the files are listed here.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

const args = new Set(process.argv.slice(2));
const wantUnit = !args.has('--e2e');
const wantE2e = !args.has('--unit');

function findTests(dir) {
  if (!existsSync(dir)) return [];
  const found = [];
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) found.push(...findTests(path));
    else if (entry.endsWith('.test.js')) found.push(path);
  }
  return found.sort();
}

const files = [];
if (wantUnit) {
  for (const pkg of readdirSync('packages')) files.push(...findTests(join('packages', pkg, 'dist')));
}
if (wantE2e) files.push(...findTests(join('test', 'dist')));

if (files.length === 0) {
  console.error('no test files found: did the build run?');
  process.exit(1);
}

const check = spawnSync(process.execPath, ['scripts/ensure-tools.mjs'], { stdio: 'inherit' });
if (check.status !== 0) process.exit(check.status ?? 1);

// A test file whose tests are done but whose handles stay open (a failed test skipping its
// cleanup) would otherwise hold the run forever; and no single test may take 10 minutes.
const result = spawnSync(
  process.execPath,
  ['--test', '--test-concurrency=1', '--test-reporter=spec', '--test-force-exit', '--test-timeout=600000', ...files],
  { stdio: 'inherit' },
);
process.exit(result.status ?? 1);
