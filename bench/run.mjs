#!/usr/bin/env node
// Runs every benchmark in turn; each prints its figures and writes bench/results/<name>.json.
// `node bench/run.mjs sipp-call-rate media-relay` runs only the ones named.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const ALL = [
  'sipp-dialplan.mjs',
  'sipp-call-rate.mjs',
  'sipp-dial-rate.mjs',
  'sipp-overload.mjs',
  'sipp-register-rate.mjs',
  'sipp-register-memory.mjs',
  'sipp-bridged-calls.mjs',
  'sipp-relay.mjs',
  'relay-floor.mjs',
  'socket-relay.mjs',
  'media-relay.mjs',
  'worker-messages.mjs',
  'media-relay-srtp.mjs',
  'webrtc-relay.mjs',
  'media-mixing.mjs',
  'media-transcode.mjs',
  'api-latency.mjs',
  'api-floor.mjs',
  'api-serialise.mjs',
  'srtp-crypto.mjs',
  'pg-notify-fanout.mjs',
  'cluster-call-rate.mjs',
  'cluster-relay.mjs',
  'cluster-events.mjs',
  'cluster-journal.mjs',
];
const wanted = process.argv.slice(2).map((name) => (name.endsWith('.mjs') ? name : `${name}.mjs`));
const unknown = wanted.filter((name) => !ALL.includes(name));
if (unknown.length > 0) {
  console.error(`unknown benchmark(s): ${unknown.join(', ')}; known: ${ALL.join(', ')}`);
  process.exit(2);
}
for (const file of wanted.length > 0 ? wanted : ALL) {
  console.log(`\n== ${file}`);
  const run = spawnSync(process.execPath, [fileURLToPath(new URL(file, import.meta.url))], { stdio: 'inherit' });
  if (run.status !== 0) process.exit(run.status ?? 1);
}
