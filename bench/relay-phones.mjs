// The phones of the relay benchmarks (sipp-relay.mjs, cluster-relay.mjs): the media far end in a
// child process (relay-far-end.mjs) and the media ports each call's sipp log names.
import { fork } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

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
export function loggedPorts(file, role, allowAddress) {
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
export function pairedCalls(callers, callees) {
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
