// The set-up of the Dial() benchmarks (sipp-dial-rate, sipp-overload): alice and bob as digest
// phones, 300 = Dial(SIP/bob), two bound sockets for the SDP's media ports, and bob registered from
// the port his sipp UAS then listens on.
import { createSocket } from 'node:dgram';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { basicAuth, freePort, runSipp, udpTransportSection } from '../test/dist/harness.js';
import { benchServer, startBenchServer } from './bench-server.mjs';

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

/** pjsip.conf of the bench; `maxLoopLag`: `[global] overload_max_loop_lag` (0 turns the shedding of new calls off). */
function pjsipConf(sipPort, maxLoopLag) {
  return [
    udpTransportSection(sipPort),
    ...(maxLoopLag !== undefined ? [`[global]\ntype = global\noverload_max_loop_lag = ${Number(maxLoopLag)}\n`] : []),
    phone('alice', 'wonderland'),
    phone('bob', 'builder'),
  ].join('\n');
}

/**
 * Starts the server and registers bob; returns what the steps use. `maxLoopLag`: see pjsipConf; by
 * default BENCH_OVERLOAD_MAX_LOOP_LAG, else the server's own default. `setMaxLoopLag` rewrites it
 * and reloads pjsip.conf (module reload res_pjsip), so one warm server can be measured with the
 * control off and on in turn.
 */
export async function startDialBench({ maxLoopLag = process.env.BENCH_OVERLOAD_MAX_LOOP_LAG } = {}) {
  const sb = await startBenchServer({ dialplan: DIALPLAN, rtpStart: 52000, rtpEnd: 60000 });
  // The original has no overload control of this kind (its taskprocessor alerts are not a loop lag).
  writeFileSync(join(sb.confDir, 'pjsip.conf'), pjsipConf(sb.sipPort, benchServer === 'asterisk' ? undefined : maxLoopLag));
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
  const setMaxLoopLag = async (ms) => {
    writeFileSync(join(sb.confDir, 'pjsip.conf'), pjsipConf(sb.sipPort, ms));
    const res = await fetch(`${sb.baseUrl}/ari/asterisk/modules/res_pjsip`, { method: 'PUT', headers: { authorization: basicAuth() } });
    if (res.status !== 204) throw new Error(`module reload res_pjsip answered ${res.status}`);
  };
  return { sb, target, sinks, bobPort, setMaxLoopLag };
}
