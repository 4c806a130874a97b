/**
 * The attack that used to stop all SIP service: one loopback address floods malformed INVITEs
 * (unparseable Contact, over-long lines, too many headers, SDP with numeric fields, garbage)
 * while a phone at another address places well-formed calls. The calls complete during and after
 * the flood, the server's memory stays near its baseline, the log stays small, and SIGTERM still
 * ends the process within 5 s while the flood goes on.
 */
import assert from 'node:assert/strict';
import { createSocket, type Socket } from 'node:dgram';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { type RunningSwitchboard, runSipp, startSwitchboard } from './harness.js';
import { RtpReceiver } from './rtp-receiver.js';

const ATTACKER = '127.0.0.9';

function rssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const match = /VmRSS:\s+(\d+) kB/.exec(status);
  return match === null ? Number.NaN : Number(match[1]) / 1024;
}

function malformed(n: number, port: number): string {
  const head = [
    `INVITE sip:200@127.0.0.1:${port} SIP/2.0`,
    `Via: SIP/2.0/UDP ${ATTACKER}:5099;branch=z9hG4bKatk${n};maddr=192.0.2.1;received=192.0.2.2`,
    'Max-Forwards: 70',
    `From: <sip:attacker@${ATTACKER}>;tag=t${n}`,
    'To: <sip:200@127.0.0.1>',
    `Call-ID: attack-${n}`,
    'CSeq: 1 INVITE',
  ];
  const sdp = 'v=0\r\no=- 1 1 IN IP4 127.0.0.9\r\ns=-\r\nc=IN IP4 127.0.0.9\r\nt=0 0\r\nm=audio 45000 123 0\r\na=rtpmap:0 1234/8000\r\n';
  switch (n % 5) {
    case 0:
      return [...head, 'Contact: <sip:attacker@127.0.0.9:5099', 'Content-Length: 0', '', ''].join('\r\n');
    case 1:
      return [...head, `Subject: ${'x'.repeat(9000)}`, 'Contact: <sip:a@127.0.0.9:5099>', 'Content-Length: 0', '', ''].join('\r\n');
    case 2:
      return [...Array.from({ length: 120 }, (_, i) => `X-Pad-${i}: ${i}`), ...head, 'Content-Length: 0', '', '']
        .join('\r\n')
        .replace(/^/, `INVITE sip:200@127.0.0.1:${port} SIP/2.0\r\n`);
    case 3:
      return [...head, 'Contact: <sip:a@127.0.0.9:5099>', 'Content-Type: application/sdp', `Content-Length: ${sdp.length}`, '', sdp].join(
        '\r\n',
      );
    default:
      return `\x00\x01GARBAGE ${n}\r\n\r\n`;
  }
}

/** Sends `count` malformed packets in bursts, yielding between bursts; resolves when done or stopped. */
async function flood(socket: Socket, port: number, count: number, stop: { now: boolean }): Promise<number> {
  let sent = 0;
  while (sent < count && !stop.now) {
    for (let i = 0; i < 200 && sent < count; i++, sent++) socket.send(malformed(sent, port), port, '127.0.0.1');
    // About 20,000 packets a second: far beyond what any phone sends, within what the loop absorbs.
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return sent;
}

describe('SIP flood of malformed INVITEs from one address', () => {
  let sb: RunningSwitchboard;
  let attacker: Socket;
  let rtp: RtpReceiver;
  before(async () => {
    sb = await startSwitchboard();
    attacker = createSocket('udp4');
    await new Promise<void>((resolve) => attacker.bind(5099, ATTACKER, () => resolve()));
    attacker.on('message', () => undefined);
    rtp = await RtpReceiver.open();
  });
  after(async () => {
    rtp.close();
    attacker.close();
    if (sb.process.exitCode === null) await sb.stop();
  });

  it('keeps serving calls from another address, with memory and log near their baseline', async () => {
    const call = () =>
      runSipp(
        'uac-wait-bye.xml',
        { host: '127.0.0.1', port: sb.sipPort },
        { service: '200', keys: { rtpport: rtp.port }, timeoutSeconds: 20 },
      );
    const warm = await call();
    assert.equal(warm.code, 0, `call before the flood failed:\n${warm.stdout.slice(-1500)}`);
    const pid = sb.process.pid as number;
    const baseline = rssMiB(pid);
    const logsBefore = sb.logs.length;

    const stop = { now: false };
    const flooding = flood(attacker, sb.sipPort, 30_000, stop);
    const during = await call();
    const sent = await flooding;
    const overloaded = sb.logs.filter((line) => String(line.msg).startsWith('overloaded'));
    assert.equal(during.code, 0, `call during the flood failed (${JSON.stringify(overloaded)}):\n${during.stderr.slice(-1500)}`);
    const after = await call();
    assert.equal(after.code, 0, `call after the flood failed:\n${after.stdout.slice(-1500)}`);

    const grown = rssMiB(pid) - baseline;
    // 30,000 transactions left open used to cost ~180 MiB; refused requests leave nothing behind.
    assert.ok(grown < 80, `RSS grew by ${grown.toFixed(1)} MiB after ${sent} packets`);
    const floodLines = sb.logs.slice(logsBefore);
    const kinds = new Map<string, number>();
    for (const line of floodLines) kinds.set(String(line.msg), (kinds.get(String(line.msg)) ?? 0) + 1);
    assert.ok(floodLines.length < 200, `${floodLines.length} log lines for ${sent} bad packets: ${JSON.stringify([...kinds])}`);
    assert.ok(!floodLines.some((line) => Number(line.level) >= 50), 'no error lines');
  });

  it('stops within 5 s on SIGTERM while the flood goes on', async () => {
    const stop = { now: false };
    const flooding = flood(attacker, sb.sipPort, 1_000_000, stop);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const { ms } = await sb.stop();
    stop.now = true;
    await flooding;
    assert.ok(ms < 5000, `shutdown took ${ms} ms`);
  });
});
