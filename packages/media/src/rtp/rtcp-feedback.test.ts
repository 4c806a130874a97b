import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildBye, buildReceiverReport, compound } from './rtcp.js';
import { buildFir, buildNack, buildPli, hasKeyframeRequest, keyframeRequestOf, nacksOf, RTCP_PSFB } from './rtcp-feedback.js';

describe('RTCP keyframe requests', () => {
  it('writes a PLI (RFC 4585 §6.3.1) and a FIR (RFC 5104 §4.3.1)', () => {
    const pli = buildPli(0x11223344, 0xaabbccdd);
    assert.equal(pli.length, 12);
    assert.equal(pli[0], 0x81); // V=2, FMT=1
    assert.equal(pli[1], RTCP_PSFB);
    assert.equal(pli.readUInt16BE(2), 2);
    assert.equal(pli.readUInt32BE(4), 0x11223344);
    assert.equal(pli.readUInt32BE(8), 0xaabbccdd);
    const fir = buildFir(1, 0xaabbccdd, 7);
    assert.equal(fir.length, 20);
    assert.equal(fir[0], 0x84); // V=2, FMT=4
    assert.equal(fir.readUInt16BE(2), 4);
    assert.equal(fir.readUInt32BE(8), 0, 'media source field is 0 in a FIR');
    assert.equal(fir.readUInt32BE(12), 0xaabbccdd);
    assert.equal(fir[16], 7);
  });

  it('finds a request inside a compound packet and ignores reports and malformed input', () => {
    const report = buildReceiverReport(5);
    assert.ok(hasKeyframeRequest(buildPli(1, 2)));
    assert.ok(hasKeyframeRequest(compound([report, buildFir(1, 2, 1)])));
    assert.equal(hasKeyframeRequest(compound([report, buildBye([5])])), false);
    assert.equal(hasKeyframeRequest(new Uint8Array([0x81, 206, 0, 9, 0, 0, 0, 1])), false, 'length beyond the datagram');
    assert.equal(hasKeyframeRequest(new Uint8Array([0x41, 206, 0, 2, 0, 0, 0, 1, 0, 0, 0, 2])), false, 'wrong version');
    assert.equal(hasKeyframeRequest(new Uint8Array(0)), false);
    assert.equal(keyframeRequestOf(compound([report, buildPli(1, 0xabcdef01)])), 0xabcdef01, 'the PLI names its stream');
    assert.equal(keyframeRequestOf(buildFir(1, 0x12345678, 3)), 0x12345678, 'the FIR names it in its FCI');
  });
});

describe('RTCP generic NACK (RFC 4585 §6.2.1)', () => {
  it('packs sequence numbers into PID/BLP entries, byte for byte', () => {
    const nack = buildNack(0x11223344, 0x55667788, [100, 101, 103, 117, 118, 101]);
    assert.equal(
      nack.toString('hex'),
      // V=2 FMT=1, PT=205, length 4 | sender | media | PID 100 BLP 101,103 | PID 117 BLP 118
      '81cd0004' + '11223344' + '55667788' + '00640005' + '00750001',
    );
    // Across the 16-bit wrap: 65535 is the PID, 0 and 15 are bits 0 and 15.
    assert.equal(buildNack(1, 2, [65535, 0, 15]).subarray(12).toString('hex'), 'ffff8001');
  });

  it('reads every NACK of a compound or reduced-size datagram, and survives malformed input', () => {
    const datagram = compound([
      buildReceiverReport(9),
      buildNack(1, 0xabc, [100, 101, 103, 117, 118]),
      buildPli(1, 0xabc),
      buildNack(1, 0xdef, [7]),
    ]);
    assert.deepEqual(nacksOf(datagram), [
      { mediaSsrc: 0xabc, sequences: [100, 101, 103, 117, 118] },
      { mediaSsrc: 0xdef, sequences: [7] },
    ]);
    assert.deepEqual(nacksOf(buildNack(3, 4, [65535, 0])), [{ mediaSsrc: 4, sequences: [65535, 0] }]);
    // A padded NACK: the padding is not read as an FCI entry.
    const padded = Buffer.concat([buildNack(3, 4, [5]), Buffer.from([0, 0, 0, 4])]);
    padded[0] |= 0x20;
    padded.writeUInt16BE(padded.length / 4 - 1, 2);
    assert.deepEqual(nacksOf(padded), [{ mediaSsrc: 4, sequences: [5] }]);
    // Truncated: the length runs past the end.
    assert.deepEqual(nacksOf(buildNack(3, 4, [5]).subarray(0, 14)), []);
    assert.deepEqual(nacksOf(Buffer.from([0x00, 0xcd, 0, 0])), []);
    assert.deepEqual(nacksOf(Buffer.alloc(0)), []);
  });
});
