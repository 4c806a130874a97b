import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { buildBye, buildReceiverReport, compound } from './rtcp.js';
import { buildFir, buildPli, hasKeyframeRequest, keyframeRequestOf, RTCP_PSFB } from './rtcp-feedback.js';

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
