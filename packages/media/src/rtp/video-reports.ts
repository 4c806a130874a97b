/**
 * RTCP sender and receiver reports of one leg's video stream (RFC 3550 §6.4). The bridge is the RTP
 * endpoint of each leg: what the phone sends is reported on here (one reception report block about
 * the phone's stream, A.1/A.3/A.8 statistics at the 90 kHz video clock), and every stream the leg
 * sends to its phone gets its own SR (in `sfu` mode one per forwarded sender, in `single`/`talker`
 * mode the receiver's own stream). Reports from the phone are read, never forwarded: they name the
 * streams as this leg sent them, and an SR of another sender would carry another timeline.
 *
 * `onSend` and `onReceive` run for every packet and allocate nothing once a stream is known.
 * Time is passed in (Unix milliseconds, the NTP clock of SR/RR) so tests drive it without sleeping.
 */
import {
  type ReportBlock,
  type RtcpPacket,
  buildReceiverReport,
  buildSdesCnames,
  buildSenderReport,
  compound,
  ntpFromUnixMs,
  ntpMiddle32,
} from './rtcp.js';
import { ReceiverStatistics } from './rtcp-stats.js';

/** RFC 3551 §5: video clocks run at 90 kHz. */
export const VIDEO_CLOCK_RATE = 90000;
/** At most this many streams are reported (an SR each, all in one compound). */
const MAX_SENT_STREAMS = 16;
/** A stream not sent for this long is forgotten (RFC 3550 §6.3.5: five report intervals of 5 s). */
const SENT_STREAM_TIMEOUT_MS = 25_000;

/** What the leg sent in one SSRC, and what the phone last reported about it. */
export interface SentStreamState {
  readonly ssrc: number;
  packets: number;
  /** Payload octets (§6.4.1 counts neither headers nor padding). */
  octets: number;
  lastTimestamp: number;
  lastSentAtMs: number;
  /** Reports built since the stream's last packet (0: it sent during the current interval). */
  reportsSinceSent: number;
  /** From the phone's reception report blocks about this stream (null before any). */
  remote: { fractionLost: number; cumulativeLost: number; jitter: number; rttSeconds: number | null } | null;
}

export interface VideoReceptionState {
  ssrc: number;
  received: number;
  lost: number;
  extendedHighestSeq: number;
  /** Interarrival jitter in 90 kHz units. */
  jitter: number;
}

export class VideoReports {
  /** Our SSRC as a receiver (the RR's sender; also the sender SSRC of our feedback). */
  readonly localSsrc: number;
  readonly #cname: string;
  #source: ReceiverStatistics | null = null;
  readonly #sent = new Map<number, SentStreamState>();
  /** LSR and when that SR arrived (§6.4.1), for the DLSR of the next report. */
  #lastSr = 0;
  #lastSrArrivalMs = 0;

  constructor(localSsrc: number, cname: string) {
    this.localSsrc = localSsrc >>> 0;
    this.#cname = cname;
  }

  /** One valid RTP packet from the phone. A new SSRC starts its statistics afresh (A.1). */
  onReceive(ssrc: number, sequenceNumber: number, timestamp: number, nowMs: number): void {
    if (this.#source === null || this.#source.ssrc !== ssrc >>> 0)
      this.#source = new ReceiverStatistics(ssrc >>> 0, sequenceNumber, VIDEO_CLOCK_RATE);
    this.#source.receive(sequenceNumber, timestamp >>> 0, nowMs);
  }

  /** One RTP packet sent to the phone in stream `ssrc`. */
  onSend(ssrc: number, payloadOctets: number, timestamp: number, nowMs: number): void {
    let stream = this.#sent.get(ssrc);
    if (stream === undefined) {
      if (this.#sent.size >= MAX_SENT_STREAMS) return;
      stream = { ssrc, packets: 0, octets: 0, lastTimestamp: 0, lastSentAtMs: 0, reportsSinceSent: 0, remote: null };
      this.#sent.set(ssrc, stream);
    }
    stream.packets += 1;
    stream.octets += payloadOctets;
    stream.lastTimestamp = timestamp >>> 0;
    stream.lastSentAtMs = nowMs;
    stream.reportsSinceSent = 0;
  }

  /** Parsed RTCP from the phone: its SR for our LSR/DLSR, its report blocks about our streams. */
  onRtcp(packets: readonly RtcpPacket[], nowMs: number): void {
    for (const packet of packets) {
      if (packet.type === 'sr' && (this.#source === null || packet.ssrc >>> 0 === this.#source.ssrc)) {
        this.#lastSr = (((packet.sender.ntpSeconds & 0xffff) << 16) | (packet.sender.ntpFraction >>> 16)) >>> 0;
        this.#lastSrArrivalMs = nowMs;
      }
      if (packet.type !== 'sr' && packet.type !== 'rr') continue;
      for (const block of packet.reports) {
        const stream = this.#sent.get(block.ssrc >>> 0);
        if (stream === undefined) continue;
        // §6.4.1: RTT = A − LSR − DLSR in 1/65536 s; an LSR of 0 means the phone had no SR of ours yet.
        const rtt = block.lastSr === 0 ? null : ((ntpMiddle32(nowMs) - block.lastSr - block.delaySinceLastSr) >>> 0) / 65536;
        stream.remote = {
          fractionLost: block.fractionLost,
          cumulativeLost: block.cumulativeLost,
          jitter: block.jitter,
          rttSeconds: rtt !== null && rtt < 60 ? rtt : null,
        };
      }
    }
  }

  /**
   * The compound packet to send now (§6.1): an SR first for every stream that sent "during the
   * interval since issuing the last report or the previous one" (§6.4; the first SR carries the
   * reception report block about the phone), or an RR when none did, then one SDES with a CNAME
   * chunk for each SSRC that spoke.
   */
  buildReport(nowMs: number): Uint8Array {
    const blocks: ReportBlock[] = [];
    const source = this.#source;
    if (source !== null) {
      const dlsr = this.#lastSr === 0 ? 0 : Math.max(0, Math.round(((nowMs - this.#lastSrArrivalMs) * 65536) / 1000));
      blocks.push(source.reportBlock(this.#lastSr, dlsr));
    }
    const packets: Uint8Array[] = [];
    const speakers: number[] = [];
    const ntp = ntpFromUnixMs(nowMs);
    // The stream sent most recently heads the compound and carries the reception report block.
    const streams = [...this.#sent.values()].sort((x, y) => y.lastSentAtMs - x.lastSentAtMs);
    for (const stream of streams) {
      stream.reportsSinceSent += 1;
      if (stream.reportsSinceSent > 2) {
        if (nowMs - stream.lastSentAtMs > SENT_STREAM_TIMEOUT_MS) this.#sent.delete(stream.ssrc);
        continue;
      }
      // The SR's RTP timestamp is the NTP instant on the stream's clock (§6.4.1): extrapolated from its last packet.
      const rtpTimestamp = (stream.lastTimestamp + Math.round(((nowMs - stream.lastSentAtMs) * VIDEO_CLOCK_RATE) / 1000)) >>> 0;
      const info = {
        ntpSeconds: ntp.seconds,
        ntpFraction: ntp.fraction,
        rtpTimestamp,
        packetCount: stream.packets,
        octetCount: stream.octets,
      };
      packets.push(buildSenderReport(stream.ssrc, info, packets.length === 0 ? blocks : []));
      speakers.push(stream.ssrc);
    }
    if (packets.length === 0) {
      packets.push(buildReceiverReport(this.localSsrc, blocks));
      speakers.push(this.localSsrc);
    }
    packets.push(buildSdesCnames(speakers, this.#cname));
    return compound(packets);
  }

  /**
   * The head that makes feedback a compound packet (RFC 4585 §3.1: feedback goes in compound RTCP
   * unless reduced size is negotiated, RFC 5506): an RR without report blocks (so that the loss
   * interval of the next regular report is not cut short) and SDES CNAME.
   */
  feedbackHead(): Uint8Array {
    return compound([buildReceiverReport(this.localSsrc), buildSdesCnames([this.localSsrc], this.#cname)]);
  }

  /** What was received from the phone (null before any packet). */
  reception(): VideoReceptionState | null {
    const source = this.#source;
    if (source === null) return null;
    return {
      ssrc: source.ssrc,
      received: source.received,
      lost: source.lost,
      extendedHighestSeq: source.extendedHighestSeq,
      jitter: source.jitter,
    };
  }

  /** The streams sent to the phone that are still reported on. */
  sentStreams(): SentStreamState[] {
    return [...this.#sent.values()].map((stream) => ({ ...stream, remote: stream.remote === null ? null : { ...stream.remote } }));
  }
}
