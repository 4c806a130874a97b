#!/usr/bin/env node
// Benchmark: REGISTER with digest authentication per second. BENCH_USERS phones (u0000…) are written
// to pjsip.conf, all with one auth object (sipp cannot take a per-call password from its CSV into the
// digest); sipp registers the AORs in turn from an -inf CSV (one per call), each
// REGISTER challenged with 401 and sent again with credentials (two transactions per registration,
// RFC 3261 §22.4), at rising rates for BENCH_STEP_SECONDS each. Reports the highest rate with < 0.1 %
// failed registrations, the server's CPU per registration and its RSS.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runSipp, startSwitchboard, udpTransportSection } from '../test/dist/harness.js';
import { machine, printSteps, SIPP_SOCKET_BUFFERS, stepRates, writeResult } from './common.mjs';

const rates = (process.env.BENCH_RATES ?? '400,800,1200,1600,2400,3200').split(',').map(Number);
const seconds = Number(process.env.BENCH_STEP_SECONDS ?? 8);
const users = Number(process.env.BENCH_USERS ?? 500);
const MAX_FAILURE_RATIO = 0.001;

const name = (i) => `u${String(i).padStart(4, '0')}`;
const AUTH_USER = 'phone';
const AUTH_PASSWORD = 'shared-secret';

const sb = await startSwitchboard({ rtpStart: 52000, rtpEnd: 60000 });
const sections = [
  udpTransportSection(sb.sipPort),
  `[phones-auth]\ntype = auth\nauth_type = userpass\nusername = ${AUTH_USER}\npassword = ${AUTH_PASSWORD}\n`,
];
for (let i = 0; i < users; i++) {
  const user = name(i);
  sections.push(
    `[${user}]\ntype = endpoint\ncontext = from-internal\nallow = ulaw\nauth = phones-auth\naors = ${user}\n\n` +
      `[${user}]\ntype = aor\nmax_contacts = 1\nremove_existing = yes\n`,
  );
}
writeFileSync(join(sb.confDir, 'pjsip.conf'), sections.join('\n'));
await sb.restart();

const csvDir = mkdtempSync(join(tmpdir(), 'bench-register-'));
const csv = join(csvDir, 'users.csv');
writeFileSync(csv, `SEQUENTIAL\n${Array.from({ length: users }, (_, i) => name(i)).join('\n')}\n`);

const { steps, best } = await stepRates({
  pid: sb.process.pid,
  rates,
  seconds,
  maxFailureRatio: MAX_FAILURE_RATIO,
  run: (rate, calls) =>
    runSipp(
      'register-auth-csv.xml',
      { host: '127.0.0.1', port: sb.sipPort },
      {
        service: 'register',
        keys: { expires: 3600 },
        calls,
        rate,
        timeoutSeconds: seconds + 6,
        extra: ['-inf', csv, '-au', AUTH_USER, '-ap', AUTH_PASSWORD, '-l', String(rate * 4), ...SIPP_SOCKET_BUFFERS],
      },
    ),
});
rmSync(csvDir, { recursive: true, force: true });
await sb.stop();

for (const step of steps) {
  step.server_cpu_ms_per_register = step.server_cpu_ms_per_call;
  delete step.server_cpu_ms_per_call;
}
const result = {
  benchmark: 'sipp-register-rate',
  when: new Date().toISOString(),
  machine: machine(),
  scenario: `register-auth-csv.xml: ${users} users in turn, 401 then REGISTER with digest credentials, expires 3600`,
  step_seconds: seconds,
  max_failure_pct: MAX_FAILURE_RATIO * 100,
  best_rate_per_s: best?.rate ?? null,
  best_server_cpu_ms_per_register: best?.server_cpu_ms_per_register ?? null,
  best_server_rss_mib: best?.server_rss_mib ?? null,
  steps,
};
printSteps(`sipp-register-rate: digest REGISTERs per second, ${seconds} s per step`, steps);
console.log(`highest rate with < 0.1 % failures: ${result.best_rate_per_s ?? 'none'} registrations/s`);
writeResult('sipp-register-rate', result);
