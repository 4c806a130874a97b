#!/usr/bin/env node
// Benchmark: CPU time of event delivery, in process and without sockets, so that other jobs on the
// machine do not add their scheduling delays to the figure (api-latency.mjs measures the wire).
// Channel events (ChannelVarset) are raised on BENCH_CHANNELS (1000) channels with 1 and 4
// applications subscribed to every channel, each served by an events connection on a socket that
// takes every frame at once: core's snapshot, the journal, the check against the model and the
// serialisation per application. CPU µs per event raised, best of 5 rounds of 2000 events.
// Also the `GET /channels` operation's handler with the serialisation of its answer (what fastify
// does with a body that is not yet bytes: JSON.stringify, then the bytes), without the HTTP
// plumbing around it: CPU µs per answer, best of 5 rounds of 200; once with nothing changed between
// answers and once with one channel's snapshot changed before each.
// Runs against whatever packages/*/dist holds, so the same script measures two builds.
import { performance } from 'node:perf_hooks';
import { SPEC_DIALECT } from '../packages/api/dist/dialect/dialect.js';
import { EventConnection } from '../packages/api/dist/events/event-connection.js';
import { RESOURCES } from '../packages/api/dist/index.js';
import { SwitchboardCore, silentLogger } from '../packages/core/dist/index.js';
import { FakeChannelDriver, RecordingMediaEngine, RecordingTechnology, testCoreConfig } from '../packages/core/dist/test-support.js';
import { round, writeResult } from './common.mjs';

const CHANNELS = Number(process.env.BENCH_CHANNELS ?? 1000);
const EVENTS = 2000;
const ROUNDS = 5;

const config = testCoreConfig();
const core = new SwitchboardCore({ config, media: new RecordingMediaEngine() });
core.registerDriver(new FakeChannelDriver());
const channels = [];
for (let i = 0; i < CHANNELS; i++) {
  channels.push(
    core.channels.create({
      name: `SIP/alice-${String(i).padStart(8, '0')}`,
      technology: 'SIP',
      endpoint: 'alice',
      direction: 'inbound',
      state: 'Up',
      caller: { name: 'Alice', number: '100' },
      language: 'en',
      dialplan: { context: 'from-internal', exten: '100', priority: 1 },
      tech: new RecordingTechnology(),
      snapshotVariables: [],
    }),
  );
}

/** CPU µs per call of `task` (user + system time of this process), the best of ROUNDS rounds of `count`. */
async function cpuPerCall(count, task) {
  for (let i = 0; i < Math.min(count, 100); i++) await task(i);
  let best = Number.POSITIVE_INFINITY;
  for (let r = 0; r < ROUNDS; r++) {
    const before = process.cpuUsage();
    for (let i = 0; i < count; i++) await task(i);
    const used = process.cpuUsage(before);
    best = Math.min(best, (used.user + used.system) / count);
  }
  return round(best, 1);
}

const rows = [];

const listChannels = RESOURCES.find((r) => r.name === 'channels')
  .apis.flatMap((api) => api.operations)
  .find((operation) => operation.nickname === 'list');
// Builds where answers are kept between requests give the handler a SnapshotJson.
const snapshotJson = await import('../packages/api/dist/http/snapshot-json.js').then(
  (m) => new m.SnapshotJson(),
  () => undefined,
);
let answerBytes = 0;
const answerUs = await cpuPerCall(200, async () => {
  const result = await listChannels.handler({ params: {}, core, log: silentLogger, apiRoot: '/ari', dialect: SPEC_DIALECT, snapshotJson });
  const bytes = 'json' in result ? result.json : Buffer.from(JSON.stringify(result.body));
  answerBytes = bytes.length;
});
rows.push({ step: 'GET /channels answer', channels: CHANNELS, cpu_us_per_call: answerUs, body_bytes: answerBytes });
const changedUs = await cpuPerCall(200, async (i) => {
  channels[i % CHANNELS].accountcode = `acct-${i}`;
  const result = await listChannels.handler({ params: {}, core, log: silentLogger, apiRoot: '/ari', dialect: SPEC_DIALECT, snapshotJson });
  answerBytes = ('json' in result ? result.json : Buffer.from(JSON.stringify(result.body))).length;
});
rows.push({ step: 'GET /channels answer, one channel changed before each', channels: CHANNELS, cpu_us_per_call: changedUs });
/** A socket that takes every frame at once. */
function sink() {
  return {
    readyState: 1,
    OPEN: 1,
    bufferedAmount: 0,
    frames: 0,
    send(_text, done) {
      this.frames += 1;
      done?.();
    },
    on() {},
    terminate() {},
  };
}
for (const applications of [1, 4]) {
  const connections = [];
  for (let a = 0; a < applications; a++) {
    const connection = new EventConnection({
      core,
      applications: [`bench-${a}`],
      subscribeAll: true,
      log: silentLogger,
      parkOnClose: false,
    });
    connection.attach(sink());
    connections.push(connection);
  }
  const us = await cpuPerCall(EVENTS, (i) => channels[i % channels.length].setVariable('BENCH', String(i)));
  rows.push({ step: `event to ${applications} application(s)`, channels: CHANNELS, cpu_us_per_call: us });
  for (const connection of connections) connection.abandon?.();
}

const when = new Date().toISOString();
console.log(`api-serialise (${when}; CPU time, best of ${ROUNDS} rounds; took ${round(performance.now() / 1000, 1)} s)`);
console.table(rows);
writeResult('api-serialise', { benchmark: 'api-serialise', when, rows });
process.exit(0);
