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

/** RFC 4585 §6.1: transport-layer feedback. */
export const RTCP_RTPFB = 205;
/** RFC 4585 §6.2.1: generic NACK. */
export const FMT_NACK = 1;

/** One generic NACK: the stream it is about and the sequence numbers it names as lost. */
export interface NackRequest {
  mediaSsrc: number;
  sequences: number[];
}

/**
 * A generic NACK (RFC 4585 §6.2.1) from `senderSsrc` about `mediaSsrc`, naming `sequences`. Each FCI
 * entry is a packet ID (PID) and a bitmask (BLP) whose bit i names PID + i + 1, so a run of up to 17
 * sequence numbers fits in one entry; duplicates are folded.
 */
export function buildNack(senderSsrc: number, mediaSsrc: number, sequences: readonly number[]): Buffer {
  const entries: Array<{ pid: number; blp: number }> = [];
  for (const raw of sequences) {
    const sequence = raw & 0xffff;
    let placed = false;
    for (const entry of entries) {
      const distance = (sequence - entry.pid) & 0xffff;
      if (distance === 0) placed = true;
      else if (distance <= 16) {
        entry.blp |= 1 << (distance - 1);
        placed = true;
      }
      if (placed) break;
    }
    if (!placed) entries.push({ pid: sequence, blp: 0 });
  }
  const packet = Buffer.alloc(12 + entries.length * 4);
  packet[0] = 0x80 | FMT_NACK;
  packet[1] = RTCP_RTPFB;
  packet.writeUInt16BE(packet.length / 4 - 1, 2);
  packet.writeUInt32BE(senderSsrc >>> 0, 4);
  packet.writeUInt32BE(mediaSsrc >>> 0, 8);
  for (const [i, entry] of entries.entries()) {
    packet.writeUInt16BE(entry.pid, 12 + i * 4);
    packet.writeUInt16BE(entry.blp & 0xffff, 14 + i * 4);
  }
  return packet;
}

/**
 * Every generic NACK in a (compound or reduced-size, RFC 5506) RTCP datagram, with the sequence
 * numbers its FCI entries name, in order. Malformed input ends the scan: what was read before is kept.
 */
export function nacksOf(datagram: Uint8Array): NackRequest[] {
  const view = new DataView(datagram.buffer, datagram.byteOffset, datagram.byteLength);
  const nacks: NackRequest[] = [];
  let at = 0;
  while (at + 4 <= datagram.length) {
    if (datagram[at] >> 6 !== 2) break;
    const size = (view.getUint16(at + 2) + 1) * 4;
    if (at + size > datagram.length) break;
    if (datagram[at + 1] === RTCP_RTPFB && (datagram[at] & 0x1f) === FMT_NACK && size >= 16) {
      const sequences: number[] = [];
      // A padded packet's last octet counts its padding (RFC 3550 §6.4.1), which is no FCI.
      const end = datagram[at] & 0x20 ? at + size - datagram[at + size - 1] : at + size;
      for (let fci = at + 12; fci + 4 <= end; fci += 4) {
        const pid = view.getUint16(fci);
        const blp = view.getUint16(fci + 2);
        sequences.push(pid);
        for (let bit = 0; bit < 16; bit += 1) if (blp & (1 << bit)) sequences.push((pid + bit + 1) & 0xffff);
      }
      nacks.push({ mediaSsrc: view.getUint32(at + 8), sequences });
    }
    at += size;
  }
  return nacks;
}
