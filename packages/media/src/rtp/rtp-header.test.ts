import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RTP_HEADER_SIZE, parseRtpPacket, parseRtpPacketInto, writeRtpHeader } from './rtp-header.js';

/** A valid packet: fixed header, then `payload` bytes. */
function packet(payload: number[], fields = { payloadType: 0, marker: false, sequenceNumber: 1, timestamp: 2, ssrc: 3 }): Uint8Array {
  const bytes = new Uint8Array(RTP_HEADER_SIZE + payload.length);
  writeRtpHeader(bytes, fields);
  bytes.set(payload, RTP_HEADER_SIZE);
  return bytes;
}

describe('writeRtpHeader', () => {
  it('writes version 2, marker, payload type, sequence, timestamp and SSRC in network order', () => {
    const bytes = new Uint8Array(12);
    const written = writeRtpHeader(bytes, {
      payloadType: 8,
      marker: true,
      sequenceNumber: 0x1234,
      timestamp: 0xdeadbeef,
      ssrc: 0xcafebabe,
    });
    assert.equal(written, 12);
    assert.deepEqual([...bytes], [0x80, 0x88, 0x12, 0x34, 0xde, 0xad, 0xbe, 0xef, 0xca, 0xfe, 0xba, 0xbe]);
  });

  it('masks counters that ran past their field width (sequence wraps at 2^16, timestamp at 2^32)', () => {
    const bytes = new Uint8Array(12);
    writeRtpHeader(bytes, { payloadType: 0, marker: false, sequenceNumber: 0x10001, timestamp: 2 ** 32 + 5, ssrc: -1 });
    const parsed = parseRtpPacket(bytes);
    assert.ok(parsed.ok);
    assert.equal(parsed.packet.sequenceNumber, 1);
    assert.equal(parsed.packet.timestamp, 5);
    assert.equal(parsed.packet.ssrc, 0xffffffff);
  });

  it('writes at an offset inside a larger buffer view', () => {
    const backing = new Uint8Array(40);
    writeRtpHeader(backing.subarray(10), { payloadType: 0, marker: false, sequenceNumber: 7, timestamp: 8, ssrc: 9 }, 4);
    const parsed = parseRtpPacket(backing.subarray(14, 26));
    assert.ok(parsed.ok);
    assert.equal(parsed.packet.sequenceNumber, 7);
  });

  it('refuses a buffer too small for the header', () => {
    assert.throws(
      () => writeRtpHeader(new Uint8Array(11), { payloadType: 0, marker: false, sequenceNumber: 0, timestamp: 0, ssrc: 0 }),
      RangeError,
    );
  });
});

describe('parseRtpPacket', () => {
  it('reads back what writeRtpHeader wrote, with the payload bounds', () => {
    const parsed = parseRtpPacket(
      packet([1, 2, 3], { payloadType: 101, marker: true, sequenceNumber: 65535, timestamp: 4294967295, ssrc: 42 }),
    );
    assert.ok(parsed.ok);
    assert.deepEqual(parsed.packet, {
      payloadType: 101,
      marker: true,
      sequenceNumber: 65535,
      timestamp: 4294967295,
      ssrc: 42,
      csrcCount: 0,
      hasExtension: false,
      paddingLength: 0,
      payloadOffset: 12,
      payloadLength: 3,
    });
  });

  it('parseRtpPacketInto fills a reused object with what parseRtpPacket returns, and names a failure', () => {
    const into = parseRtpPacket(packet([9], { payloadType: 0, marker: false, sequenceNumber: 1, timestamp: 2, ssrc: 3 }));
    assert.ok(into.ok);
    const reused = into.packet;
    for (const fields of [
      { payloadType: 8, marker: true, sequenceNumber: 0x8001, timestamp: 0x80000001, ssrc: 0xfffffffe },
      { payloadType: 101, marker: false, sequenceNumber: 7, timestamp: 160, ssrc: 0x7fffffff },
    ]) {
      const bytes = packet([1, 2, 3, 4], fields);
      assert.equal(parseRtpPacketInto(bytes, reused), null);
      const fresh = parseRtpPacket(bytes);
      assert.ok(fresh.ok);
      assert.deepEqual(reused, fresh.packet);
    }
    assert.equal(parseRtpPacketInto(new Uint8Array(11), reused), 'too-short');
    assert.equal(parseRtpPacketInto(new Uint8Array(12), reused), 'bad-version');
  });

  it('skips CSRCs and a header extension to find the payload', () => {
    // CC = 2, X = 1; extension of one 32-bit word; then a 2-byte payload.
    const bytes = new Uint8Array([
      0x92,
      0x00,
      0,
      1,
      0,
      0,
      0,
      2,
      0,
      0,
      0,
      3, // fixed header
      0,
      0,
      0,
      10,
      0,
      0,
      0,
      11, // two CSRCs
      0xbe,
      0xde,
      0,
      1,
      1,
      2,
      3,
      4, // extension header + one word
      0xaa,
      0xbb,
    ]);
    const parsed = parseRtpPacket(bytes);
    assert.ok(parsed.ok);
    assert.equal(parsed.packet.csrcCount, 2);
    assert.equal(parsed.packet.hasExtension, true);
    assert.equal(parsed.packet.payloadOffset, 28);
    assert.equal(parsed.packet.payloadLength, 2);
  });

  it('removes padding, whose last octet counts itself (RFC 3550 §5.1)', () => {
    const bytes = packet([9, 9, 9, 0, 0, 3]);
    bytes[0] |= 0x20;
    const parsed = parseRtpPacket(bytes);
    assert.ok(parsed.ok);
    assert.equal(parsed.packet.paddingLength, 3);
    assert.equal(parsed.packet.payloadLength, 3);
  });

  it('accepts a packet with an empty payload', () => {
    const parsed = parseRtpPacket(packet([]));
    assert.ok(parsed.ok);
    assert.equal(parsed.packet.payloadLength, 0);
  });

  const malformed: Array<[string, Uint8Array, string]> = [
    ['an empty datagram', new Uint8Array(0), 'too-short'],
    ['11 bytes', new Uint8Array(11).fill(0x80), 'too-short'],
    [
      'version 0',
      (() => {
        const b = packet([1]);
        b[0] = 0x00;
        return b;
      })(),
      'bad-version',
    ],
    [
      'version 1',
      (() => {
        const b = packet([1]);
        b[0] = 0x40;
        return b;
      })(),
      'bad-version',
    ],
    [
      'version 3',
      (() => {
        const b = packet([1]);
        b[0] = 0xc0;
        return b;
      })(),
      'bad-version',
    ],
    [
      'a CSRC count beyond the datagram',
      (() => {
        const b = packet([1, 2, 3, 4]);
        b[0] |= 0x02;
        return b;
      })(),
      'csrc-beyond-end',
    ],
    [
      'the maximum CSRC count on a bare header',
      (() => {
        const b = packet([]);
        b[0] |= 0x0f;
        return b;
      })(),
      'csrc-beyond-end',
    ],
    [
      'an extension header cut short',
      (() => {
        const b = packet([0xbe, 0xde]);
        b[0] |= 0x10;
        return b;
      })(),
      'extension-beyond-end',
    ],
    [
      'an extension length beyond the datagram',
      (() => {
        const b = packet([0xbe, 0xde, 0xff, 0xff, 1, 2]);
        b[0] |= 0x10;
        return b;
      })(),
      'extension-beyond-end',
    ],
    [
      'padding bigger than the payload',
      (() => {
        const b = packet([1, 2, 20]);
        b[0] |= 0x20;
        return b;
      })(),
      'bad-padding',
    ],
    [
      'a padding count of zero',
      (() => {
        const b = packet([1, 2, 0]);
        b[0] |= 0x20;
        return b;
      })(),
      'bad-padding',
    ],
    [
      'the padding bit on a bare header',
      (() => {
        const b = packet([]);
        b[0] |= 0x20;
        return b;
      })(),
      'bad-padding',
    ],
  ];
  for (const [name, bytes, reason] of malformed) {
    it(`rejects ${name} as ${reason}`, () => {
      assert.deepEqual(parseRtpPacket(bytes), { ok: false, reason });
    });
  }

  it('never throws on random datagrams', () => {
    let seed = 12345;
    const random = (): number => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed;
    };
    for (let round = 0; round < 5000; round += 1) {
      const bytes = new Uint8Array(random() % 64);
      for (let i = 0; i < bytes.length; i += 1) bytes[i] = random() & 0xff;
      if (bytes.length > 0 && round % 2 === 0) bytes[0] = (bytes[0] & 0x3f) | 0x80; // half of them pass the version check
      const parsed = parseRtpPacket(bytes);
      if (parsed.ok) {
        assert.ok(parsed.packet.payloadOffset + parsed.packet.payloadLength + parsed.packet.paddingLength === bytes.length);
        assert.ok(parsed.packet.payloadLength >= 0);
      }
    }
  });
});
