#!/usr/bin/env node
// Benchmark: does the server's memory level off under a steady REGISTER load, and come back when it
// stops? BENCH_USERS AORs (as in sipp-register-rate) register with digest at BENCH_RATE per second
// for BENCH_SECONDS; the server's RSS is sampled every 5 s, then through 40 s of idle time (longer than
// Timer J's 32 s, after which every finished UDP transaction is gone). A leak shows as RSS that keeps
// rising past 32 s of load; transactions kept for Timer J show as a plateau.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runSipp, startSwitchboard, udpTransportSection } from '../test/dist/harness.js';
import { machine, round, rssMiB, sippCount, sleep, writeResult } from './common.mjs';

const rate = Number(process.env.BENCH_RATE ?? 1000);
const seconds = Number(process.env.BENCH_SECONDS ?? 50);
const users = Number(process.env.BENCH_USERS ?? 500);
const IDLE_SECONDS = 40;
const SAMPLE_MS = 5000;

const name = (i) => `u${String(i).padStart(4, '0')}`;
const sb = await startSwitchboard({ rtpStart: 52000, rtpEnd: 60000 });
const sections = [
  udpTransportSection(sb.sipPort),
  '[phones-auth]\ntype = auth\nauth_type = userpass\nusername = phone\npassword = shared-secret\n',
];
for (let i = 0; i < users; i++) {
  sections.push(
    `[${name(i)}]\ntype = endpoint\ncontext = from-internal\nallow = ulaw\nauth = phones-auth\naors = ${name(i)}\n\n` +
      `[${name(i)}]\ntype = aor\nmax_contacts = 1\nremove_existing = yes\n`,
  );
}
writeFileSync(join(sb.confDir, 'pjsip.conf'), sections.join('\n'));
await sb.restart();
const csvDir = mkdtempSync(join(tmpdir(), 'bench-register-memory-'));
const csv = join(csvDir, 'users.csv');
writeFileSync(csv, `SEQUENTIAL\n${Array.from({ length: users }, (_, i) => name(i)).join('\n')}\n`);

const started = performance.now();
const samples = [{ t_s: 0, phase: 'start', rss_mib: round(rssMiB(sb.process.pid), 1) }];
let phase = 'load';
const sampler = setInterval(() => {
  samples.push({ t_s: round((performance.now() - started) / 1000, 0), phase, rss_mib: round(rssMiB(sb.process.pid), 1) });
}, SAMPLE_MS);
const sipp = await runSipp(
  'register-auth-csv.xml',
  { host: '127.0.0.1', port: sb.sipPort },
  {
    service: 'register',
    keys: { expires: 3600 },
    calls: rate * seconds,
    rate,
    timeoutSeconds: seconds + 15,
    extra: ['-inf', csv, '-au', 'phone', '-ap', 'shared-secret', '-l', String(rate * 4)],
  },
);
phase = 'idle';
await sleep(IDLE_SECONDS * 1000);
clearInterval(sampler);
rmSync(csvDir, { recursive: true, force: true });
await sb.stop();

const ok = sippCount(sipp.stdout, 'Successful call');
const load = samples.filter((s) => s.phase === 'load');
const peak = Math.max(...samples.map((s) => s.rss_mib));
// RSS in the load phase after Timer J has filled (> 35 s): flat if nothing leaks.
const late = load.filter((s) => s.t_s > 35).map((s) => s.rss_mib);
const result = {
  benchmark: 'sipp-register-memory',
  when: new Date().toISOString(),
  machine: machine(),
  scenario: `register-auth-csv.xml at ${rate}/s for ${seconds} s (401, then REGISTER with digest), then ${IDLE_SECONDS} s idle`,
  registrations_ok: ok,
  registrations_offered: rate * seconds,
  peak_rss_mib: peak,
  rss_growth_after_35s_mib: late.length >= 2 ? round(late[late.length - 1] - late[0], 1) : null,
  rss_after_idle_mib: samples[samples.length - 1]?.rss_mib ?? null,
  samples,
};
console.log(`sipp-register-memory: ${rate} REGISTER/s for ${seconds} s, ${ok}/${rate * seconds} ok`);
console.table(samples);
console.log(`peak RSS ${peak} MiB; growth from 35 s to the end of the load ${result.rss_growth_after_35s_mib} MiB`);
writeResult('sipp-register-memory', result);
