#!/usr/bin/env node
// Benchmark: sustained call rate. sipp places INVITE → 200 → ACK calls into extension 300, whose
// dialplan answers and hangs up at once (the server sends BYE), at rising rates for BENCH_STEP_SECONDS
// each. Reports the highest rate with < 0.1 % failed calls, the server's CPU per call and its RSS.
import { createSocket } from 'node:dgram';
import { runSipp } from '../test/dist/harness.js';
import { resultName, serverDescription, startBenchServer } from './bench-server.mjs';
import { machine, printSteps, SIPP_SOCKET_BUFFERS, stepRates, writeResult } from './common.mjs';

const rates = (process.env.BENCH_RATES ?? '100,200,400,800,1200').split(',').map(Number);
const seconds = Number(process.env.BENCH_STEP_SECONDS ?? 8);
const MAX_FAILURE_RATIO = 0.001;

const DIALPLAN = `
exten => 300,1,Answer()
 same => n,Hangup()
`;

// The RTP range sits above the harness's random ranges (30000–50200) so parallel tests rarely collide.
const sb = await startBenchServer({ dialplan: DIALPLAN, rtpStart: 52000, rtpEnd: 60000 });
// The SDP offer needs a media port; nothing is played here, but a bound socket avoids ICMP errors.
const sink = createSocket('udp4');
await new Promise((resolve) => sink.bind(0, '127.0.0.1', resolve));

const { steps, best } = await stepRates({
  pid: sb.process.pid,
  rates,
  seconds,
  maxFailureRatio: MAX_FAILURE_RATIO,
  metricsUrl: sb.metricsUrl,
  run: (rate, calls) =>
    runSipp(
      'uac-wait-bye.xml',
      { host: '127.0.0.1', port: sb.sipPort },
      {
        service: '300',
        keys: { rtpport: sink.address().port },
        calls,
        rate,
        timeoutSeconds: seconds + 6,
        extra: ['-l', String(rate * 4), ...SIPP_SOCKET_BUFFERS],
      },
    ),
});
sink.close();
await sb.stop();

const result = {
  benchmark: 'sipp-call-rate',
  when: new Date().toISOString(),
  machine: machine(),
  ...serverDescription(),
  scenario: 'uac-wait-bye.xml → 300: Answer(), Hangup(); no authentication',
  step_seconds: seconds,
  max_failure_pct: MAX_FAILURE_RATIO * 100,
  best_rate_cps: best?.rate ?? null,
  best_server_cpu_ms_per_call: best?.server_cpu_ms_per_call ?? null,
  best_server_rss_mib: best?.server_rss_mib ?? null,
  steps,
};
printSteps('sipp-call-rate: calls per second, 8 s per step', steps);
console.log(`highest rate with < 0.1 % failures: ${result.best_rate_cps ?? 'none'} calls/s`);
writeResult(resultName('sipp-call-rate'), result);
