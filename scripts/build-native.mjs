#!/usr/bin/env node
// Compiles the media package's native socket hub (packages/media/native) with node-gyp, offline:
// the Node headers come from the local installation (npm_config_nodedir, else /usr or /usr/local
// when they hold them). A machine without a compiler still runs: the media engine falls back to
// dgram sockets and says so in its start-up log line (`rtpSockets: "dgram"`).
//   node scripts/build-native.mjs             rebuild
//   node scripts/build-native.mjs --if-stale  only when the addon is missing or older than its sources
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const NATIVE_DIR = join(dirname(fileURLToPath(import.meta.url)), '..', 'packages', 'media', 'native');
const ADDON = join(NATIVE_DIR, 'build', 'Release', 'rtp_sockets.node');
const SOURCES = ['rtp_sockets.c', 'binding.gyp'].map((name) => join(NATIVE_DIR, name));

function stale() {
  if (!existsSync(ADDON)) return true;
  const built = statSync(ADDON).mtimeMs;
  return SOURCES.some((source) => statSync(source).mtimeMs > built);
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

if (process.argv.includes('--if-stale') && !stale()) process.exit(0);
const gyp = nodeGyp();
const dir = nodeDir();
if (gyp === undefined || dir === undefined) {
  console.warn(
    `native RTP sockets not built (${gyp === undefined ? 'node-gyp not found' : 'no local Node headers'}); media legs use dgram`,
  );
  process.exit(0);
}
const result = spawnSync(process.execPath, [gyp, 'rebuild', `--nodedir=${dir}`], { cwd: NATIVE_DIR, encoding: 'utf8' });
if (result.status !== 0) {
  console.warn(`native RTP sockets not built; media legs use dgram:\n${(result.stderr ?? '').split('\n').slice(-15).join('\n')}`);
}
