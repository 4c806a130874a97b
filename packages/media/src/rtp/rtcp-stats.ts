/**
 * RTP session statistics for one leg: what we sent, what we received (RFC 3550 Appendix A.1,
 * A.3 and A.8), what the peer reports about us in its RTCP, and the round-trip time from LSR/DLSR
 * (§6.4.1). `RtpStatsTracker` is fed by the leg (on send, on receive, on RTCP received) and
 * builds the compound RTCP packet the leg sends every few seconds; `statistics()` gives the
 * reference's RTPstat figures.
 *
 * Time is passed in: `nowMs` is Unix milliseconds (the NTP clock of SR/RR), so a test drives the
 * tracker without sleeping. Jitter and RTT figures are reported in seconds, as the reference does.
 */
import type { LegRtpStatistics } from '@switchboard/media-control';
import {
  type ReportBlock,
  type RtcpPacket,
  buildReceiverReport,
  buildSdesCname,
  buildSenderReport,
  compound,
  ntpFromUnixMs,
  ntpMiddle32,
} from './rtcp.js';

/** RFC 3550 A.1: the highest jump or reordering still treated as the same stream. */
const MAX_DROPOUT = 3000;
const MAX_MISORDER = 100;

/** Running minimum, maximum, mean and standard deviation (Welford's update), for RTPstat. */
export class RunningStats {
  count = 0;
  min = 0;
  max = 0;
  #mean = 0;
  #m2 = 0;

  add(value: number): void {
    this.count += 1;
    if (this.count === 1) {
      this.min = value;
      this.max = value;
    } else {
      this.min = Math.min(this.min, value);
      this.max = Math.max(this.max, value);
    }
    const delta = value - this.#mean;
    this.#mean += delta / this.count;
    this.#m2 += delta * (value - this.#mean);
  }

  get mean(): number {
    return this.#mean;
  }

  get stdev(): number {
    return this.count > 1 ? Math.sqrt(this.#m2 / (this.count - 1)) : 0;
  }
}

/** Reception statistics of one source (RFC 3550 A.1 sequence tracking, A.3 loss, A.8 jitter). */
export class ReceiverStatistics {
  readonly ssrc: number;
  readonly #clockRate: number;
  #baseSeq = 0;
  #maxSeq = 0;
  #cycles = 0;
  #badSeq = -1;
  received = 0;
  #expectedPrior = 0;
  #receivedPrior = 0;
  /** The previous packet's relative transit time; NaN before the first (a number, like `RtpLeg`'s clock fields: see there). */
  #transit = Number.NaN;
  /** Interarrival jitter in timestamp units (A.8, kept unscaled). */
  jitter = 0;

  constructor(ssrc: number, seq: number, clockRate: number) {
    this.ssrc = ssrc;
    this.#clockRate = clockRate;
    this.#init(seq);
  }

  #init(seq: number): void {
    this.#baseSeq = seq;
    this.#maxSeq = seq;
    this.#cycles = 0;
    this.#badSeq = -1;
    this.received = 0;
    this.#expectedPrior = 0;
    this.#receivedPrior = 0;
  }

  /** Counts one packet (A.1's update_seq); returns false for one judged out of the stream. */
  receive(seq: number, timestamp: number, arrivalMs: number): boolean {
    const delta = (seq - this.#maxSeq) & 0xffff;
    if (delta < MAX_DROPOUT) {
      if (seq < this.#maxSeq && delta !== 0) this.#cycles += 65536; // wrapped
      this.#maxSeq = seq;
    } else if (delta <= 65536 - MAX_MISORDER) {
      // A very large jump: believed only when the next packet follows it (the source restarted).
      if (seq === this.#badSeq) {
        this.#init(seq);
      } else {
        this.#badSeq = (seq + 1) & 0xffff;
        return false;
      }
    }
    // Otherwise a duplicate or reordered packet: counted, max unchanged.
    this.received += 1;
    // A.8: D(i−1, i) from the relative transit times, J += (|D| − J) / 16.
    const transit = (arrivalMs * this.#clockRate) / 1000 - timestamp;
    if (!Number.isNaN(this.#transit)) {
      let d = transit - this.#transit;
      // Timestamps wrap at 2^32: take the difference modulo it.
      if (d > 2147483648) d -= 4294967296;
      else if (d < -2147483648) d += 4294967296;
      this.jitter += (Math.abs(d) - this.jitter) / 16;
    }
    this.#transit = transit;
    return true;
  }

  get extendedHighestSeq(): number {
    return this.#cycles + this.#maxSeq;
  }

  get expected(): number {
    return this.extendedHighestSeq - this.#baseSeq + 1;
  }

  /** Cumulative packets lost (A.3); negative when duplicates outnumber losses. */
  get lost(): number {
    return this.expected - this.received;
  }

  /**
   * The report block about this source (A.3), and moves the interval marks: the fraction lost
   * covers the packets since the previous call.
   */
  reportBlock(lastSr: number, delaySinceLastSr: number): ReportBlock {
    const expected = this.expected;
    const expectedInterval = expected - this.#expectedPrior;
    const receivedInterval = this.received - this.#receivedPrior;
    this.#expectedPrior = expected;
    this.#receivedPrior = this.received;
    const lostInterval = expectedInterval - receivedInterval;
    const fractionLost = expectedInterval === 0 || lostInterval <= 0 ? 0 : Math.floor((lostInterval * 256) / expectedInterval);
    return {
      ssrc: this.ssrc,
      fractionLost: Math.min(255, fractionLost),
      cumulativeLost: this.lost,
      extendedHighestSeq: this.extendedHighestSeq >>> 0,
      jitter: Math.floor(this.jitter),
      lastSr,
      delaySinceLastSr,
    };
  }
}

/** The reference's RTPstat figures, as `getRtpStatistics` returns them (declared once in @switchboard/media-control). */
export type RtpStatisticsSnapshot = LegRtpStatistics;

export interface RtpStatsTrackerOptions {
  localSsrc: number;
  /** RTP clock rate of the leg's codec (jitter is converted to seconds with it). */
  clockRate: number;
  /** SDES CNAME (§6.5.1): stable per endpoint. */
  cname: string;
}

function spread(prefix: 'remote' | 'local', name: 'jitter' | 'rxploss', stats: RunningStats): Partial<RtpStatisticsSnapshot> {
  if (stats.count === 0) return {};
  return {
    [`${prefix}_max${name}`]: stats.max,
    [`${prefix}_min${name}`]: stats.min,
    // The reference's "normdev" is the mean of the samples.
    [`${prefix}_normdev${name}`]: stats.mean,
    [`${prefix}_stdev${name}`]: stats.stdev,
  };
}

export class RtpStatsTracker {
  readonly localSsrc: number;
  /** RTP clock of the codec in use; the leg updates it when the codec changes. */
  clockRate: number;
  readonly #cname: string;
  #sentPackets = 0;
  #sentOctets = 0;
  #lastRtpTimestamp = 0;
  #lastSentAtMs = 0;
  #sentSinceReport = false;
  #receivedOctets = 0;
  #source: ReceiverStatistics | null = null;
  /** LSR and when that SR arrived (§6.4.1), for the DLSR of our next report. */
  #lastSr = 0;
  #lastSrArrivalMs = 0;

  // What the peer reports about our stream.
  #remoteJitter: number | null = null;
  #remoteLost = 0;
  readonly #remoteJitterStats = new RunningStats();
  readonly #remoteLossStats = new RunningStats();
  readonly #localJitterStats = new RunningStats();
  readonly #localLossStats = new RunningStats();
  readonly #rttStats = new RunningStats();
  #rtt: number | null = null;

  constructor(options: RtpStatsTrackerOptions) {
    this.localSsrc = options.localSsrc >>> 0;
    this.clockRate = options.clockRate;
    this.#cname = options.cname;
  }

  /** One RTP packet sent: payload octets (§6.4.1 counts payload only) and its timestamp. */
  onSend(payloadOctets: number, rtpTimestamp: number, nowMs: number): void {
    this.#sentPackets += 1;
    this.#sentOctets += payloadOctets;
    this.#lastRtpTimestamp = rtpTimestamp >>> 0;
    this.#lastSentAtMs = nowMs;
    this.#sentSinceReport = true;
  }

  /** One RTP packet received from the peer. A new SSRC starts its statistics afresh. */
  onReceive(ssrc: number, sequenceNumber: number, timestamp: number, payloadOctets: number, nowMs: number): void {
    if (this.#source === null || this.#source.ssrc !== ssrc >>> 0) {
      this.#source = new ReceiverStatistics(ssrc >>> 0, sequenceNumber, this.clockRate);
    }
    if (this.#source.receive(sequenceNumber, timestamp >>> 0, nowMs)) this.#receivedOctets += payloadOctets;
  }

  /** RTCP from the peer: remembers its SR for LSR/DLSR and reads its report about our stream. */
  onRtcp(packets: readonly RtcpPacket[], nowMs: number): void {
    for (const packet of packets) {
      // Only the SR of the stream we receive (a BUNDLEd video's SR shares the port, RFC 8843 §9.3).
      if (packet.type === 'sr' && (this.#source === null || this.#source.ssrc === packet.ssrc >>> 0)) {
        this.#lastSr = (((packet.sender.ntpSeconds & 0xffff) << 16) | (packet.sender.ntpFraction >>> 16)) >>> 0;
        this.#lastSrArrivalMs = nowMs;
      }
      if (packet.type !== 'sr' && packet.type !== 'rr') continue;
      for (const block of packet.reports) {
        if (block.ssrc >>> 0 !== this.localSsrc) continue;
        const jitterSeconds = block.jitter / this.clockRate;
        this.#remoteJitter = jitterSeconds;
        this.#remoteJitterStats.add(jitterSeconds);
        this.#remoteLost = block.cumulativeLost;
        this.#remoteLossStats.add(block.fractionLost / 256);
        // §6.4.1: RTT = A − LSR − DLSR, all in 1/65536 s; an LSR of 0 means no SR was received.
        if (block.lastSr !== 0) {
          const arrival = ntpMiddle32(nowMs);
          const rtt = ((arrival - block.lastSr - block.delaySinceLastSr) >>> 0) / 65536;
          if (rtt < 60) {
            this.#rtt = rtt;
            this.#rttStats.add(rtt);
          }
        }
      }
    }
  }

  /**
   * The compound packet to send now (§6.1): an SR when we sent RTP since the last report, else an
   * RR, with a report block about the peer when it sent anything, then SDES CNAME.
   */
  buildReport(nowMs: number): Uint8Array {
    const blocks: ReportBlock[] = [];
    const source = this.#source;
    if (source !== null) {
      const dlsr = this.#lastSr === 0 ? 0 : Math.max(0, Math.round(((nowMs - this.#lastSrArrivalMs) * 65536) / 1000));
      const block = source.reportBlock(this.#lastSr, dlsr);
      blocks.push(block);
      this.#localJitterStats.add(source.jitter / this.clockRate);
      this.#localLossStats.add(block.fractionLost / 256);
    }
    let report: Uint8Array;
    if (this.#sentSinceReport) {
      const ntp = ntpFromUnixMs(nowMs);
      // The SR's RTP timestamp corresponds to the NTP time (§6.4.1): extrapolate from the last packet.
      const rtpTimestamp = (this.#lastRtpTimestamp + Math.round(((nowMs - this.#lastSentAtMs) * this.clockRate) / 1000)) >>> 0;
      report = buildSenderReport(
        this.localSsrc,
        { ntpSeconds: ntp.seconds, ntpFraction: ntp.fraction, rtpTimestamp, packetCount: this.#sentPackets, octetCount: this.#sentOctets },
        blocks,
      );
    } else {
      report = buildReceiverReport(this.localSsrc, blocks);
    }
    this.#sentSinceReport = false;
    return compound([report, buildSdesCname(this.localSsrc, this.#cname)]);
  }

  statistics(): RtpStatisticsSnapshot {
    const source = this.#source;
    const snapshot: RtpStatisticsSnapshot = {
      txcount: this.#sentPackets,
      rxcount: source?.received ?? 0,
      txploss: this.#remoteLost,
      rxploss: source === null ? 0 : Math.max(0, source.lost),
      local_ssrc: this.localSsrc,
      remote_ssrc: source?.ssrc ?? 0,
      txoctetcount: this.#sentOctets,
      rxoctetcount: this.#receivedOctets,
      ...spread('remote', 'jitter', this.#remoteJitterStats),
      ...spread('local', 'jitter', this.#localJitterStats),
      ...spread('remote', 'rxploss', this.#remoteLossStats),
      ...spread('local', 'rxploss', this.#localLossStats),
    };
    if (source !== null) snapshot.rxjitter = source.jitter / this.clockRate;
    if (this.#remoteJitter !== null) snapshot.txjitter = this.#remoteJitter;
    if (this.#rtt !== null) {
      snapshot.rtt = this.#rtt;
      snapshot.maxrtt = this.#rttStats.max;
      snapshot.minrtt = this.#rttStats.min;
      snapshot.normdevrtt = this.#rttStats.mean;
      snapshot.stdevrtt = this.#rttStats.stdev;
    }
    return snapshot;
  }
}
