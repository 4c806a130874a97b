// The server a SIP or API benchmark measures: Switchboard, or with BENCH_SERVER=asterisk the original
// (bench/asterisk.mjs), on the same configuration. Both answer with the fields the benchmarks read.
import { startSwitchboard } from '../test/dist/harness.js';
import { asteriskVersion, benchServer, startAsterisk } from './asterisk.mjs';

export { benchServer, resultName } from './asterisk.mjs';

export async function startBenchServer(options = {}) {
  if (benchServer === 'asterisk') return startAsterisk(options);
  const sb = await startSwitchboard(options);
  return Object.assign(sb, { server: 'switchboard', metricsUrl: `${sb.baseUrl}/metrics` });
}

/** What the results file says about the server measured. */
export function serverDescription() {
  return benchServer === 'asterisk' ? { server: 'asterisk', version: asteriskVersion() } : { server: 'switchboard' };
}
