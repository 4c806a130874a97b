import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { hasPlainHeader, writeRelayedHeader } from './rtp-header-in-place.js';
import { RTP_HEADER_SIZE, parseRtpPacket, writeRtpHeader } from './rtp-header.js';

describe('writeRelayedHeader', () => {
  it('rewrites payload type, marker, sequence, timestamp and SSRC in place and leaves the payload alone', () => {
    const datagram = Buffer.alloc(RTP_HEADER_SIZE + 4);
    writeRtpHeader(datagram, { payloadType: 96, marker: false, sequenceNumber: 7, timestamp: 1, ssrc: 0x11111111 });
    datagram.set([1, 2, 3, 4], RTP_HEADER_SIZE);
    writeRelayedHeader(datagram, { sequenceNumber: 0xfffe, timestamp: 0xfedcba98, marker: true }, 0, 0x80402010);
    const parsed = parseRtpPacket(datagram);
    assert.ok(parsed.ok);
    assert.equal(parsed.packet.payloadType, 0);
    assert.equal(parsed.packet.marker, true);
    assert.equal(parsed.packet.sequenceNumber, 0xfffe);
    assert.equal(parsed.packet.timestamp, 0xfedcba98);
    assert.equal(parsed.packet.ssrc, 0x80402010);
    assert.equal(datagram[0], 0x80, 'V=2, no padding, extension or CSRC');
    assert.deepEqual([...datagram.subarray(RTP_HEADER_SIZE)], [1, 2, 3, 4]);
  });

  it('clears a marker the source set when the rewritten header carries none', () => {
    const datagram = Buffer.alloc(RTP_HEADER_SIZE);
    writeRtpHeader(datagram, { payloadType: 8, marker: true, sequenceNumber: 1, timestamp: 1, ssrc: 1 });
    writeRelayedHeader(datagram, { sequenceNumber: 2, timestamp: 3, marker: false }, 8, 4);
    assert.equal(datagram[1], 8);
  });

  it('accepts only a bare 12-byte header for in-place relaying', () => {
    const plain = parseRtpPacket(Buffer.alloc(RTP_HEADER_SIZE + 10, 0).fill(0x80, 0, 1));
    assert.ok(plain.ok);
    assert.equal(hasPlainHeader(plain.packet), true);
    const withCsrc = Buffer.alloc(RTP_HEADER_SIZE + 4 + 10);
    withCsrc[0] = 0x81; // CC = 1
    const csrc = parseRtpPacket(withCsrc);
    assert.ok(csrc.ok);
    assert.equal(hasPlainHeader(csrc.packet), false);
    const padded = Buffer.alloc(RTP_HEADER_SIZE + 10);
    padded[0] = 0xa0; // P = 1
    padded[padded.length - 1] = 2;
    const pad = parseRtpPacket(padded);
    assert.ok(pad.ok);
    assert.equal(hasPlainHeader(pad.packet), false);
  });
});
