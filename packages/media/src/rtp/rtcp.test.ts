import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RtpStatsTracker } from './rtcp-stats.js';
import {
  type ReportBlock,
  buildBye,
  buildReceiverReport,
  buildSdesCname,
  buildSenderReport,
  compound,
  ntpMiddle32,
  parseRtcp,
} from './rtcp.js';

const block: ReportBlock = {
  ssrc: 0xdeadbeef,
  fractionLost: 64,
  cumulativeLost: -3,
  extendedHighestSeq: 70000,
  jitter: 42,
  lastSr: 0x12345678,
  delaySinceLastSr: 65536,
};

describe('RTCP packets (RFC 3550 §6.4–6.6)', () => {
  it('round-trips a compound SR + SDES CNAME + BYE', () => {
    const sr = buildSenderReport(
      1,
      { ntpSeconds: 3900000000, ntpFraction: 0x80000000, rtpTimestamp: 160, packetCount: 5, octetCount: 800 },
      [block],
    );
    const datagram = compound([sr, buildSdesCname(1, 'switchboard@example'), buildBye([1], 'hangup')]);
    const parsed = parseRtcp(datagram);
    assert.ok(parsed.ok);
    assert.deepEqual(parsed.packets, [
      {
        type: 'sr',
        ssrc: 1,
        sender: { ntpSeconds: 3900000000, ntpFraction: 0x80000000, rtpTimestamp: 160, packetCount: 5, octetCount: 800 },
        reports: [block],
      },
      { type: 'sdes', chunks: [{ ssrc: 1, cname: 'switchboard@example' }] },
      { type: 'bye', ssrcs: [1], reason: 'hangup' },
    ]);
  });

  it('round-trips an empty RR and keeps unknown packet types as other', () => {
    const app = new Uint8Array([0x80, 204, 0, 1, 0, 0, 0, 9]);
    const parsed = parseRtcp(compound([buildReceiverReport(9), app]));
    assert.ok(parsed.ok);
    assert.deepEqual(parsed.packets, [
      { type: 'rr', ssrc: 9, reports: [] },
      { type: 'other', packetType: 204 },
    ]);
  });

  it('returns a typed failure for malformed datagrams, never throws', () => {
    const rr = buildReceiverReport(9, [block]);
    const fixtures: Array<[string, Uint8Array, string]> = [
      ['empty', new Uint8Array(0), 'too-short'],
      ['version 1', Uint8Array.from([0x40, ...rr.subarray(1)]), 'bad-version'],
      ['length past the end', rr.subarray(0, rr.length - 4), 'bad-length'],
      ['count past the end', Uint8Array.from([0x82, ...rr.subarray(1)]), 'truncated-body'],
      ['SDES first', buildSdesCname(1, 'x'), 'not-report-first'],
      ['zero padding', Uint8Array.from([0xa0, 201, 0, 1, 0, 0, 0, 0]), 'bad-padding'],
      [
        'truncated SDES item',
        compound([buildReceiverReport(1), Uint8Array.from([0x81, 202, 0, 2, 0, 0, 0, 1, 1, 200, 65, 65])]),
        'truncated-body',
      ],
    ];
    for (const [name, bytes, reason] of fixtures) {
      const parsed = parseRtcp(bytes);
      assert.deepEqual(parsed, { ok: false, reason }, name);
    }
    let seed = 7;
    for (let n = 0; n < 2000; n += 1) {
      const bytes = new Uint8Array(4 + (n % 60));
      for (let i = 0; i < bytes.length; i += 1) {
        seed = (seed * 1103515245 + 12345) >>> 0;
        bytes[i] = seed >>> 24;
      }
      bytes[0] = 0x80 | (bytes[0] & 0x3f);
      parseRtcp(bytes);
    }
  });
});

describe('RtpStatsTracker', () => {
  it('takes LSR only from the SR of the stream it receives (a BUNDLEd video SR shares the port)', () => {
    const tracker = new RtpStatsTracker({ localSsrc: 111, clockRate: 8000, cname: 'sb' });
    const start = 1_700_000_000_000;
    tracker.onReceive(222, 1, 160, 160, start);
    const sender = { ntpSeconds: 0x00011234, ntpFraction: 0x56780000, rtpTimestamp: 0, packetCount: 1, octetCount: 160 };
    tracker.onRtcp([{ type: 'sr', ssrc: 333, sender, reports: [] }], start + 10);
    const ignored = parseRtcp(tracker.buildReport(start + 20));
    assert.ok(ignored.ok && ignored.packets[0].type === 'rr');
    assert.equal(ignored.packets[0].type === 'rr' ? ignored.packets[0].reports[0].lastSr : -1, 0, "another stream's SR is not ours");
    tracker.onRtcp([{ type: 'sr', ssrc: 222, sender, reports: [] }], start + 30);
    const taken = parseRtcp(tracker.buildReport(start + 40));
    assert.ok(taken.ok && taken.packets[0].type === 'rr');
    assert.equal(taken.packets[0].type === 'rr' ? taken.packets[0].reports[0].lastSr : -1, 0x12345678);
  });

  it('counts A.3 loss, A.8 jitter and builds SR/RR with CNAME', () => {
    const tracker = new RtpStatsTracker({ localSsrc: 111, clockRate: 8000, cname: 'sb' });
    const start = 1_700_000_000_000;
    // The peer sends 100 packets across a sequence wrap; 5 are lost, arrivals jitter by ±2 ms.
    for (let i = 0; i < 100; i += 1) {
      if (i % 20 === 7) continue;
      tracker.onReceive(222, (65500 + i) & 0xffff, i * 160, 160, start + i * 20 + (i % 2) * 2);
    }
    for (let i = 0; i < 10; i += 1) tracker.onSend(160, 1000 + i * 160, start + i * 20);
    const report = parseRtcp(tracker.buildReport(start + 2000));
    assert.ok(report.ok);
    const sr = report.packets[0];
    assert.equal(sr.type, 'sr');
    if (sr.type !== 'sr') return;
    assert.equal(sr.sender.packetCount, 10);
    assert.equal(sr.sender.octetCount, 1600);
    assert.equal(sr.reports[0].ssrc, 222);
    assert.equal(sr.reports[0].cumulativeLost, 5);
    assert.equal(sr.reports[0].fractionLost, Math.floor((5 * 256) / 100));
    assert.equal(sr.reports[0].extendedHighestSeq, 65536 + ((65500 + 99) & 0xffff));
    assert.ok(sr.reports[0].jitter > 5 && sr.reports[0].jitter < 20, `jitter ${sr.reports[0].jitter}`);
    assert.deepEqual(report.packets[1], { type: 'sdes', chunks: [{ ssrc: 111, cname: 'sb' }] });
    // Nothing sent since: the next report is an RR.
    const next = parseRtcp(tracker.buildReport(start + 7000));
    assert.ok(next.ok && next.packets[0].type === 'rr');
    const stats = tracker.statistics();
    assert.equal(stats.rxcount, 95);
    assert.equal(stats.rxploss, 5);
    assert.equal(stats.txcount, 10);
    assert.equal(stats.local_ssrc, 111);
    assert.equal(stats.remote_ssrc, 222);
    assert.equal(stats.rxoctetcount, 95 * 160);
    assert.equal(stats.local_minrxploss, 0);
  });

  it('computes round-trip time from the peer’s LSR/DLSR and reads its view of our stream', () => {
    const tracker = new RtpStatsTracker({ localSsrc: 111, clockRate: 8000, cname: 'sb' });
    const t0 = 1_700_000_000_000;
    tracker.onSend(160, 0, t0);
    const ours = parseRtcp(tracker.buildReport(t0));
    assert.ok(ours.ok && ours.packets[0].type === 'sr');
    if (!ours.ok || ours.packets[0].type !== 'sr') return;
    const lsr = (((ours.packets[0].sender.ntpSeconds & 0xffff) << 16) | (ours.packets[0].sender.ntpFraction >>> 16)) >>> 0;
    assert.equal(lsr, ntpMiddle32(t0));
    // The peer held our SR for 100 ms; its RR reaches us 160 ms after we sent: RTT 60 ms.
    const rr = parseRtcp(
      buildReceiverReport(222, [
        { ...block, ssrc: 111, lastSr: lsr, delaySinceLastSr: Math.round(0.1 * 65536), jitter: 80, cumulativeLost: 2 },
      ]),
    );
    assert.ok(rr.ok);
    if (!rr.ok) return;
    tracker.onRtcp(rr.packets, t0 + 160);
    const stats = tracker.statistics();
    assert.ok(stats.rtt !== undefined && Math.abs(stats.rtt - 0.06) < 0.001, `rtt ${stats.rtt}`);
    assert.equal(stats.txjitter, 0.01);
    assert.equal(stats.txploss, 2);
    assert.equal(stats.remote_maxjitter, 0.01);
    assert.equal(stats.minrtt, stats.maxrtt);
  });
});
