/**
 * End-to-end harness: writes a temporary configuration with free ports, starts the real
 * `switchboard` process, and runs real peers (sipp) against it.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const SIPP_DIR = join(REPO_ROOT, 'test', 'sipp');
export const API_USER = 'tester';
export const API_PASSWORD = 'secret-pass';

/** A port that was free a moment ago (TCP or UDP). */
export async function freePort(kind: 'tcp' | 'udp'): Promise<number> {
  if (kind === 'udp') {
    const socket = createSocket('udp4');
    await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
    const { port } = socket.address();
    await new Promise<void>((resolve) => socket.close(() => resolve()));
    return port;
  }
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port');
  return address.port;
}

/** Picks an RTP range unlikely to collide with other tests: 200 ports from a random even start. */
function rtpRange(): [number, number] {
  const start = 30000 + 2 * Math.floor(Math.random() * 10000);
  return [start, start + 200];
}

export interface ConfOptions {
  httpPort: number;
  sipPort: number;
  rtpStart: number;
  rtpEnd: number;
  /** Replaces the default test dialplan body of [from-internal]. */
  dialplan?: string;
  channelVars?: string[];
  /** Extra option lines for the [local-phone] endpoint of pjsip.conf (`allow = g722`, `tone_zone = uk`). */
  endpointLines?: string[];
  /** Further configuration files by name (`indications.conf`), written beside the others. */
  extraFiles?: Record<string, string>;
  /** Extra option lines for rtp.conf's [general] (`native_sockets = no`). */
  rtpLines?: string[];
}

export const DEFAULT_TEST_DIALPLAN = `
exten => 100,1,NoOp(application demo)
 same => n,App(demo,from-sip)
 same => n,Hangup()
exten => 200,1,Answer()
 same => n,Playback(hello-world)
 same => n,Hangup()
`;

/**
 * The `[transport-udp]` section of a test or benchmark server. SWITCHBOARD_SIP_NATIVE_SOCKET=no puts it on
 * Node's dgram (`native_socket = no`) instead of the native socket, to measure or test one against the other.
 */
export function udpTransportSection(sipPort: number): string {
  const dgram = process.env.SWITCHBOARD_SIP_NATIVE_SOCKET === 'no';
  return `[transport-udp]\ntype = transport\nprotocol = udp\nbind = 127.0.0.1:${sipPort}\n${dgram ? 'native_socket = no\n' : ''}`;
}

export function writeConf(dir: string, o: ConfOptions): void {
  mkdirSync(dir, { recursive: true });
  const files: Record<string, string> = {
    'switchboard.conf': `[options]\nsystemname = e2e\ndefaultlanguage = en\nmediaworkers = 1\n\n[directories]\nsounds = ${join(REPO_ROOT, 'sounds')}\nrecordings = ${join(dir, 'recordings')}\n`,
    'http.conf': `[general]\nenabled = yes\nbindaddr = 127.0.0.1\nbindport = ${o.httpPort}\n`,
    'ari.conf': `[general]\nenabled = yes\n${o.channelVars ? `channelvars = ${o.channelVars.join(',')}\n` : ''}\n[${API_USER}]\ntype = user\npassword = ${API_PASSWORD}\nread_only = no\n\n[reader]\ntype = user\npassword = reader-pass\nread_only = yes\n`,
    'pjsip.conf': `${udpTransportSection(o.sipPort)}\n[local-phone]\ntype = endpoint\ncontext = from-internal\ndisallow = all\nallow = ulaw,alaw\n${(o.endpointLines ?? []).map((line) => `${line}\n`).join('')}\n[local-phone]\ntype = identify\nendpoint = local-phone\nmatch = 127.0.0.1\n`,
    'rtp.conf': `[general]\nrtpstart = ${o.rtpStart}\nrtpend = ${o.rtpEnd}\n${(o.rtpLines ?? []).map((line) => `${line}\n`).join('')}`,
    'extensions.conf': `[general]\n\n[globals]\n\n[from-internal]\n${o.dialplan ?? DEFAULT_TEST_DIALPLAN}\n`,
    ...o.extraFiles,
  };
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text);
}

export interface RunningSwitchboard {
  httpPort: number;
  sipPort: number;
  baseUrl: string;
  confDir: string;
  dataDir: string;
  /** Every JSON log line the process wrote so far. */
  logs: Record<string, unknown>[];
  process: ChildProcess;
  /** Sends SIGTERM and resolves with the exit code and how long the exit took. */
  stop(): Promise<{ code: number | null; ms: number }>;
  /** Stops the process and starts it again on the same configuration and data directory. */
  restart(): Promise<void>;
}

export async function startSwitchboard(options: Partial<ConfOptions> = {}): Promise<RunningSwitchboard> {
  const root = mkdtempSync(join(tmpdir(), 'switchboard-e2e-'));
  const confDir = join(root, 'conf');
  const dataDir = join(root, 'var');
  const [rtpStart, rtpEnd] = rtpRange();
  const conf: ConfOptions = {
    httpPort: options.httpPort ?? (await freePort('tcp')),
    sipPort: options.sipPort ?? (await freePort('udp')),
    rtpStart: options.rtpStart ?? rtpStart,
    rtpEnd: options.rtpEnd ?? rtpEnd,
    ...(options.dialplan !== undefined ? { dialplan: options.dialplan } : {}),
    ...(options.channelVars !== undefined ? { channelVars: options.channelVars } : {}),
    ...(options.endpointLines !== undefined ? { endpointLines: options.endpointLines } : {}),
    ...(options.extraFiles !== undefined ? { extraFiles: options.extraFiles } : {}),
    ...(options.rtpLines !== undefined ? { rtpLines: options.rtpLines } : {}),
  };
  writeConf(confDir, conf);
  let launched = await launch(confDir, dataDir);
  const running: RunningSwitchboard = {
    httpPort: conf.httpPort,
    sipPort: conf.sipPort,
    baseUrl: `http://127.0.0.1:${conf.httpPort}`,
    confDir,
    dataDir,
    logs: launched.logs,
    process: launched.child,
    async stop() {
      const begin = Date.now();
      const code = await terminate(launched);
      rmSync(root, { recursive: true, force: true });
      return { code, ms: Date.now() - begin };
    },
    async restart() {
      await terminate(launched);
      launched = await launch(confDir, dataDir);
      running.logs = launched.logs;
      running.process = launched.child;
    },
  };
  return running;
}

interface Launched {
  child: ChildProcess;
  logs: Record<string, unknown>[];
  exited: Promise<number | null>;
}

async function terminate(launched: Launched): Promise<number | null> {
  if (launched.child.exitCode === null) launched.child.kill('SIGTERM');
  return launched.exited;
}

/** Starts the process on a conf and data directory and waits for 'switchboard started'. */
async function launch(confDir: string, dataDir: string): Promise<Launched> {
  // SWITCHBOARD_NODE_ARGS: extra node options for the server process, e.g. "--cpu-prof --cpu-prof-dir=/tmp/p"
  // to profile it under a benchmark (node refuses --cpu-prof in NODE_OPTIONS).
  const nodeArgs = (process.env.SWITCHBOARD_NODE_ARGS ?? '').split(' ').filter((arg) => arg !== '');
  // SWITCHBOARD_SERVER_ARGS: extra arguments for the server itself, e.g. "-p" (realtime priority) under a benchmark.
  const serverArgs = (process.env.SWITCHBOARD_SERVER_ARGS ?? '').split(' ').filter((arg) => arg !== '');
  const child = spawn(
    process.execPath,
    [...nodeArgs, join(REPO_ROOT, 'packages/server/dist/main.js'), '--conf', confDir, '--data', dataDir, ...serverArgs],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, SWITCHBOARD_LOG_LEVEL: process.env.SWITCHBOARD_LOG_LEVEL ?? 'info' },
    },
  );
  const logs: Record<string, unknown>[] = [];
  let stderr = '';
  let buffered = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const started = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`switchboard did not start in time\n${stderr}`)), 15000);
    child.stdout?.on('data', (chunk: Buffer) => {
      buffered += chunk.toString();
      let newline = buffered.indexOf('\n');
      while (newline >= 0) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        newline = buffered.indexOf('\n');
        try {
          const entry = JSON.parse(line) as Record<string, unknown>;
          logs.push(entry);
          if (process.env.SWITCHBOARD_TEST_ECHO) process.stderr.write(`${line}\n`);
          if (entry.msg === 'switchboard started') {
            clearTimeout(timer);
            resolve();
          }
        } catch {
          // Not every line has to be JSON (a crash trace, V8's --trace-gc lines). SWITCHBOARD_STDOUT_FILE
          // keeps them, e.g. with SWITCHBOARD_NODE_ARGS="--trace-gc-nvp" under a benchmark.
          if (process.env.SWITCHBOARD_STDOUT_FILE) appendFileSync(process.env.SWITCHBOARD_STDOUT_FILE, `${line}\n`);
        }
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`switchboard exited with ${code} before starting\n${stderr}`));
    });
  });
  await started;
  const exited = new Promise<number | null>((resolve) => {
    if (child.exitCode !== null) resolve(child.exitCode);
    else child.once('exit', (code) => resolve(code));
  });
  return { child, logs, exited };
}

export interface SippResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs one sipp scenario to completion (bounded by `timeoutSeconds`). */
export async function runSipp(
  scenario: string,
  target: { host: string; port: number },
  options: {
    service: string;
    keys?: Record<string, string | number>;
    calls?: number;
    rate?: number;
    timeoutSeconds?: number;
    extra?: string[];
    /** Runs sipp inside this network namespace (`ip netns exec`), as a phone on another network. */
    namespace?: string;
  },
): Promise<SippResult> {
  const localPort = await freePort('udp');
  const mediaPort = await freePort('udp');
  const args = [
    `${target.host}:${target.port}`,
    '-sf',
    join(SIPP_DIR, scenario),
    '-s',
    options.service,
    '-i',
    '127.0.0.1',
    '-p',
    String(localPort),
    '-mp',
    String(mediaPort),
    '-m',
    String(options.calls ?? 1),
    '-r',
    String(options.rate ?? 10),
    '-timeout',
    `${options.timeoutSeconds ?? 30}s`,
    '-timeout_error',
    '-nostdin',
  ];
  for (const [key, value] of Object.entries(options.keys ?? {})) args.push('-key', key, String(value));
  args.push(...(options.extra ?? []));
  const [command, commandArgs] =
    options.namespace === undefined ? ['sipp', args] : ['ip', ['netns', 'exec', options.namespace, 'sipp', ...args]];
  const child = spawn(command, commandArgs, { stdio: ['ignore', 'pipe', 'pipe'], cwd: tmpdir() });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (c: Buffer) => {
    stdout += c.toString();
  });
  child.stderr.on('data', (c: Buffer) => {
    stderr += c.toString();
  });
  const code = await new Promise<number | null>((resolve) => child.once('exit', (c) => resolve(c)));
  return { code, stdout, stderr };
}

export function basicAuth(user = API_USER, password = API_PASSWORD): string {
  return `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
}

/** The `switchboard` command of this checkout. */
const SWITCHBOARD_BIN = join(REPO_ROOT, 'packages/server/bin/switchboard.js');

/** Runs the `switchboard` command against a running test server's data directory (its control socket). */
export function switchboardCli(
  sb: RunningSwitchboard,
  args: string[],
  input?: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [SWITCHBOARD_BIN, '--data', sb.dataDir, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString();
    });
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(input ?? '');
  });
}
