/**
 * RTP fixed header (RFC 3550 §5.1), written and read in place with a DataView.
 *
 *    0                   1                   2                   3
 *    0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   |V=2|P|X|  CC   |M|     PT      |       sequence number         |
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   |                           timestamp                           |
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *   |                             SSRC                              |
 *   +=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+=+
 *   |                    CSRC list (CC × 32 bits)                   |
 *   +-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+-+
 *
 * Written by hand: the header is twelve bytes, the npm RTP packages allocate objects and copies per
 * packet, and the receive side must treat every datagram as hostile — each length field is checked
 * against the bytes actually received before anything is read past the fixed header.
 */

export const RTP_VERSION = 2;
/** Bytes of the fixed header, without CSRCs or extension. */
export const RTP_HEADER_SIZE = 12;

export interface RtpHeaderFields {
  payloadType: number;
  marker: boolean;
  sequenceNumber: number;
  timestamp: number;
  ssrc: number;
}

export interface RtpPacketInfo extends RtpHeaderFields {
  /** Contributing sources (RFC 3550 §5.1 CC); their identifiers are skipped, not copied. */
  csrcCount: number;
  /** Whether a header extension (RFC 3550 §5.3.1) was present; it is skipped. */
  hasExtension: boolean;
  /** Padding octets removed from the end (RFC 3550 §5.1 P bit). */
  paddingLength: number;
  /** Where the payload starts in the datagram. */
  payloadOffset: number;
  /** Payload bytes, after removing CSRCs, extension and padding. */
  payloadLength: number;
}

export type RtpParseFailure = 'too-short' | 'bad-version' | 'csrc-beyond-end' | 'extension-beyond-end' | 'bad-padding';

export type RtpParseResult = { ok: true; packet: RtpPacketInfo } | { ok: false; reason: RtpParseFailure };

function viewOf(buffer: Uint8Array): DataView {
  return new DataView(buffer.buffer, buffer.byteOffset, buffer.byteLength);
}

/**
 * Writes a fixed header (no CSRCs, no extension, no padding) at `offset` and returns its length.
 * Fields are masked to their widths, so callers may pass counters that have run past 16/32 bits.
 */
export function writeRtpHeader(buffer: Uint8Array, fields: RtpHeaderFields, offset = 0): number {
  if (offset < 0 || offset + RTP_HEADER_SIZE > buffer.length) {
    throw new RangeError(`RTP header needs ${RTP_HEADER_SIZE} bytes at offset ${offset}, buffer has ${buffer.length}`);
  }
  const view = viewOf(buffer);
  view.setUint8(offset, RTP_VERSION << 6); // P = 0, X = 0, CC = 0
  view.setUint8(offset + 1, (fields.marker ? 0x80 : 0) | (fields.payloadType & 0x7f));
  view.setUint16(offset + 2, fields.sequenceNumber & 0xffff);
  view.setUint32(offset + 4, fields.timestamp >>> 0);
  view.setUint32(offset + 8, fields.ssrc >>> 0);
  return RTP_HEADER_SIZE;
}

/** A header to fill with `parseRtpPacketInto`: every field zero. */
export function emptyRtpPacketInfo(): RtpPacketInfo {
  return {
    payloadType: 0,
    marker: false,
    sequenceNumber: 0,
    timestamp: 0,
    ssrc: 0,
    csrcCount: 0,
    hasExtension: false,
    paddingLength: 0,
    payloadOffset: 0,
    payloadLength: 0,
  };
}

/**
 * Validates and reads a received datagram. Never throws: anything malformed is reported as a
 * failure reason so the caller can count and drop it (RFC 3550 §A.1 lists the same checks).
 */
export function parseRtpPacket(datagram: Uint8Array): RtpParseResult {
  const packet = emptyRtpPacketInfo();
  const failure = parseRtpPacketInto(datagram, packet);
  return failure === null ? { ok: true, packet } : { ok: false, reason: failure };
}

/**
 * `parseRtpPacket` for the packet path: fills `into` (which the caller reuses from packet to packet)
 * and answers null, or the reason the datagram is not RTP (then `into` is partly overwritten). The
 * fields are read byte by byte: a DataView per packet would be garbage at every packet's arrival.
 */
export function parseRtpPacketInto(datagram: Uint8Array, into: RtpPacketInfo): RtpParseFailure | null {
  const length = datagram.length;
  if (length < RTP_HEADER_SIZE) return 'too-short';
  const first = datagram[0];
  if (first >> 6 !== RTP_VERSION) return 'bad-version';
  const hasPadding = (first & 0x20) !== 0;
  const hasExtension = (first & 0x10) !== 0;
  const csrcCount = first & 0x0f;
  const second = datagram[1];

  let payloadOffset = RTP_HEADER_SIZE + csrcCount * 4;
  if (payloadOffset > length) return 'csrc-beyond-end';

  if (hasExtension) {
    // RFC 3550 §5.3.1: 16-bit profile-defined field, then the extension length in 32-bit words
    // not counting this 4-byte extension header itself.
    if (payloadOffset + 4 > length) return 'extension-beyond-end';
    const words = (datagram[payloadOffset + 2] << 8) | datagram[payloadOffset + 3];
    payloadOffset += 4 + words * 4;
    if (payloadOffset > length) return 'extension-beyond-end';
  }

  let paddingLength = 0;
  if (hasPadding) {
    // RFC 3550 §5.1: the last octet counts the padding octets including itself, so it is at least
    // one and cannot reach back into the header.
    paddingLength = datagram[length - 1];
    if (paddingLength === 0 || payloadOffset + paddingLength > length) return 'bad-padding';
  }

  into.payloadType = second & 0x7f;
  into.marker = (second & 0x80) !== 0;
  into.sequenceNumber = (datagram[2] << 8) | datagram[3];
  into.timestamp = ((datagram[4] << 24) | (datagram[5] << 16) | (datagram[6] << 8) | datagram[7]) >>> 0;
  into.ssrc = ((datagram[8] << 24) | (datagram[9] << 16) | (datagram[10] << 8) | datagram[11]) >>> 0;
  into.csrcCount = csrcCount;
  into.hasExtension = hasExtension;
  into.paddingLength = paddingLength;
  into.payloadOffset = payloadOffset;
  into.payloadLength = length - payloadOffset - paddingLength;
  return null;
}
