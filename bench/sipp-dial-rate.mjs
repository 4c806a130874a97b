#!/usr/bin/env node
// Benchmark: call rate through Dial(). Bob registers with digest auth from the port his sipp UAS then
// listens on; alice (a sipp UAC, challenged on every INVITE) calls 300 → Dial(SIP/bob), the server
// rings bob, bridges the two legs, and alice hangs up at once after the ACK. Rising rates for
// BENCH_STEP_SECONDS each; reports the highest with < 0.1 % failed calls, CPU per call and RSS.
import { writeFileSync } from 'node:fs';
import { createSocket } from 'node:dgram';
import { join } from 'node:path';
import { freePort, runSipp, startSwitchboard } from '../test/dist/harness.js';
import { machine, printSteps, sleep, stepRates, writeResult } from './common.mjs';

const rates = (process.env.BENCH_RATES ?? '50,100,200,300,400').split(',').map(Number);
const seconds = Number(process.env.BENCH_STEP_SECONDS ?? 8);
const MAX_FAILURE_RATIO = 0.001;

const DIALPLAN = `
exten => 300,1,Dial(SIP/bob,20)
 same => n,Hangup()
`;

function phone(name, password) {
  return `
[${name}]
type = endpoint
context = from-internal
disallow = all
allow = ulaw
auth = ${name}-auth
aors = ${name}

[${name}-auth]
type = auth
auth_type = userpass
username = ${name}
password = ${password}

[${name}]
type = aor
max_contacts = 1
remove_existing = yes
`;
}

const sb = await startSwitchboard({ dialplan: DIALPLAN, rtpStart: 52000, rtpEnd: 60000 });
writeFileSync(
  join(sb.confDir, 'pjsip.conf'),
  [
    `[transport-udp]\ntype = transport\nprotocol = udp\nbind = 127.0.0.1:${sb.sipPort}\n`,
    phone('alice', 'wonderland'),
    phone('bob', 'builder'),
  ].join('\n'),
);
await sb.restart();
const target = { host: '127.0.0.1', port: sb.sipPort };

// Both phones' SDP need media ports; nothing is sent, but bound sockets avoid ICMP errors on relay.
const sinks = [createSocket('udp4'), createSocket('udp4')];
for (const sink of sinks) await new Promise((resolve) => sink.bind(0, '127.0.0.1', resolve));

const bobPort = await freePort('udp');
const registered = await runSipp('register-auth.xml', target, {
  service: 'bob',
  keys: { expires: 3600 },
  extra: ['-au', 'bob', '-ap', 'builder', '-p', String(bobPort)],
});
if (registered.code !== 0) throw new Error(`bob did not register:\n${registered.stdout.slice(-2000)}`);

const { steps, best } = await stepRates({
  pid: sb.process.pid,
  rates,
  seconds,
  maxFailureRatio: MAX_FAILURE_RATIO,
  run: async (rate, calls) => {
    // Bob's UAS answers every call of the step and waits for the BYE the server relays from alice.
    const callee = runSipp('uas-answer-wait-bye.xml', target, {
      service: 'bob',
      keys: { rtpport: sinks[1].address().port },
      calls,
      timeoutSeconds: seconds + 8,
      extra: ['-p', String(bobPort)],
    });
    await sleep(300);
    const caller = await runSipp('uac-auth-bye.xml', target, {
      service: '300',
      keys: { user: 'alice', rtpport: sinks[0].address().port },
      calls,
      rate,
      timeoutSeconds: seconds + 6,
      extra: ['-au', 'alice', '-ap', 'wonderland', '-l', String(rate * 4)],
    });
    await callee;
    return caller;
  },
});
for (const sink of sinks) sink.close();
await sb.stop();

const result = {
  benchmark: 'sipp-dial-rate',
  when: new Date().toISOString(),
  machine: machine(),
  scenario: 'alice uac-auth-bye.xml (digest on every INVITE) → 300: Dial(SIP/bob) → bob uas-answer-wait-bye.xml; alice hangs up after ACK',
  step_seconds: seconds,
  max_failure_pct: MAX_FAILURE_RATIO * 100,
  best_rate_cps: best?.rate ?? null,
  best_server_cpu_ms_per_call: best?.server_cpu_ms_per_call ?? null,
  best_server_rss_mib: best?.server_rss_mib ?? null,
  steps,
};
printSteps(`sipp-dial-rate: calls per second through Dial(SIP/bob), ${seconds} s per step`, steps);
console.log(`highest rate with < 0.1 % failures: ${result.best_rate_cps ?? 'none'} calls/s`);
writeResult('sipp-dial-rate', result);
