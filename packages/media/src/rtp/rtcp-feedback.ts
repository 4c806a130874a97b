/**
 * RTCP payload-specific feedback used to ask a video sender for a keyframe: Picture Loss
 * Indication (RFC 4585 §6.3.1) and Full Intra Request (RFC 5104 §4.3.1). Received datagrams are
 * hostile: the scanner checks every length against the bytes present and never throws.
 *
 *   common feedback header (RFC 4585 §6.1):
 *     V=2 | P | FMT (5) | PT=206 (8) | length (16) | SSRC of packet sender | SSRC of media source
 */

/** RFC 4585 §6.1: payload-specific feedback. */
export const RTCP_PSFB = 206;
/** RFC 4585 §6.3.1. */
export const FMT_PLI = 1;
/** RFC 5104 §4.3.1. */
export const FMT_FIR = 4;

/** A 12-byte PLI from `senderSsrc` about the stream `mediaSsrc`. */
export function buildPli(senderSsrc: number, mediaSsrc: number): Buffer {
  const packet = Buffer.alloc(12);
  packet[0] = 0x80 | FMT_PLI;
  packet[1] = RTCP_PSFB;
  packet.writeUInt16BE(2, 2);
  packet.writeUInt32BE(senderSsrc >>> 0, 4);
  packet.writeUInt32BE(mediaSsrc >>> 0, 8);
  return packet;
}

/**
 * A 20-byte FIR from `senderSsrc` for the stream `mediaSsrc`: the media source field is 0 and the
 * target goes in the FCI with a command sequence number that must change for each new request
 * (RFC 5104 §4.3.1.1).
 */
export function buildFir(senderSsrc: number, mediaSsrc: number, sequence: number): Buffer {
  const packet = Buffer.alloc(20);
  packet[0] = 0x80 | FMT_FIR;
  packet[1] = RTCP_PSFB;
  packet.writeUInt16BE(4, 2);
  packet.writeUInt32BE(senderSsrc >>> 0, 4);
  packet.writeUInt32BE(0, 8);
  packet.writeUInt32BE(mediaSsrc >>> 0, 12);
  packet[16] = sequence & 0xff;
  return packet;
}

/**
 * The stream a (compound) RTCP datagram asks a keyframe of: the media source SSRC of its first PLI,
 * or the target SSRC of its first FIR (0 when the FIR carries no FCI). Null when it carries
 * neither; malformed input is simply null.
 */
export function keyframeRequestOf(datagram: Uint8Array): number | null {
  const view = new DataView(datagram.buffer, datagram.byteOffset, datagram.byteLength);
  let at = 0;
  while (at + 4 <= datagram.length) {
    if (datagram[at] >> 6 !== 2) return null;
    const packetType = datagram[at + 1];
    const fmt = datagram[at] & 0x1f;
    const size = (view.getUint16(at + 2) + 1) * 4;
    if (at + size > datagram.length) return null;
    if (packetType === RTCP_PSFB && fmt === FMT_PLI && size >= 12) return view.getUint32(at + 8);
    if (packetType === RTCP_PSFB && fmt === FMT_FIR && size >= 12) return size >= 20 ? view.getUint32(at + 12) : 0;
    at += size;
  }
  return null;
}

/** Whether a (compound) RTCP datagram carries a PLI or a FIR. */
export function hasKeyframeRequest(datagram: Uint8Array): boolean {
  return keyframeRequestOf(datagram) !== null;
}
