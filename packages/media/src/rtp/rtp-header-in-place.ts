/**
 * In-place header rewriting for relayed packets: a relay that sends a received datagram on as it is,
 * with only its header changed, touches each packet once and allocates nothing for it.
 */

/** Whether a parsed packet's payload directly follows the 12-byte fixed header with no padding. */
export function hasPlainHeader(info: { payloadOffset: number; paddingLength: number }): boolean {
  return info.payloadOffset === 12 && info.paddingLength === 0;
}

/**
 * Rewrites a received datagram's fixed header in place into the sending leg's stream (RFC 3550
 * §5.1 layout): marker and payload type in octet 1, then sequence number, timestamp and SSRC. Only
 * for a datagram whose payload starts right after the 12-byte fixed header (no CSRC, no extension)
 * and carries no padding, so octet 0 already reads V=2, P=0, X=0, CC=0.
 */
export function writeRelayedHeader(
  datagram: Uint8Array,
  header: { sequenceNumber: number; timestamp: number; marker: boolean },
  payloadType: number,
  ssrc: number,
): void {
  datagram[1] = (header.marker ? 0x80 : 0) | (payloadType & 0x7f);
  const sequence = header.sequenceNumber;
  datagram[2] = (sequence >>> 8) & 0xff;
  datagram[3] = sequence & 0xff;
  const timestamp = header.timestamp;
  datagram[4] = timestamp >>> 24;
  datagram[5] = (timestamp >>> 16) & 0xff;
  datagram[6] = (timestamp >>> 8) & 0xff;
  datagram[7] = timestamp & 0xff;
  datagram[8] = ssrc >>> 24;
  datagram[9] = (ssrc >>> 16) & 0xff;
  datagram[10] = (ssrc >>> 8) & 0xff;
  datagram[11] = ssrc & 0xff;
}
