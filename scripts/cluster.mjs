#!/usr/bin/env node
// A Switchboard cluster on this machine: PostgreSQL (a throwaway server), N nodes sharing it as
// their store, each on its own loopback address, and Kamailio in front as the one SIP address.
//
//   npm run cluster -- up [--nodes N] [--subnet 127.0.0] [--dir DIR] [--node-timeout SECONDS]
//   npm run cluster -- down [--dir DIR]
//   npm run cluster -- start-node --name NODE [--dir DIR]
//   npm run cluster -- conf [--nodes N] [--subnet 127.0.0] --dir DIR --postgres URL [--app-root /app]
//
// `conf` only writes the files `up` would (DIR/nodeI/conf, DIR/kamailio.cfg, DIR/dispatcher.list),
// with paths as seen inside the containers of docker-compose.yml's `cluster` profile.
//
// `up` prints one JSON line: {"sip","ari":[…],"nodes":[{"name","pid","sip","ari"}],"users":[…]}
// and records every process it started in DIR/state.json; `down` stops them by pid and deletes
// DIR. Addresses: the edge on <subnet>.10:5060, node i on <subnet>.(10+i) (SIP 5060, HTTP 8088).
// `start-node` starts one node of a cluster that is up again, under its name, with the configuration
// `up` wrote (after it died or was killed); it records the new pid in state.json, so `down` stops it,
// and prints {"name","pid"}.
// Missing Debian packages (kamailio, postgresql) are installed when running as root.
import { spawn, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, openSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = join(dirname(fileURLToPath(import.meta.url)), '..');
const SIP_PORT = 5060;
const HTTP_PORT = 8088;
const ARI_USER = 'cluster';
const ARI_PASSWORD = 'cluster-secret';
const USERS = [
  { name: 'alice', password: 'wonderland' },
  { name: 'bob', password: 'builder' },
  { name: 'carol', password: 'singer' },
];
const START_TIMEOUT_MS = 30_000;

function option(name, fallback) {
  const index = process.argv.indexOf(`--${name}`);
  return index > 0 && index + 1 < process.argv.length ? process.argv[index + 1] : fallback;
}

const command = process.argv[2];
const dir = option('dir', join(tmpdir(), 'switchboard-cluster'));
const stateFile = join(dir, 'state.json');

const has = (cmd) => spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;

function ensurePackages() {
  const missing = [];
  if (!has('kamailio') && !existsSync('/usr/sbin/kamailio')) missing.push('kamailio');
  if (!has('pg_ctlcluster')) missing.push('postgresql');
  if (missing.length === 0) return;
  if (process.getuid?.() !== 0 || !has('apt-get')) throw new Error(`missing Debian packages: apt-get install ${missing.join(' ')}`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  spawnSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
  const install = spawnSync('apt-get', ['install', '-y', '-qq', ...missing], { stdio: 'inherit', env });
  if (install.status !== 0) throw new Error(`apt-get install ${missing.join(' ')} failed`);
}

function kamailioModuleDir() {
  for (const candidate of [
    '/usr/lib/x86_64-linux-gnu/kamailio/modules',
    '/usr/lib/aarch64-linux-gnu/kamailio/modules',
    '/usr/lib/kamailio/modules',
  ]) {
    if (existsSync(join(candidate, 'dispatcher.so'))) return candidate;
  }
  throw new Error('Kamailio modules not found (Debian package kamailio)');
}

/** Whether process `pid` is running (a zombie, killed and not yet reaped, is not). */
function running(pid) {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  const stat = `/proc/${pid}/stat`;
  // The state follows the parenthesised command name: "pid (comm) S …".
  return !existsSync(stat) || !/\) Z /.test(readFileSync(stat, 'utf8'));
}

/** Waits until `file` contains `text` past its first `from` bytes, or the process `pid` ended, or the time is up. */
async function waitForText(file, text, pid, what, from = 0) {
  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (existsSync(file) && readFileSync(file).subarray(from).toString('utf8').includes(text)) return;
    if (!running(pid)) throw new Error(`${what} exited while starting; see ${file}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${what} did not start within ${START_TIMEOUT_MS / 1000} s; see ${file}`);
}

/** Debian's Kamailio module directory in the `cluster` profile's edge container (amd64). */
const CONTAINER_MODULE_DIR = '/usr/lib/x86_64-linux-gnu/kamailio/modules';

/** The node count and loopback subnet options, checked. */
function topology() {
  const count = Number(option('nodes', '3'));
  if (!Number.isInteger(count) || count < 1 || count > 20) throw new Error('--nodes takes 1 to 20');
  const subnet = option('subnet', '127.0.0');
  if (!/^127\.\d{1,3}\.\d{1,3}$/.test(subnet)) throw new Error('--subnet takes the first three parts of a loopback address, e.g. 127.0.0');
  const nodes = Array.from({ length: count }, (_, i) => {
    const address = `${subnet}.${11 + i}`;
    return { name: `node${i + 1}`, index: i + 1, address, sip: `${address}:${SIP_PORT}`, ari: `http://${address}:${HTTP_PORT}/ari` };
  });
  return { edge: `${subnet}.10`, nodes };
}

/** Kamailio's configuration from conf/cluster/kamailio.cfg and its dispatcher list (one line per node). */
function edgeConf({ edge, nodes, moduleDir, dispatcherList }) {
  const template = readFileSync(join(REPO, 'conf/cluster/kamailio.cfg'), 'utf8');
  return {
    cfg: template
      .replaceAll('@EDGE_ADDRESS@', edge)
      .replaceAll('@EDGE_PORT@', String(SIP_PORT))
      .replaceAll('@MODULE_DIR@', moduleDir)
      .replaceAll('@DISPATCHER_LIST@', dispatcherList),
    list: nodes.map((n) => `1 sip:${n.sip}\n`).join(''),
  };
}

/** switchboard.conf [cluster]: every node's API root, and the secret the nodes forward requests with. */
function clusterSection(nodes, secret) {
  // --node-timeout: seconds without a heartbeat before the others clear a node ([cluster] node_timeout).
  const timeout = option('node-timeout', undefined);
  if (timeout !== undefined && !/^\d+$/.test(timeout)) throw new Error('--node-timeout takes whole seconds');
  const nodeTimeout = timeout === undefined ? '' : `node_timeout = ${timeout}\n`;
  return `\n[cluster]\nsecret = ${secret}\n${nodeTimeout}${nodes.map((n) => `node = ${n.name}, ${n.ari}\n`).join('')}`;
}

function writeConf() {
  const url = option('postgres', undefined);
  if (!url || !process.argv.includes('--dir')) throw new Error('conf needs --dir DIR and --postgres URL');
  const appRoot = option('app-root', '/app');
  const { edge, nodes } = topology();
  const cluster = clusterSection(nodes, randomBytes(24).toString('hex'));
  for (const node of nodes) {
    nodeConf(join(dir, node.name, 'conf'), {
      ...node,
      url,
      cluster,
      sounds: join(appRoot, 'sounds'),
      recordings: join(appRoot, 'recordings'),
    });
  }
  const { cfg, list } = edgeConf({ edge, nodes, moduleDir: CONTAINER_MODULE_DIR, dispatcherList: '/etc/kamailio-cluster/dispatcher.list' });
  writeFileSync(join(dir, 'kamailio.cfg'), cfg);
  writeFileSync(join(dir, 'dispatcher.list'), list);
  console.log(JSON.stringify({ dir, sip: `${edge}:${SIP_PORT}`, nodes: nodes.map((n) => ({ name: n.name, sip: n.sip, ari: n.ari })) }));
}

function nodeConf(confDir, { name, address, index, url, cluster, sounds, recordings }) {
  mkdirSync(confDir, { recursive: true });
  const phones = USERS.map(
    (u) =>
      `[${u.name}]\ntype = endpoint\ncontext = from-internal\ndisallow = all\nallow = ulaw,alaw\nauth = ${u.name}-auth\naors = ${u.name}\n\n` +
      `[${u.name}-auth]\ntype = auth\nauth_type = userpass\nusername = ${u.name}\npassword = ${u.password}\n\n` +
      `[${u.name}]\ntype = aor\nmax_contacts = 1\nremove_existing = yes\n`,
  );
  // 2000 ports a node (about 500 relayed calls, two RTP/RTCP pairs each); 20 nodes end below 61000.
  const rtpStart = 20000 + index * 2000;
  const files = {
    'switchboard.conf': `[options]\nsystemname = ${name}\nmediaworkers = 1\n\n[directories]\nsounds = ${sounds}\nrecordings = ${recordings}\n\n[store]\nbackend = postgres\nurl = ${url}\n${cluster}`,
    'http.conf': `[general]\nenabled = yes\nbindaddr = ${address}\nbindport = ${HTTP_PORT}\n`,
    'ari.conf': `[general]\nenabled = yes\n\n[${ARI_USER}]\ntype = user\npassword = ${ARI_PASSWORD}\nread_only = no\n`,
    'pjsip.conf': `[transport-udp]\ntype = transport\nprotocol = udp\nbind = ${address}:${SIP_PORT}\n\n${phones.join('\n')}`,
    'rtp.conf': `[general]\nrtpstart = ${rtpStart}\nrtpend = ${rtpStart + 1998}\n`,
    'extensions.conf':
      '[general]\n\n[globals]\n\n[from-internal]\n' +
      'exten => 100,1,App(cluster)\n same => n,Hangup()\n' +
      'exten => 200,1,Answer()\n same => n,Playback(hello-world)\n same => n,Hangup()\n' +
      'exten => 300,1,Answer()\n same => n,Hangup()\n' +
      'exten => 400,1,Answer()\n same => n,Wait(20)\n same => n,Hangup()\n' +
      USERS.map((u) => `exten => ${u.name},1,Dial(SIP/${u.name},30)\n same => n,Hangup()\n`).join('') +
      // talk-<name>: the same call, with a beep to the callee on answer, so media starts at once.
      USERS.map((u) => `exten => talk-${u.name},1,Dial(SIP/${u.name},30,A(beep))\n same => n,Hangup()\n`).join(''),
  };
  for (const [file, text] of Object.entries(files)) writeFileSync(join(confDir, file), text);
}

async function up() {
  if (existsSync(stateFile)) throw new Error(`a cluster is already up (${stateFile}); run: npm run cluster -- down`);
  const { edge, nodes: planned } = topology();
  ensurePackages();
  const { startTemporaryPostgres } = await import(join(REPO, 'packages/core/dist/store/postgres/temporary-postgres.js'));
  mkdirSync(dir, { recursive: true });
  const state = { dir, pids: [], postgres: undefined };
  const save = () => writeFileSync(stateFile, `${JSON.stringify(state, null, 2)}\n`);
  save();
  try {
    const postgres = await startTemporaryPostgres();
    const postmaster = Number(readFileSync(join(postgres.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    state.postgres = { pid: postmaster, root: dirname(postgres.dataDir), url: postgres.url };
    save();

    const nodes = [];
    const cluster = clusterSection(planned, randomBytes(24).toString('hex'));
    for (const node of planned) {
      const { name } = node;
      const home = join(dir, name);
      nodeConf(join(home, 'conf'), {
        ...node,
        url: postgres.url,
        cluster,
        sounds: join(REPO, 'sounds'),
        recordings: join(home, 'recordings'),
      });
      await startNode(name, (pid) => {
        state.pids.push({ name, pid });
        save();
      });
      nodes.push({ name, pid: state.pids.at(-1).pid, sip: node.sip, ari: node.ari });
    }

    const dispatcherList = join(dir, 'dispatcher.list');
    const { cfg, list } = edgeConf({ edge, nodes, moduleDir: kamailioModuleDir(), dispatcherList });
    writeFileSync(dispatcherList, list);
    const cfgFile = join(dir, 'kamailio.cfg');
    writeFileSync(cfgFile, cfg);
    const kamailioLog = join(dir, 'kamailio.log');
    const kamailio = spawn('kamailio', ['-f', cfgFile, '-DD', '-E', '-Y', dir, '-w', dir], {
      detached: true,
      stdio: ['ignore', openSync(kamailioLog, 'a'), openSync(kamailioLog, 'a')],
    });
    kamailio.unref();
    state.pids.push({ name: 'kamailio', pid: kamailio.pid });
    save();
    await waitForText(kamailioLog, 'INFO: <core>', kamailio.pid, 'kamailio');
    // Give the dispatcher its first OPTIONS round, so every node is known alive.
    await new Promise((resolve) => setTimeout(resolve, 2500));
    console.log(
      JSON.stringify({
        sip: `${edge}:${SIP_PORT}`,
        ari: nodes.map((n) => n.ari),
        ari_user: `${ARI_USER}:${ARI_PASSWORD}`,
        nodes,
        users: USERS,
        postgres: postgres.url,
      }),
    );
  } catch (err) {
    down();
    throw err;
  }
}

/**
 * Starts node `name` from DIR/name (its configuration, its data directory; the log appended to),
 * detached in a process group of its own. `spawned` is told the pid before the wait, so that a
 * node that fails to start is still stopped by `down`.
 */
async function startNode(name, spawned) {
  const home = join(dir, name);
  const log = join(home, 'switchboard.log');
  const from = existsSync(log) ? statSync(log).size : 0;
  const child = spawn(
    process.execPath,
    [join(REPO, 'packages/server/dist/main.js'), '--conf', join(home, 'conf'), '--data', join(home, 'var')],
    { detached: true, stdio: ['ignore', openSync(log, 'a'), openSync(log, 'a')] },
  );
  child.unref();
  spawned(child.pid);
  await waitForText(log, 'switchboard started', child.pid, name, from);
}

/** `start-node`: one node of the cluster that is up, started again under its name. */
async function startNodeAgain() {
  if (!existsSync(stateFile)) throw new Error(`no cluster is up (${stateFile} not found)`);
  const name = option('name', undefined);
  const state = JSON.parse(readFileSync(stateFile, 'utf8'));
  const entry = state.pids.find((p) => p.name === name);
  if (name === undefined || name === 'kamailio' || entry === undefined || !existsSync(join(dir, name, 'conf'))) {
    const nodes = state.pids.map((p) => p.name).filter((n) => n !== 'kamailio');
    throw new Error(`start-node needs --name and one of the cluster's nodes (${nodes.join(', ')})`);
  }
  if (running(entry.pid)) throw new Error(`${name} is still running (pid ${entry.pid})`);
  await startNode(name, (pid) => {
    entry.pid = pid;
    writeFileSync(stateFile, `${JSON.stringify(state, null, 2)}\n`);
  });
  console.log(JSON.stringify({ name, pid: entry.pid }));
}

function down() {
  if (!existsSync(stateFile)) {
    console.error(`no cluster is up (${stateFile} not found)`);
    return;
  }
  const state = JSON.parse(readFileSync(stateFile, 'utf8'));
  for (const { name, pid } of [...state.pids].reverse()) {
    try {
      // Kamailio and the nodes run in process groups of their own (detached): end the group.
      process.kill(-pid, 'SIGTERM');
    } catch {
      console.error(`${name} (pid ${pid}) was not running`);
    }
  }
  if (state.postgres) {
    try {
      // SIGQUIT is PostgreSQL's immediate shutdown.
      process.kill(state.postgres.pid, 'SIGQUIT');
    } catch {
      console.error(`postgres (pid ${state.postgres.pid}) was not running`);
    }
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline && existsSync(join(state.postgres.root, 'data', 'postmaster.pid'))) spawnSync('sleep', ['0.1']);
    rmSync(state.postgres.root, { recursive: true, force: true });
  }
  rmSync(state.dir, { recursive: true, force: true });
}

try {
  if (command === 'up') await up();
  else if (command === 'down') down();
  else if (command === 'start-node') await startNodeAgain();
  else if (command === 'conf') writeConf();
  else {
    console.error(
      'usage: npm run cluster -- up [--nodes N] [--subnet 127.0.0] [--dir DIR] [--node-timeout S] | down [--dir DIR] | start-node --name NODE [--dir DIR] | conf [--nodes N] [--subnet 127.0.0] --dir DIR --postgres URL [--app-root /app]',
    );
    process.exitCode = 2;
  }
} catch (err) {
  console.error(`cluster: ${err instanceof Error ? err.message : String(err)}`);
  process.exitCode = 1;
}
