#!/usr/bin/env node
// Where a running server allocates: attaches to its inspector (start it with
// SWITCHBOARD_NODE_ARGS="--inspect=127.0.0.1:9229" under any benchmark), samples allocations with V8's heap
// profiler for a while, and prints the functions that allocated the most bytes, by self size and by file.
//
//   node bench/alloc-profile.mjs [--seconds 6] [--port 9229] [--worker] [--live | --survivors] [--out file.heapprofile]
//
// --worker samples the busiest worker thread (the media worker under media load) instead of the main thread.
// By default objects collected since are counted too (what the garbage collector had to deal with);
// --live counts only what is still alive when sampling stops (what the heap keeps, e.g. per call).
// --survivors counts what outlived a young-generation collection (scavenge), whether or not a full
// collection took it later: what each scavenge had to copy, the cost behind long scavenge pauses.
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import WebSocket from 'ws';

const { values } = parseArgs({
  options: {
    seconds: { type: 'string', default: '6' },
    port: { type: 'string', default: '9229' },
    worker: { type: 'boolean', default: false },
    live: { type: 'boolean', default: false },
    survivors: { type: 'boolean', default: false },
    out: { type: 'string' },
    top: { type: 'string', default: '30' },
  },
});

const targets = await (await fetch(`http://127.0.0.1:${values.port}/json/list`)).json();
if (targets.length === 0) throw new Error(`no inspector target on port ${values.port}`);
const socket = new WebSocket(targets[0].webSocketDebuggerUrl);
await new Promise((resolve, reject) => {
  socket.once('open', resolve);
  socket.once('error', reject);
});

/** CDP over the socket: replies by id; a worker's session is reached through NodeWorker messages. */
let nextId = 0;
const replies = new Map();
const workerSessions = [];
socket.on('message', (data) => {
  const message = JSON.parse(String(data));
  if (message.id !== undefined) {
    replies.get(message.id)?.(message);
    replies.delete(message.id);
  } else if (message.method === 'NodeWorker.attachedToWorker') {
    workerSessions.push(message.params.sessionId);
  } else if (message.method === 'NodeWorker.receivedMessageFromWorker') {
    const inner = JSON.parse(message.params.message);
    if (inner.id !== undefined) {
      replies.get(inner.id)?.(inner);
      replies.delete(inner.id);
    }
  }
});
function command(method, params = {}, sessionId) {
  const id = ++nextId;
  const reply = new Promise((resolve) => replies.set(id, resolve));
  if (sessionId === undefined) socket.send(JSON.stringify({ id, method, params }));
  else {
    const outer = ++nextId;
    replies.set(outer, () => {});
    socket.send(
      JSON.stringify({
        id: outer,
        method: 'NodeWorker.sendMessageToWorker',
        params: { sessionId, message: JSON.stringify({ id, method, params }) },
      }),
    );
  }
  return reply.then((message) => {
    if (message.error) throw new Error(`${method}: ${message.error.message}`);
    return message.result;
  });
}

let sessions = [undefined];
if (values.worker) {
  await command('NodeWorker.enable', { waitForDebuggerOnStart: false });
  await new Promise((resolve) => setTimeout(resolve, 500));
  if (workerSessions.length === 0) throw new Error('the process has no worker thread');
  sessions = workerSessions;
}
const sampling = {
  samplingInterval: 4096,
  includeObjectsCollectedByMajorGC: !values.live,
  includeObjectsCollectedByMinorGC: !values.live && !values.survivors,
};
for (const session of sessions) {
  await command('HeapProfiler.enable', {}, session);
  await command('HeapProfiler.startSampling', sampling, session);
}
await new Promise((resolve) => setTimeout(resolve, Number(values.seconds) * 1000));
const profiles = [];
for (const session of sessions) profiles.push((await command('HeapProfiler.stopSampling', {}, session)).profile);
socket.close();

const bytesOf = (node) => node.selfSize + node.children.reduce((sum, child) => sum + bytesOf(child), 0);
const profile = profiles.reduce((best, candidate) => (bytesOf(candidate.head) > bytesOf(best.head) ? candidate : best));
if (values.out !== undefined) writeFileSync(values.out, JSON.stringify(profile));

const byFunction = new Map();
const byFile = new Map();
let total = 0;
const shortUrl = (url) => url.replace(/^.*\/packages\//, '').replace(/^.*node_modules\//, '');
(function walk(node, file) {
  const { functionName, url, lineNumber } = node.callFrame;
  const own = url !== '' && !url.startsWith('node:') ? shortUrl(url) : file;
  const name = `${functionName || '(anonymous)'} ${shortUrl(url)}:${lineNumber + 1}`;
  total += node.selfSize;
  byFunction.set(name, (byFunction.get(name) ?? 0) + node.selfSize);
  byFile.set(own, (byFile.get(own) ?? 0) + node.selfSize);
  for (const child of node.children) walk(child, own);
})(profile.head, '(no script)');

const top = Number(values.top);
const print = (title, map) => {
  console.log(title);
  for (const [name, bytes] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`${((100 * bytes) / total).toFixed(1).padStart(6)} %  ${name}`);
  }
};
console.log(
  `${values.worker ? 'worker' : 'main'} thread, ${values.seconds} s, ${values.live ? 'live objects' : values.survivors ? 'objects that outlived a scavenge' : 'all allocations'}: ` +
    `${(total / 1e6).toFixed(1)} MB sampled`,
);
print('by function (self)', byFunction);
print('by file (native allocations counted to the script that called them)', byFile);
