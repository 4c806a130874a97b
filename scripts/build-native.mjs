#!/usr/bin/env node
// Compiles the native libraries with node-gyp, offline: the media package's socket hub
// (packages/media/native) and the signalling package's SIP UDP socket (packages/signalling/native).
// The Node headers come from the local installation (npm_config_nodedir, else /usr or /usr/local when
// they hold them). A machine without a compiler still runs: the media engine falls back to dgram
// sockets and says so in its start-up log line (`rtpSockets: "dgram"`), and SIP UDP transports to
// dgram (`sipSockets: "dgram"`).
//   node scripts/build-native.mjs             rebuild
//   node scripts/build-native.mjs --if-stale  only what is missing or older than its sources
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const PACKAGES = join(dirname(fileURLToPath(import.meta.url)), '..', 'packages');
const ADDONS = [
  { dir: join(PACKAGES, 'media', 'native'), name: 'rtp_sockets', fallback: 'media legs use dgram' },
  { dir: join(PACKAGES, 'signalling', 'native'), name: 'sip_udp', fallback: 'SIP UDP transports use dgram' },
];

function stale({ dir, name }) {
  const addon = join(dir, 'build', 'Release', `${name}.node`);
  if (!existsSync(addon)) return true;
  const built = statSync(addon).mtimeMs;
  return [`${name}.c`, 'binding.gyp'].some((source) => statSync(join(dir, source)).mtimeMs > built);
}

/** npm hands its bundled node-gyp to scripts it runs; otherwise it sits beside npm in Node's prefix. */
function nodeGyp() {
  const candidates = [
    process.env.npm_config_node_gyp,
    join(dirname(process.execPath), '..', 'lib', 'node_modules', 'npm', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js'),
  ];
  return candidates.find((candidate) => candidate !== undefined && existsSync(candidate));
}

function nodeDir() {
  if (process.env.npm_config_nodedir) return process.env.npm_config_nodedir;
  return ['/usr', '/usr/local'].find((prefix) => existsSync(join(prefix, 'include', 'node', 'node_api.h')));
}

const wanted = ADDONS.filter((addon) => !process.argv.includes('--if-stale') || stale(addon));
if (wanted.length === 0) process.exit(0);
const gyp = nodeGyp();
const dir = nodeDir();
if (gyp === undefined || dir === undefined) {
  const why = gyp === undefined ? 'node-gyp not found' : 'no local Node headers';
  for (const addon of wanted) console.warn(`native ${addon.name} not built (${why}); ${addon.fallback}`);
  process.exit(0);
}
for (const addon of wanted) {
  const result = spawnSync(process.execPath, [gyp, 'rebuild', `--nodedir=${dir}`], { cwd: addon.dir, encoding: 'utf8' });
  if (result.status !== 0) {
    console.warn(`native ${addon.name} not built; ${addon.fallback}:\n${(result.stderr ?? '').split('\n').slice(-15).join('\n')}`);
  }
}
