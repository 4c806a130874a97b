// The server a SIP or API benchmark measures: Switchboard, or with BENCH_SERVER=asterisk the original
// (asterisk.mjs) on the same configuration; both answer with the fields the benchmarks read. The
// original's results go to `results/<name>-asterisk.json`.
import { startSwitchboard } from '../test/dist/harness.js';
import { asteriskVersion, startAsterisk } from './asterisk.mjs';

/** Which server the benchmark measures: `BENCH_SERVER` = switchboard (default) or asterisk. */
export const benchServer = process.env.BENCH_SERVER === 'asterisk' ? 'asterisk' : 'switchboard';

/** The results file's name: `<name>` for Switchboard, `<name>-asterisk` for the original. */
export function resultName(name) {
  return benchServer === 'asterisk' ? `${name}-asterisk` : name;
}

export async function startBenchServer(options = {}) {
  if (benchServer === 'asterisk') return startAsterisk(options);
  const sb = await startSwitchboard(options);
  return Object.assign(sb, { metricsUrl: `${sb.baseUrl}/metrics` });
}

/** What the results file says about the server measured. */
export function serverDescription() {
  return benchServer === 'asterisk' ? { server: 'asterisk', version: asteriskVersion() } : { server: 'switchboard' };
}
