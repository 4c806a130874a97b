#!/usr/bin/env node
// Prints the functions with the most self time in a V8 .cpuprofile (from `node --cpu-prof`), with
// their share of the sampled time: `node bench/profile-summary.mjs <file.cpuprofile> [top]`.
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';

const [file, topArg] = process.argv.slice(2);
if (file === undefined) {
  console.error('usage: node bench/profile-summary.mjs <file.cpuprofile> [top]');
  process.exit(2);
}
const profile = JSON.parse(readFileSync(file, 'utf8'));
const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
const selfUs = new Map();
// timeDeltas[i] is the time before sample i; the sample's node gets it as self time.
profile.samples.forEach((id, i) => {
  selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0));
});
const byFunction = new Map();
let total = 0;
for (const [id, us] of selfUs) {
  const { callFrame } = nodes.get(id);
  const where = callFrame.url ? `${relative(process.cwd(), callFrame.url.replace('file://', ''))}:${callFrame.lineNumber + 1}` : '';
  const key = `${callFrame.functionName || '(anonymous)'} ${where}`.trim();
  byFunction.set(key, (byFunction.get(key) ?? 0) + us);
  total += us;
}
const rows = [...byFunction]
  .sort((a, b) => b[1] - a[1])
  .slice(0, Number(topArg ?? 25))
  .map(([fn, us]) => ({ function: fn, self_ms: Math.round(us / 1000), pct: Number(((100 * us) / total).toFixed(1)) }));
console.log(`${file}: ${Math.round(total / 1000)} ms sampled`);
console.table(rows);
