// The original server (Asterisk), started on the same configuration as a benchmark's Switchboard, so the
// SIP and API benchmarks can measure both side by side (bench-server.mjs chooses between them). `ASTERISK`
// names the binary (default /opt/asterisk/sbin/asterisk; build-asterisk.sh builds it from source).
//
// Switchboard reads the original's configuration files, so the benchmark's own files are used as they are
// with these differences the original needs: `Dial(SIP/…)` is `Dial(PJSIP/…)` (chan_sip is gone), `App()` is
// `Stasis()` (Switchboard knows both names, the original only the second), every endpoint gets
// `direct_media = no` (the original's default would re-INVITE the phones to send to each other and relay
// nothing), and asterisk.conf, modules.conf and logger.conf are added.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { basicAuth, freePort, writeConf } from '../test/dist/harness.js';
import { sleep } from './common.mjs';

export const ASTERISK_BIN = process.env.ASTERISK ?? '/opt/asterisk/sbin/asterisk';
const PREFIX = join(ASTERISK_BIN, '..', '..');

/** Modules the benchmarks do not use: not loaded, so the process holds what a lean PBX would. */
const NOLOAD = [
  'chan_iax2.so',
  'chan_unistim.so',
  'chan_mgcp.so',
  'chan_skinny.so',
  'chan_motif.so',
  'res_xmpp.so',
  'cdr_csv.so',
  'cdr_custom.so',
  'cdr_manager.so',
  'cdr_sqlite3_custom.so',
  'cel_custom.so',
  'cel_manager.so',
  'cel_sqlite3_custom.so',
  'res_hep.so',
  'res_hep_pjsip.so',
  'res_hep_rtcp.so',
  'res_phoneprov.so',
  'res_pjsip_phoneprov_provider.so',
  'res_smdi.so',
  'res_calendar.so',
  'pbx_dundi.so',
  'pbx_ael.so',
  'res_config_ldap.so',
  'res_statsd.so',
];

function asteriskConf(root, etc) {
  const dirs = {
    astetcdir: etc,
    astmoddir: join(PREFIX, 'lib', 'asterisk', 'modules'),
    astvarlibdir: join(root, 'lib'),
    astdbdir: join(root, 'lib'),
    astkeydir: join(root, 'lib'),
    astdatadir: join(PREFIX, 'var', 'lib', 'asterisk'),
    astagidir: join(root, 'agi'),
    astspooldir: join(root, 'spool'),
    astrundir: join(root, 'run'),
    astlogdir: join(root, 'log'),
    astsbindir: join(PREFIX, 'sbin'),
  };
  for (const dir of Object.values(dirs)) if (dir.startsWith(root)) mkdirSync(dir, { recursive: true });
  return `[directories]\n${Object.entries(dirs)
    .map(([key, value]) => `${key} => ${value}`)
    .join('\n')}\n\n[options]\nnocolor = yes\nmaxfiles = 20000\ntransmit_silence = no\n`;
}

/** The benchmark's Switchboard files, as the original reads them (see the header). */
function translate(confDir, etc) {
  const pjsip = readFileSync(join(confDir, 'pjsip.conf'), 'utf8').replace(/^type = endpoint$/gm, 'type = endpoint\ndirect_media = no');
  const dialplan = readFileSync(join(confDir, 'extensions.conf'), 'utf8')
    .replace(/\bSIP\//g, 'PJSIP/')
    .replace(/,App\(/g, ',Stasis(');
  writeFileSync(join(etc, 'pjsip.conf'), pjsip);
  writeFileSync(join(etc, 'extensions.conf'), dialplan);
  for (const name of ['http.conf', 'ari.conf', 'rtp.conf']) writeFileSync(join(etc, name), readFileSync(join(confDir, name), 'utf8'));
  writeFileSync(join(etc, 'modules.conf'), `[modules]\nautoload = yes\n${NOLOAD.map((m) => `noload => ${m}\n`).join('')}`);
  writeFileSync(join(etc, 'logger.conf'), '[general]\n\n[logfiles]\nconsole => error\n');
}

/**
 * Starts the original server on the files `startSwitchboard` would write for `options` (a subset: port,
 * dialplan, RTP range and lines), and resolves once its ARI answers and it has fully booted. The
 * object has the fields the benchmarks read from a running Switchboard.
 */
export async function startAsterisk(options = {}) {
  if (!existsSync(ASTERISK_BIN)) throw new Error(`no ${ASTERISK_BIN}: set ASTERISK or build it (bench/README.md)`);
  const root = mkdtempSync(join(tmpdir(), 'asterisk-bench-'));
  const confDir = join(root, 'conf');
  const etc = join(root, 'etc');
  mkdirSync(etc, { recursive: true });
  const httpPort = options.httpPort ?? (await freePort('tcp'));
  const sipPort = options.sipPort ?? (await freePort('udp'));
  writeConf(confDir, {
    httpPort,
    sipPort,
    rtpStart: options.rtpStart ?? 30000,
    rtpEnd: options.rtpEnd ?? 40000,
    ...(options.dialplan !== undefined ? { dialplan: options.dialplan } : {}),
    ...(options.rtpLines !== undefined ? { rtpLines: options.rtpLines } : {}),
  });
  const mainConf = join(etc, 'asterisk.conf');
  writeFileSync(mainConf, asteriskConf(root, etc));
  const baseUrl = `http://127.0.0.1:${httpPort}`;
  let child;
  let exited;
  const launch = async () => {
    translate(confDir, etc);
    child = spawn(ASTERISK_BIN, ['-f', '-n', '-C', mainConf], { stdio: ['ignore', 'ignore', 'inherit'] });
    exited = new Promise((resolve) => child.once('exit', resolve));
    const deadline = Date.now() + 30_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`asterisk exited with ${child.exitCode}`);
      try {
        const response = await fetch(`${baseUrl}/ari/asterisk/ping`, { headers: { authorization: basicAuth() } });
        if (response.ok) break;
      } catch {
        // Not listening yet.
      }
      if (Date.now() > deadline) throw new Error('asterisk did not answer its ARI within 30 s');
      await sleep(200);
    }
    spawnSync(ASTERISK_BIN, ['-C', mainConf, '-rx', 'core waitfullybooted'], { timeout: 30_000 });
    running.process = child;
  };
  const terminate = async () => {
    if (child.exitCode === null) child.kill('SIGTERM');
    const killer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    const code = await exited;
    clearTimeout(killer);
    return code;
  };
  const running = {
    httpPort,
    sipPort,
    baseUrl,
    confDir,
    process: undefined,
    /** The original has no /metrics of its own. */
    metricsUrl: undefined,
    async stop() {
      const begin = Date.now();
      const code = await terminate();
      rmSync(root, { recursive: true, force: true });
      return { code, ms: Date.now() - begin };
    },
    async restart() {
      await terminate();
      await launch();
    },
  };
  await launch();
  return running;
}

/** The version line of the original server's binary, for the results file. */
export function asteriskVersion() {
  const run = spawnSync(ASTERISK_BIN, ['-V'], { encoding: 'utf8' });
  return run.stdout.trim();
}
