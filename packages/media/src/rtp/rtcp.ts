/**
 * RTCP packets (RFC 3550 §6.4–6.6): sender and receiver reports, SDES CNAME and BYE, read from
 * and written to compound packets. Received datagrams are hostile: the parser checks every
 * length against the bytes present and returns a typed failure, it never throws.
 *
 *   common header (§6.4.1):  V=2 | P | RC/SC (5) | PT (8) | length in 32-bit words − 1 (16)
 */

export const RTCP_SR = 200;
export const RTCP_RR = 201;
export const RTCP_SDES = 202;
export const RTCP_BYE = 203;
/** SDES item type CNAME (§6.5.1). */
const SDES_CNAME = 1;

/** One reception report block (§6.4.1), about the stream of `ssrc`. */
export interface ReportBlock {
  ssrc: number;
  /** Fraction of packets lost since the previous report, in 1/256 (8 bits). */
  fractionLost: number;
  /** Cumulative packets lost (24-bit signed: duplicates can make it negative). */
  cumulativeLost: number;
  extendedHighestSeq: number;
  /** Interarrival jitter in timestamp units. */
  jitter: number;
  /** Middle 32 bits of the NTP timestamp of the last SR received from `ssrc` (0: none yet). */
  lastSr: number;
  /** Delay since that SR, in 1/65536 s. */
  delaySinceLastSr: number;
}

export interface SenderInfo {
  /** NTP timestamp, seconds since 1900 and fraction (two 32-bit words). */
  ntpSeconds: number;
  ntpFraction: number;
  rtpTimestamp: number;
  packetCount: number;
  octetCount: number;
}

export type RtcpPacket =
  | { type: 'sr'; ssrc: number; sender: SenderInfo; reports: ReportBlock[] }
  | { type: 'rr'; ssrc: number; reports: ReportBlock[] }
  | { type: 'sdes'; chunks: Array<{ ssrc: number; cname?: string }> }
  | { type: 'bye'; ssrcs: number[]; reason?: string }
  | { type: 'other'; packetType: number };

export type RtcpParseFailure = 'too-short' | 'bad-version' | 'bad-length' | 'bad-padding' | 'not-report-first' | 'truncated-body';

export type RtcpParseResult = { ok: true; packets: RtcpPacket[] } | { ok: false; reason: RtcpParseFailure };

const REPORT_BLOCK_SIZE = 24;

function readBlock(view: DataView, offset: number): ReportBlock {
  const lostWord = view.getUint32(offset + 4);
  const cumulative = lostWord & 0xffffff;
  return {
    ssrc: view.getUint32(offset),
    fractionLost: lostWord >>> 24,
    cumulativeLost: cumulative & 0x800000 ? cumulative - 0x1000000 : cumulative,
    extendedHighestSeq: view.getUint32(offset + 8),
    jitter: view.getUint32(offset + 12),
    lastSr: view.getUint32(offset + 16),
    delaySinceLastSr: view.getUint32(offset + 20),
  };
}

function readBlocks(view: DataView, offset: number, count: number, end: number): ReportBlock[] | null {
  if (offset + count * REPORT_BLOCK_SIZE > end) return null;
  const blocks: ReportBlock[] = [];
  for (let i = 0; i < count; i += 1) blocks.push(readBlock(view, offset + i * REPORT_BLOCK_SIZE));
  return blocks;
}

function readSdes(bytes: Uint8Array, view: DataView, offset: number, count: number, end: number): RtcpPacket | null {
  const chunks: Array<{ ssrc: number; cname?: string }> = [];
  let at = offset;
  for (let c = 0; c < count; c += 1) {
    if (at + 4 > end) return null;
    const chunk: { ssrc: number; cname?: string } = { ssrc: view.getUint32(at) };
    at += 4;
    // Items until a null octet; the chunk then pads to a 32-bit boundary (§6.5).
    for (;;) {
      if (at >= end) return null;
      const itemType = bytes[at];
      if (itemType === 0) break;
      if (at + 2 > end) return null;
      const length = bytes[at + 1];
      if (at + 2 + length > end) return null;
      if (itemType === SDES_CNAME) chunk.cname = Buffer.from(bytes.subarray(at + 2, at + 2 + length)).toString('utf8');
      at += 2 + length;
    }
    at = (at + 4) & ~3;
    chunks.push(chunk);
  }
  return { type: 'sdes', chunks };
}

function readBye(bytes: Uint8Array, view: DataView, offset: number, count: number, end: number): RtcpPacket | null {
  if (offset + count * 4 > end) return null;
  const ssrcs: number[] = [];
  for (let i = 0; i < count; i += 1) ssrcs.push(view.getUint32(offset + i * 4));
  const reasonAt = offset + count * 4;
  if (reasonAt < end) {
    const length = bytes[reasonAt];
    if (reasonAt + 1 + length > end) return null;
    return { type: 'bye', ssrcs, reason: Buffer.from(bytes.subarray(reasonAt + 1, reasonAt + 1 + length)).toString('utf8') };
  }
  return { type: 'bye', ssrcs };
}

/** Parses a compound RTCP packet. RFC 3550 §6.1: the first packet must be an SR or RR. */
export function parseRtcp(datagram: Uint8Array): RtcpParseResult {
  const view = new DataView(datagram.buffer, datagram.byteOffset, datagram.byteLength);
  const packets: RtcpPacket[] = [];
  let offset = 0;
  if (datagram.length < 8) return { ok: false, reason: 'too-short' };
  while (offset < datagram.length) {
    if (offset + 4 > datagram.length) return { ok: false, reason: 'too-short' };
    const first = datagram[offset];
    if (first >> 6 !== 2) return { ok: false, reason: 'bad-version' };
    const padded = (first & 0x20) !== 0;
    const count = first & 0x1f;
    const packetType = datagram[offset + 1];
    const size = (view.getUint16(offset + 2) + 1) * 4;
    if (offset + size > datagram.length) return { ok: false, reason: 'bad-length' };
    let end = offset + size;
    if (padded) {
      // Only the last packet of a compound may be padded (§6.4.1); its last octet counts the padding.
      const padding = datagram[end - 1];
      if (end !== datagram.length || padding === 0 || padding > size - 4) return { ok: false, reason: 'bad-padding' };
      end -= padding;
    }
    if (packets.length === 0 && packetType !== RTCP_SR && packetType !== RTCP_RR) return { ok: false, reason: 'not-report-first' };
    const body = offset + 4;
    let packet: RtcpPacket | null;
    switch (packetType) {
      case RTCP_SR: {
        if (body + 24 > end) return { ok: false, reason: 'truncated-body' };
        const reports = readBlocks(view, body + 24, count, end);
        packet =
          reports === null
            ? null
            : {
                type: 'sr',
                ssrc: view.getUint32(body),
                sender: {
                  ntpSeconds: view.getUint32(body + 4),
                  ntpFraction: view.getUint32(body + 8),
                  rtpTimestamp: view.getUint32(body + 12),
                  packetCount: view.getUint32(body + 16),
                  octetCount: view.getUint32(body + 20),
                },
                reports,
              };
        break;
      }
      case RTCP_RR: {
        if (body + 4 > end) return { ok: false, reason: 'truncated-body' };
        const reports = readBlocks(view, body + 4, count, end);
        packet = reports === null ? null : { type: 'rr', ssrc: view.getUint32(body), reports };
        break;
      }
      case RTCP_SDES:
        packet = readSdes(datagram, view, body, count, end);
        break;
      case RTCP_BYE:
        packet = readBye(datagram, view, body, count, end);
        break;
      default:
        packet = { type: 'other', packetType };
    }
    if (packet === null) return { ok: false, reason: 'truncated-body' };
    packets.push(packet);
    offset += size;
  }
  return { ok: true, packets };
}

function header(out: DataView, offset: number, count: number, packetType: number, bytes: number): void {
  out.setUint8(offset, 0x80 | (count & 0x1f));
  out.setUint8(offset + 1, packetType);
  out.setUint16(offset + 2, bytes / 4 - 1);
}

function writeBlock(out: DataView, offset: number, block: ReportBlock): void {
  const fraction = Math.max(0, Math.min(255, block.fractionLost));
  // Cumulative loss is clamped to the 24-bit signed range (§6.4.1).
  const cumulative = Math.max(-0x800000, Math.min(0x7fffff, block.cumulativeLost)) & 0xffffff;
  out.setUint32(offset, block.ssrc >>> 0);
  out.setUint32(offset + 4, ((fraction << 24) | cumulative) >>> 0);
  out.setUint32(offset + 8, block.extendedHighestSeq >>> 0);
  out.setUint32(offset + 12, Math.max(0, Math.round(block.jitter)) >>> 0);
  out.setUint32(offset + 16, block.lastSr >>> 0);
  out.setUint32(offset + 20, block.delaySinceLastSr >>> 0);
}

/** A sender report (§6.4.1) with up to 31 report blocks. */
export function buildSenderReport(ssrc: number, sender: SenderInfo, reports: readonly ReportBlock[] = []): Uint8Array {
  const blocks = reports.slice(0, 31);
  const bytes = 28 + blocks.length * REPORT_BLOCK_SIZE;
  const out = new Uint8Array(bytes);
  const view = new DataView(out.buffer);
  header(view, 0, blocks.length, RTCP_SR, bytes);
  view.setUint32(4, ssrc >>> 0);
  view.setUint32(8, sender.ntpSeconds >>> 0);
  view.setUint32(12, sender.ntpFraction >>> 0);
  view.setUint32(16, sender.rtpTimestamp >>> 0);
  view.setUint32(20, sender.packetCount >>> 0);
  view.setUint32(24, sender.octetCount >>> 0);
  for (const [i, block] of blocks.entries()) writeBlock(view, 28 + i * REPORT_BLOCK_SIZE, block);
  return out;
}

/** A receiver report (§6.4.2); with no blocks it is the empty RR that must head a compound. */
export function buildReceiverReport(ssrc: number, reports: readonly ReportBlock[] = []): Uint8Array {
  const blocks = reports.slice(0, 31);
  const bytes = 8 + blocks.length * REPORT_BLOCK_SIZE;
  const out = new Uint8Array(bytes);
  const view = new DataView(out.buffer);
  header(view, 0, blocks.length, RTCP_RR, bytes);
  view.setUint32(4, ssrc >>> 0);
  for (const [i, block] of blocks.entries()) writeBlock(view, 8 + i * REPORT_BLOCK_SIZE, block);
  return out;
}

/** An SDES packet with one chunk carrying CNAME (§6.5.1), which every compound must include. */
export function buildSdesCname(ssrc: number, cname: string): Uint8Array {
  const text = Buffer.from(cname, 'utf8').subarray(0, 255);
  // SSRC, CNAME item (type, length, text), at least one null octet, padded to 32 bits.
  const bytes = (4 + 4 + 2 + text.length + 1 + 3) & ~3;
  const out = new Uint8Array(bytes);
  const view = new DataView(out.buffer);
  header(view, 0, 1, RTCP_SDES, bytes);
  view.setUint32(4, ssrc >>> 0);
  out[8] = SDES_CNAME;
  out[9] = text.length;
  out.set(text, 10);
  return out;
}

/**
 * An SDES packet with one CNAME chunk per SSRC (§6.5): a participant that sends several streams
 * names each of them, all with the same CNAME. Up to 31 chunks.
 */
export function buildSdesCnames(ssrcs: readonly number[], cname: string): Uint8Array {
  const text = Buffer.from(cname, 'utf8').subarray(0, 255);
  const list = ssrcs.slice(0, 31);
  // Each chunk: SSRC, CNAME item (type, length, text), at least one null octet, padded to 32 bits.
  const chunkBytes = (4 + 2 + text.length + 1 + 3) & ~3;
  const bytes = 4 + list.length * chunkBytes;
  const out = new Uint8Array(bytes);
  const view = new DataView(out.buffer);
  header(view, 0, list.length, RTCP_SDES, bytes);
  for (const [i, ssrc] of list.entries()) {
    const at = 4 + i * chunkBytes;
    view.setUint32(at, ssrc >>> 0);
    out[at + 4] = SDES_CNAME;
    out[at + 5] = text.length;
    out.set(text, at + 6);
  }
  return out;
}

/** A BYE (§6.6), optionally with a reason. */
export function buildBye(ssrcs: readonly number[], reason?: string): Uint8Array {
  const text = reason === undefined ? null : Buffer.from(reason, 'utf8').subarray(0, 255);
  const list = ssrcs.slice(0, 31);
  const bytes = (4 + list.length * 4 + (text === null ? 0 : 1 + text.length) + 3) & ~3;
  const out = new Uint8Array(bytes);
  const view = new DataView(out.buffer);
  header(view, 0, list.length, RTCP_BYE, bytes);
  for (const [i, ssrc] of list.entries()) view.setUint32(4 + i * 4, ssrc >>> 0);
  if (text !== null) {
    out[4 + list.length * 4] = text.length;
    out.set(text, 5 + list.length * 4);
  }
  return out;
}

/** Concatenates packets into one compound datagram (§6.1). */
export function compound(packets: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(packets.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const packet of packets) {
    out.set(packet, at);
    at += packet.length;
  }
  return out;
}

/** Seconds between the NTP epoch (1900) and the Unix epoch (1970). */
const NTP_UNIX_OFFSET_S = 2208988800;

/** Unix milliseconds → 64-bit NTP timestamp (§4) as two words. */
export function ntpFromUnixMs(unixMs: number): { seconds: number; fraction: number } {
  const seconds = Math.floor(unixMs / 1000);
  const fraction = Math.floor(((unixMs - seconds * 1000) / 1000) * 4294967296);
  return { seconds: (seconds + NTP_UNIX_OFFSET_S) >>> 0, fraction: fraction >>> 0 };
}

/** The middle 32 bits of the NTP timestamp (16.16 seconds), the unit of LSR and of RTT arithmetic. */
export function ntpMiddle32(unixMs: number): number {
  const { seconds, fraction } = ntpFromUnixMs(unixMs);
  return (((seconds & 0xffff) << 16) | (fraction >>> 16)) >>> 0;
}
