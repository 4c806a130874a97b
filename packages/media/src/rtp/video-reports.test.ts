import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { rtpPayloadOctets } from '../worker/video-stream.js';
import { buildReceiverReport, buildSdesCnames, buildSenderReport, ntpFromUnixMs, ntpMiddle32, parseRtcp } from './rtcp.js';
import { buildNack } from './rtcp-feedback.js';
import { VideoReports } from './video-reports.js';

const PHONE = 0x0a0b0c0d;
const SENT = 0x01020304;

describe('VideoReports', () => {
  it('reports what the phone sent (loss, highest sequence, jitter at 90 kHz, LSR/DLSR) in an SR for what it was sent', () => {
    const reports = new VideoReports(0xaabbccdd, 'cn');
    // Ten packets 1000..1009 with 1004 lost, arriving exactly on their 90 kHz timestamps: no jitter.
    for (let seq = 1000; seq < 1010; seq += 1) if (seq !== 1004) reports.onReceive(PHONE, seq, seq * 900, 100_000 + seq * 10);
    // The phone's SR: LSR is the middle 32 bits of its NTP timestamp (RFC 3550 §6.4.1).
    const phoneSr = buildSenderReport(PHONE, {
      ntpSeconds: 0x00012345,
      ntpFraction: 0x67890000,
      rtpTimestamp: 1,
      packetCount: 9,
      octetCount: 9,
    });
    const parsedSr = parseRtcp(phoneSr);
    assert.ok(parsedSr.ok);
    reports.onRtcp(parsedSr.packets, 200_000);
    reports.onSend(SENT, 100, 5000, 200_500);
    reports.onSend(SENT, 120, 8000, 200_600);

    const datagram = reports.buildReport(201_000);
    // SR header: V=2, one report block, PT=200, (28 + 24) / 4 − 1 = 12 words.
    assert.equal(Buffer.from(datagram.subarray(0, 8)).toString('hex'), '81c8000c01020304');
    const parsed = parseRtcp(datagram);
    assert.ok(parsed.ok);
    const [sr, sdes] = parsed.packets;
    assert.equal(parsed.packets.length, 2);
    assert.ok(sr.type === 'sr');
    const ntp = ntpFromUnixMs(201_000);
    assert.deepEqual(sr.sender, {
      ntpSeconds: ntp.seconds,
      ntpFraction: ntp.fraction,
      rtpTimestamp: 8000 + 400 * 90, // extrapolated from the last packet to the report's instant
      packetCount: 2,
      octetCount: 220,
    });
    assert.deepEqual(sr.reports, [
      {
        ssrc: PHONE,
        fractionLost: Math.floor(256 / 10),
        cumulativeLost: 1,
        extendedHighestSeq: 1009,
        jitter: 0,
        lastSr: 0x23456789,
        delaySinceLastSr: 65536, // one second later
      },
    ]);
    assert.deepEqual(sdes, { type: 'sdes', chunks: [{ ssrc: SENT, cname: 'cn' }] });

    // Nothing sent since: still an SR for one more report (§6.4: sent since the previous one)...
    const again = parseRtcp(reports.buildReport(206_000));
    assert.ok(again.ok && again.packets[0].type === 'sr' && again.packets[0].ssrc === SENT);
    // ...then an RR from the receiver SSRC, and the interval's loss is 0 now.
    const next = parseRtcp(reports.buildReport(211_000));
    assert.ok(next.ok);
    assert.equal(next.packets[0].type, 'rr');
    assert.ok(next.packets[0].type === 'rr');
    assert.equal(next.packets[0].ssrc, 0xaabbccdd);
    assert.equal(next.packets[0].reports[0].fractionLost, 0);
    assert.equal(next.packets[0].reports[0].cumulativeLost, 1);
    assert.deepEqual(next.packets[1], { type: 'sdes', chunks: [{ ssrc: 0xaabbccdd, cname: 'cn' }] });
  });

  it('sends one SR per stream sent (sfu), and reads the phone reports about them with the round trip', () => {
    const reports = new VideoReports(7, 'cn');
    reports.onSend(0x111, 10, 90, 1000);
    reports.onSend(0x222, 20, 180, 1000);
    const parsed = parseRtcp(reports.buildReport(2000));
    assert.ok(parsed.ok);
    assert.deepEqual(
      parsed.packets.map((p) => (p.type === 'sr' ? `sr ${p.ssrc} ${p.reports.length}` : p.type)),
      [`sr ${0x111} 0`, `sr ${0x222} 0`, 'sdes'],
    );
    // The phone received our SR at 2000 and reports 0.5 s later; it arrives at 2600: RTT 0.1 s.
    const rr = parseRtcp(
      buildReceiverReport(PHONE, [
        {
          ssrc: 0x222,
          fractionLost: 64,
          cumulativeLost: 3,
          extendedHighestSeq: 5,
          jitter: 90,
          lastSr: ntpMiddle32(2000),
          delaySinceLastSr: 32768,
        },
      ]),
    );
    assert.ok(rr.ok);
    reports.onRtcp(rr.packets, 2600);
    const stream = reports.sentStreams().find((s) => s.ssrc === 0x222);
    assert.equal(stream?.remote?.fractionLost, 64);
    assert.equal(stream?.remote?.cumulativeLost, 3);
    const rtt = stream?.remote?.rttSeconds;
    assert.ok(rtt !== null && rtt !== undefined && Math.abs(rtt - 0.1) < 0.001, `rtt ${rtt}`);
    assert.equal(reports.sentStreams().find((s) => s.ssrc === 0x111)?.remote, null);
  });

  it('heads feedback with an empty RR and SDES, so that it is a valid compound (RFC 4585 §3.1)', () => {
    const reports = new VideoReports(0x42, 'cn');
    reports.onReceive(PHONE, 1, 0, 0);
    reports.onReceive(PHONE, 3, 0, 0);
    const parsed = parseRtcp(Buffer.concat([reports.feedbackHead(), buildNack(0x42, PHONE, [2])]));
    assert.ok(parsed.ok);
    assert.deepEqual(
      parsed.packets.map((p) => p.type),
      ['rr', 'sdes', 'other'],
    );
    assert.deepEqual(parsed.packets[0], { type: 'rr', ssrc: 0x42, reports: [] });
    // The head took nothing from the next regular report's loss interval.
    const next = parseRtcp(reports.buildReport(1000));
    assert.ok(next.ok && next.packets[0].type === 'rr');
    assert.equal(next.packets[0].reports[0].fractionLost, Math.floor(256 / 3));
  });

  it('writes one SDES chunk per SSRC', () => {
    assert.equal(
      Buffer.from(buildSdesCnames([1, 2], 'ab')).toString('hex'),
      // V=2 SC=2, PT=202, 6 words | SSRC 1, CNAME "ab", a whole word of nulls (the item list ends
      // with a null octet, then pads to 32 bits: RFC 3550 §6.5) | SSRC 2, the same
      '82ca0006' + '00000001' + '01026162' + '00000000' + '00000002' + '01026162' + '00000000',
    );
  });

  it('counts payload octets without header, CSRCs, extension or padding', () => {
    const plain = Buffer.alloc(12 + 10);
    plain[0] = 0x80;
    assert.equal(rtpPayloadOctets(plain), 10);
    // One CSRC, a one-word extension and 3 octets of padding around 10 payload octets.
    const full = Buffer.alloc(12 + 4 + 8 + 10 + 3);
    full[0] = 0x80 | 0x20 | 0x10 | 1;
    full.writeUInt16BE(1, 16 + 2);
    full[full.length - 1] = 3;
    assert.equal(rtpPayloadOctets(full), 10);
    assert.equal(rtpPayloadOctets(Buffer.alloc(5)), 0);
  });
});
