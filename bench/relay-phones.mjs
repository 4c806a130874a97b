// The phones of the relay benchmarks (sipp-relay.mjs, cluster-relay.mjs): the media far end in a
// child process (relay-far-end.mjs), the sipp callers and callee, and the media ports each call's
// sipp log names.
import { fork } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { runSipp } from '../test/dist/harness.js';
import { sleep } from './common.mjs';

/** Starts relay-far-end.mjs; `open(n)` binds a caller and a callee socket per call, `run` measures. */
export function startRelayFarEnd() {
  const child = fork(fileURLToPath(new URL('./relay-far-end.mjs', import.meta.url)), [], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const next = () =>
    new Promise((resolve, reject) => {
      const exited = (code) => reject(new Error(`relay far end exited with ${code}`));
      child.once('exit', exited);
      child.once('message', (message) => {
        child.off('exit', exited);
        resolve(message);
      });
    });
  const ready = next();
  return ready.then(() => ({
    open(calls) {
      const reply = next();
      child.send({ cmd: 'open', calls });
      return reply.then((m) => m.ports);
    },
    run(calls, runSeconds, settleMs) {
      const reply = next();
      child.send({ cmd: 'run', calls, seconds: runSeconds, settleMs });
      return reply;
    },
    exit() {
      child.send({ cmd: 'exit' });
    },
  }));
}

/**
 * "<role> <number> <server addr> <server port> <own port>" lines of a sipp -trace_logs file, by call
 * number. `allowAddress` says which media addresses a server may offer (a benchmark on loopback
 * refuses anything else rather than send RTP elsewhere).
 */
function loggedPorts(file, role, allowAddress) {
  const ports = new Map();
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return ports;
  }
  for (const line of text.split('\n')) {
    const [who, number, address, serverPort, ownPort] = line.trim().split(' ');
    if (who !== role) continue;
    if (!allowAddress(address)) throw new Error(`the server offered media on ${address}`);
    ports.set(number, { host: address, server: Number(serverPort), own: Number(ownPort) });
  }
  return ports;
}

/** The calls both sides logged, as relay-far-end.mjs `run` takes them. */
function pairedCalls(callers, callees) {
  return [...callers]
    .filter(([number]) => callees.has(number))
    .map(([number, c]) => {
      const callee = callees.get(number);
      return { callerPort: c.own, a: c.server, aHost: c.host, calleePort: callee.own, b: callee.server, bHost: callee.host };
    });
}

/**
 * A free UDP port on 127.0.0.1 below the ephemeral range, for a sipp that binds it (and, for its
 * media, the ports after it) while the far end holds hundreds of sockets on ephemeral ports: a port
 * chosen from there could be taken between the choice and sipp's bind.
 */
export async function phonePort() {
  for (let attempt = 0; attempt < 50; attempt++) {
    const port = 12000 + Math.floor(Math.random() * 3000);
    const socket = createSocket('udp4');
    const bound = await new Promise((resolve) => {
      socket.once('error', () => resolve(false));
      socket.bind(port, '127.0.0.1', () => resolve(true));
    });
    await new Promise((resolve) => socket.close(resolve));
    if (bound) return port;
  }
  throw new Error('no free UDP port in 12000-14999');
}

/**
 * Places `n` relayed calls: bob's sipp (uas-relay-answer-hold.xml on `bobPort`) answers, the caller's
 * sipp (`caller.scenario` to `caller.service`, with `caller.keys` and `caller.extra`) calls at `rate`
 * per second and holds each call long enough for set-up plus `holdSeconds`. Every call's SDP names
 * its own far-end sockets (`ports`, from `open`). Resolves once both sides logged every call and
 * `channelCount()` shows two channels a call, or the set-up budget ran out: `calls` (for the far
 * end's `run`), whether all are up, the wall time the set-up took, and both sipp runs to await.
 * `beforeCaller()` runs just before the caller starts (to sample CPU over the set-up).
 */
export async function placeRelayCalls({
  target,
  n,
  rate,
  holdSeconds,
  slackMs,
  bobPort,
  ports,
  caller,
  allowAddress,
  channelCount,
  beforeCaller,
}) {
  const logDir = mkdtempSync(join(tmpdir(), 'relay-calls-'));
  const callerLog = join(logDir, 'caller.log');
  const calleeLog = join(logDir, 'callee.log');
  writeFileSync(join(logDir, 'caller.csv'), `SEQUENTIAL\n${ports.map(([p]) => `${p};`).join('\n')}\n`);
  writeFileSync(join(logDir, 'callee.csv'), `SEQUENTIAL\n${ports.map(([, p]) => `${p};`).join('\n')}\n`);
  const setupBudgetMs = (1000 * n) / rate + slackMs;
  const holdMs = Math.round(setupBudgetMs + holdSeconds * 1000 + 1000);
  const sippSeconds = Math.ceil((holdMs + (1000 * n) / rate) / 1000) + 10;
  const trace = (role, log) => ['-l', String(n + 10), '-inf', join(logDir, `${role}.csv`), '-trace_logs', '-log_file', log];
  const callee = runSipp('uas-relay-answer-hold.xml', target, {
    service: 'bob',
    calls: n,
    timeoutSeconds: sippSeconds + 2,
    extra: ['-p', String(bobPort), '-mp', String(await phonePort()), ...trace('callee', calleeLog)],
  });
  await sleep(300);
  await beforeCaller?.();
  const setupStart = performance.now();
  const calling = runSipp(caller.scenario, target, {
    service: caller.service,
    calls: n,
    rate,
    timeoutSeconds: sippSeconds,
    keys: caller.keys,
    extra: ['-mp', String(await phonePort()), ...(caller.extra ?? []), '-d', String(holdMs), ...trace('caller', callerLog)],
  });
  let calls = [];
  let channelsUp = 0;
  while (performance.now() - setupStart < setupBudgetMs) {
    calls = pairedCalls(loggedPorts(callerLog, 'caller', allowAddress), loggedPorts(calleeLog, 'callee', allowAddress));
    if (calls.length === n) {
      channelsUp = await channelCount();
      if (channelsUp === 2 * n) break;
    }
    await sleep(100);
  }
  const setupSeconds = (performance.now() - setupStart) / 1000;
  const allUp = calls.length === n && channelsUp === 2 * n;
  if (!allUp) console.error(`${n} calls: only ${calls.length} paired, ${channelsUp} channels`);
  const finished = Promise.all([calling, callee]).finally(() => rmSync(logDir, { recursive: true, force: true }));
  return { calls, allUp, setupSeconds, finished };
}
