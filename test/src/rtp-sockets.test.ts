/**
 * rtp.conf `native_sockets` and the SIP UDP transport's `native_socket` against the real process: with
 * the defaults (the native sockets the install builds) and with each set to `no` (Node's dgram), a call
 * through Dial() is set up and ended and relays each phone's audio to the other, and the start-up log
 * names the implementation in use. With two media workers, both legs of the call are on one of them (the
 * callee's leg is placed near the caller's).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { waitFor } from './audio-analysis.js';
import { freePort, runSipp, startSwitchboard } from './harness.js';
import { localPhone, staticContactPhone, udpTransport } from './pjsip-phones.js';
import { RtpPeer } from './rtp-peer.js';

const DIALPLAN = `
exten => 300,1,Dial(SIP/bob,20)
 same => n,Hangup()
`;

function pjsip(sipPort: number, bobPort: number, transportLines: readonly string[]): string {
  return [udpTransport(sipPort, transportLines), localPhone(), staticContactPhone('bob', bobPort)].join('\n');
}

/** The server's media address a scenario logged (`caller …` / `callee …` lines of -trace_logs). */
function loggedMedia(file: string, role: 'caller' | 'callee'): { address: string; port: number } | undefined {
  let text = '';
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
  const match = new RegExp(`${role} \\S+ ([0-9.]+) (\\d+)`).exec(text);
  return match === null ? undefined : { address: match[1], port: Number(match[2]) };
}

/** RTP packets received per media worker, from /metrics (legs that are up). */
async function receivedPerWorker(baseUrl: string): Promise<Map<string, number>> {
  const text = await (await fetch(`${baseUrl}/metrics`)).text();
  const perWorker = new Map<string, number>();
  for (const match of text.matchAll(/^switchboard_rtp_packets_total\{worker="(\d+)",direction="received"\} (\d+)$/gm)) {
    perWorker.set(match[1], Number(match[2]));
  }
  return perWorker;
}

const SETTINGS = [
  { name: 'native sockets left at their default', rtpLines: [], transportLines: [], sockets: 'native', sipSocket: 'native', workers: 1 },
  {
    name: 'native_sockets = no',
    rtpLines: ['native_sockets = no'],
    transportLines: [],
    sockets: 'dgram',
    sipSocket: 'native',
    workers: 1,
  },
  {
    name: 'SIP transport native_socket = no',
    rtpLines: [],
    transportLines: ['native_socket = no'],
    sockets: 'native',
    sipSocket: 'dgram',
    workers: 1,
  },
  { name: 'two media workers', rtpLines: [], transportLines: [], sockets: 'native', sipSocket: 'native', workers: 2 },
] as const;

for (const setting of SETTINGS) {
  describe(`RTP and SIP sockets: ${setting.name}`, () => {
    it('relays both phones’ audio through Dial() and logs which sockets carry it', { timeout: 40_000 }, async () => {
      const sb = await startSwitchboard({ dialplan: DIALPLAN, rtpLines: [...setting.rtpLines] });
      const logs = mkdtempSync(join(tmpdir(), 'rtp-sockets-'));
      const alice = await RtpPeer.open();
      const bob = await RtpPeer.open();
      try {
        const bobPort = await freePort('udp');
        writeFileSync(join(sb.confDir, 'pjsip.conf'), pjsip(sb.sipPort, bobPort, setting.transportLines));
        if (setting.workers !== 1) {
          const confFile = join(sb.confDir, 'switchboard.conf');
          const conf = readFileSync(confFile, 'utf8');
          assert.match(conf, /^mediaworkers\s*=/m);
          writeFileSync(confFile, conf.replace(/^mediaworkers\s*=.*$/m, `mediaworkers = ${setting.workers}`));
        }
        await sb.restart();
        const started = sb.logs.filter((line) => line.msg === 'media engine started').at(-1);
        assert.equal(started?.rtpSockets, setting.sockets);
        assert.equal(started?.workers, setting.workers);
        const listening = sb.logs.filter((line) => line.msg === 'SIP transport listening' && line.transport === 'transport-udp').at(-1);
        assert.equal(listening?.socket, setting.sipSocket);

        const target = { host: '127.0.0.1', port: sb.sipPort };
        const bobLog = join(logs, 'bob.log');
        const aliceLog = join(logs, 'alice.log');
        const callee = runSipp('uas-answer-hold.xml', target, {
          service: 'bob',
          keys: { rtpport: bob.port },
          timeoutSeconds: 20,
          extra: ['-p', String(bobPort), '-trace_logs', '-log_file', bobLog],
        });
        await new Promise((resolve) => setTimeout(resolve, 300));
        const caller = runSipp('uac-hold-bye.xml', target, {
          service: '300',
          keys: { rtpport: alice.port },
          timeoutSeconds: 20,
          extra: ['-d', '3000', '-trace_logs', '-log_file', aliceLog],
        });
        await waitFor(
          'both legs’ media addresses',
          () => loggedMedia(aliceLog, 'caller') !== undefined && loggedMedia(bobLog, 'callee') !== undefined,
          10_000,
        );
        // A relay only forwards: each phone learns the server's leg from the SDP, not from a first packet.
        alice.remote = loggedMedia(aliceLog, 'caller');
        bob.remote = loggedMedia(bobLog, 'callee');
        const since = performance.now();
        await Promise.all([alice.sendTone(1000, 1000), bob.sendTone(440, 1000)]);
        await new Promise((resolve) => setTimeout(resolve, 200));
        for (const [name, phone] of [
          ['alice', alice],
          ['bob', bob],
        ] as const) {
          const heard = phone.packets.filter((packet) => packet.at >= since).length;
          assert.ok(heard >= 40, `${name} received the other phone's packets (${heard})`);
          assert.ok(phone.loudnessSince(since) > 500, `${name} hears the other phone`);
        }
        if (setting.workers > 1) {
          // Both directions arrive on the worker that holds both legs; the other worker has none.
          const received = [...(await receivedPerWorker(sb.baseUrl)).values()].sort((a, b) => a - b);
          assert.equal(received.length, setting.workers, `a series per worker: ${received}`);
          assert.equal(received[0], 0, `one worker relays the whole call: ${received}`);
          assert.ok((received.at(-1) ?? 0) >= 80, `the call's packets, both phones: ${received}`);
        }
        const [callerResult, calleeResult] = await Promise.all([caller, callee]);
        assert.equal(callerResult.code, 0, callerResult.stdout.slice(-1500));
        assert.equal(calleeResult.code, 0, calleeResult.stdout.slice(-1500));
      } finally {
        alice.close();
        bob.close();
        await sb.stop();
        rmSync(logs, { recursive: true, force: true });
      }
    });
  });
}
