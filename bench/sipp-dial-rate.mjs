#!/usr/bin/env node
// Benchmark: call rate through Dial(). Bob registers with digest auth from the port his sipp UAS then
// listens on; alice (a sipp UAC, challenged on every INVITE) calls 300 → Dial(SIP/bob), the server
// rings bob, bridges the two legs, and alice hangs up at once after the ACK. Rising rates for
// BENCH_STEP_SECONDS each; reports the highest with < 0.1 % failed calls, CPU per call and RSS.
import { runSipp } from '../test/dist/harness.js';
import { startDialBench } from './dial-setup.mjs';
import { resultName, serverDescription } from './bench-server.mjs';
import { machine, printSteps, SIPP_SOCKET_BUFFERS, sleep, stepRates, writeResult } from './common.mjs';

const rates = (process.env.BENCH_RATES ?? '50,100,200,300,400').split(',').map(Number);
const seconds = Number(process.env.BENCH_STEP_SECONDS ?? 8);
const MAX_FAILURE_RATIO = 0.001;

const { sb, target, sinks, bobPort } = await startDialBench();

const { steps, best } = await stepRates({
  pid: sb.process.pid,
  rates,
  seconds,
  maxFailureRatio: MAX_FAILURE_RATIO,
  metricsUrl: sb.metricsUrl,
  run: async (rate, calls) => {
    // Bob's UAS answers every call of the step and waits for the BYE the server relays from alice.
    const callee = runSipp('uas-answer-wait-bye.xml', target, {
      service: 'bob',
      keys: { rtpport: sinks[1].address().port },
      calls,
      timeoutSeconds: seconds + 8,
      extra: ['-p', String(bobPort), ...SIPP_SOCKET_BUFFERS],
    });
    await sleep(300);
    const caller = await runSipp('uac-auth-bye.xml', target, {
      service: '300',
      keys: { user: 'alice', rtpport: sinks[0].address().port },
      calls,
      rate,
      timeoutSeconds: seconds + 6,
      extra: ['-au', 'alice', '-ap', 'wonderland', '-l', String(rate * 4), ...SIPP_SOCKET_BUFFERS],
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
  ...serverDescription(),
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
writeResult(resultName('sipp-dial-rate'), result);
