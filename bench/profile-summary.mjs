#!/usr/bin/env node
// Prints the functions with the most time in a V8 .cpuprofile (from `node --cpu-prof`), with their
// share of the sampled time: `node bench/profile-summary.mjs <file.cpuprofile> [top] [--inclusive]`.
// By default the time is self time (the function was on top of the stack); with --inclusive it is
// the time the function was anywhere on the stack (counted once per sample, so recursion does not
// count twice), which shows what a whole step (a request, an event's delivery) costs.
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';

const args = process.argv.slice(2);
const inclusive = args.includes('--inclusive');
const [file, topArg] = args.filter((a) => a !== '--inclusive');
if (file === undefined) {
  console.error('usage: node bench/profile-summary.mjs <file.cpuprofile> [top] [--inclusive]');
  process.exit(2);
}
const profile = JSON.parse(readFileSync(file, 'utf8'));
const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
const parentOf = new Map();
for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);

const keyOf = (id) => {
  const { callFrame } = nodes.get(id);
  const where = callFrame.url ? `${relative(process.cwd(), callFrame.url.replace('file://', ''))}:${callFrame.lineNumber + 1}` : '';
  return `${callFrame.functionName || '(anonymous)'} ${where}`.trim();
};

// timeDeltas[i] is the time before sample i; the sample's node (and, inclusive, its callers) get it.
const timeById = new Map();
let total = 0;
profile.samples.forEach((id, i) => {
  const us = profile.timeDeltas[i] ?? 0;
  timeById.set(id, (timeById.get(id) ?? 0) + us);
  total += us;
});
const byFunction = new Map();
for (const [id, us] of timeById) {
  if (!inclusive) {
    const key = keyOf(id);
    byFunction.set(key, (byFunction.get(key) ?? 0) + us);
    continue;
  }
  const seen = new Set();
  for (let at = id; at !== undefined; at = parentOf.get(at)) {
    const key = keyOf(at);
    if (seen.has(key)) continue;
    seen.add(key);
    byFunction.set(key, (byFunction.get(key) ?? 0) + us);
  }
}
const rows = [...byFunction]
  .sort((a, b) => b[1] - a[1])
  .slice(0, Number(topArg ?? 25))
  .map(([fn, us]) => ({
    function: fn,
    [inclusive ? 'total_ms' : 'self_ms']: Math.round(us / 1000),
    pct: Number(((100 * us) / total).toFixed(1)),
  }));
console.log(`${file}: ${Math.round(total / 1000)} ms sampled${inclusive ? ' (inclusive time)' : ''}`);
console.table(rows);
