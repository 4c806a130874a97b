#!/usr/bin/env node
// The tests use real system tools: sipp as the SIP peer, ffmpeg for ogg/mp3 recordings, openssl
// for the TLS transport's test certificate, baresip as an independent SIP phone, chromium as the
// browser that drives the /console page, tshark to check that encrypted calls put no plain RTP on
// the wire, PostgreSQL and Kamailio for a cluster of nodes. A missing tool is installed when
// this machine allows it (root + apt-get); otherwise the run fails naming the Debian package — it
// never skips tests silently.
import { spawnSync } from 'node:child_process';

const TOOLS = [
  { command: 'sipp', pkg: 'sip-tester' },
  { command: 'ffmpeg', pkg: 'ffmpeg' },
  { command: 'openssl', pkg: 'openssl' },
  { command: 'baresip', pkg: 'baresip-core' },
  { command: 'chromium', pkg: 'chromium' },
  { command: 'tshark', pkg: 'tshark' },
  // A throwaway PostgreSQL server for the shared-store tests (initdb/pg_ctl live beside it).
  { command: 'pg_ctlcluster', pkg: 'postgresql' },
  // The SIP edge of the cluster tests (installed in /usr/sbin).
  { command: 'kamailio', pkg: 'kamailio' },
  { command: 'nft', pkg: 'nftables' },
  { command: 'ip', pkg: 'iproute2' },
];

const has = (command) => spawnSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' }).status === 0;
const missing = TOOLS.filter((t) => !has(t.command));
if (missing.length === 0) process.exit(0);

const packages = missing.map((t) => t.pkg);
const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
if (isRoot && has('apt-get')) {
  console.error(`installing ${packages.join(' ')} for the tests`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const update = spawnSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
  const install = update.status === 0 && spawnSync('apt-get', ['install', '-y', '-qq', ...packages], { stdio: 'inherit', env });
  if (install && install.status === 0 && missing.every((t) => has(t.command))) process.exit(0);
}
console.error(`missing tools for the tests: ${missing.map((t) => t.command).join(', ')}`);
console.error(`install them with: apt-get install ${packages.join(' ')}`);
process.exit(1);
