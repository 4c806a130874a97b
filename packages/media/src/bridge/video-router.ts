/**
 * Video forwarding decisions of one bridge, as a pure state machine: members (with the video
 * format each negotiated), the mode and its source go in; which member gets which packet with
 * which RTP header, and which sender must be asked for a keyframe, come out through a sink.
 * Nothing is decoded or transcoded: a packet only reaches members that negotiated the same codec.
 *
 *   sfu      every member's video goes to every other member. Each source keeps its own SSRC,
 *            sequence numbers and timestamps (receivers demultiplex by SSRC on their one m=video
 *            line); only the payload type becomes the receiver's. When two senders use the same
 *            SSRC (or a sender uses the receiver's own), the later one is given a random SSRC of
 *            its own in that receiver's view (RFC 3550 §8.2: the receiver must be able to tell
 *            them apart), and feedback naming it is mapped back to its sender.
 *   single   only the source's video goes to every other member; the source gets nothing.
 *   talker   like single, with the source following the loudest member (with hysteresis so it
 *            does not flap); the source itself sees the previous source (or, before there was
 *            one, another member), so two people talking both see each other.
 *   none     no video at all (holding bridges).
 *
 * In single and talker mode each receiver gets one continuous stream of its own (RFC 3550 §7.1,
 * as a translator may): one SSRC per receiver, sequence numbers that carry on across source
 * switches and timestamps that advance by the time elapsed, so the receiver's decoder sees a new
 * picture, not a new stream. On every switch the new source is asked for a keyframe, since the
 * receivers cannot decode its stream from the middle; receivers' own PLI/FIR go to the sender of
 * what they are watching.
 *
 * Generic NACKs (RFC 4585 §6.2.1) are forwarded to the sender, not answered from a cache. A cache
 * would have to copy every packet per receiver (or hold a second of every source's video) on the
 * packet path, which the audio relay keeps allocation-free too; forwarding costs nothing per packet
 * and only adds the bridge-to-source round trip to the recovery, which the phones' NACK timers
 * already allow for. The retransmitted packet (same sequence number, RFC 4585 §6.2.1: no RTX is
 * negotiated) comes back as any other and is rewritten on the way out with the receiver's current
 * mapping. In single and talker mode the receiver names its own stream's sequence numbers: they are
 * mapped back through the offset of the current source, and numbers sent before the last switch
 * (another source's packets, which that source can no longer be asked for) are dropped.
 *
 * Limits: one video stream per member; simulcast, RTX and FEC streams are not told apart (a
 * member's packets with another payload type than its negotiated one are never routed).
 */
import type { MediaVideoMode } from '@switchboard/media-control';

/** A member's negotiated video: the codec's SDP encoding name and the payload type it uses. */
export interface VideoFormat {
  codec: string;
  payloadType: number;
}

export interface VideoHeader {
  payloadType: number;
  marker: boolean;
  sequenceNumber: number;
  timestamp: number;
  ssrc: number;
}

export interface VideoRouterSink {
  /**
   * Send the packet being routed to `to` with this header. The header object is reused from call
   * to call: read it during the call, do not keep it.
   */
  forward(to: string, header: Readonly<VideoHeader>): void;
  /** Ask `sourceId`'s sender for a keyframe (PLI/FIR). */
  requestKeyframe(sourceId: string): void;
  /** Ask `sourceId`'s sender to resend these packets of its stream (its own sequence numbers). */
  requestRetransmission(sourceId: string, sequences: readonly number[]): void;
}

export interface TalkerOptions {
  /** Smoothed RMS level (16-bit linear) a member must exceed to count as talking. */
  thresholdRms: number;
  /** A challenger must be this many times louder than the current source... */
  ratio: number;
  /** ...for this many consecutive ticks... */
  holdTicks: number;
  /** ...and the current source must have held for at least this long, before the source switches. */
  minSourceMs: number;
  /** Weight of the newest level in the exponential average (0-1). */
  smoothing: number;
}

export const DEFAULT_TALKER_OPTIONS: Readonly<TalkerOptions> = {
  thresholdRms: 150,
  ratio: 2,
  holdTicks: 15,
  minSourceMs: 1500,
  smoothing: 0.3,
};

export interface VideoRouterOptions {
  /** Monotonic milliseconds. */
  now(): number;
  /** A random 32-bit SSRC (RFC 3550 §8.1) for each receiver's single-source stream. */
  randomSsrc(): number;
  talker?: Partial<TalkerOptions>;
  /** Receivers' keyframe requests reach a source at most this often (default 300 ms). */
  feedbackIntervalMs?: number;
}

/** Video timestamps run at 90 kHz (RFC 3551 §5). */
const VIDEO_CLOCK_PER_MS = 90;
/** At most this many sequence numbers of one NACK are passed on (a bound on what one datagram can cause). */
const MAX_NACKED = 128;

/** How one sender's stream is named in one receiver's view in sfu mode. */
interface SfuAlias {
  /** The sender's own SSRC this alias was made for. */
  source: number;
  /** The SSRC the receiver sees (the same unless it collided). */
  ssrc: number;
}

/** One receiver's rewritten single-source stream. */
interface OutStream {
  readonly ssrc: number;
  /** Source SSRC the offsets are anchored on; null before the first packet and after a switch. */
  anchor: number | null;
  /** The receiver-side sequence number of the first packet sent from the current anchor. */
  anchorStart: number;
  sequenceOffset: number;
  timestampOffset: number;
  /** Newest sequence number and timestamp sent, and when (null before the first packet). */
  lastSequence: number;
  lastTimestamp: number;
  lastSentAt: number | null;
}

interface Member {
  readonly id: string;
  format: VideoFormat | null;
  out: OutStream | null;
  /** SSRC of the newest packet this member sent (0 before any). */
  sourceSsrc: number;
  level: number;
  lastFeedbackAt: number;
  /** sfu mode: how each sender's stream is named to this member, by sender id. */
  readonly sfuAliases: Map<string, SfuAlias>;
}

export class VideoRouter {
  readonly #sink: VideoRouterSink;
  readonly #now: () => number;
  readonly #randomSsrc: () => number;
  readonly #talker: TalkerOptions;
  readonly #feedbackIntervalMs: number;
  readonly #members = new Map<string, Member>();
  #mode: MediaVideoMode = 'none';
  /** The forced source of single mode. */
  #forced: string | null = null;
  /** The talker mode's source and the one before it. */
  #talkerSource: string | null = null;
  #previous: string | null = null;
  #switchedAt = Number.NEGATIVE_INFINITY;
  #challenger: string | null = null;
  #challengeTicks = 0;
  readonly #header: VideoHeader = { payloadType: 0, marker: false, sequenceNumber: 0, timestamp: 0, ssrc: 0 };

  constructor(sink: VideoRouterSink, options: VideoRouterOptions) {
    this.#sink = sink;
    this.#now = options.now;
    this.#randomSsrc = options.randomSsrc;
    this.#talker = { ...DEFAULT_TALKER_OPTIONS, ...options.talker };
    this.#feedbackIntervalMs = options.feedbackIntervalMs ?? 300;
  }

  get mode(): MediaVideoMode {
    return this.#mode;
  }

  /** The member whose video the others see in single or talker mode (null: none, or sfu/none). */
  get source(): string | null {
    if (this.#mode === 'single') return this.#forced !== null && this.#members.has(this.#forced) ? this.#forced : null;
    if (this.#mode === 'talker') return this.#talkerSource;
    return null;
  }

  get memberCount(): number {
    return this.#members.size;
  }

  /** Whether any member has video, so that the bridge can skip level tracking when none does. */
  get carriesVideo(): boolean {
    if (this.#mode === 'none') return false;
    for (const member of this.#members.values()) if (member.format !== null) return true;
    return false;
  }

  setMode(mode: MediaVideoMode, sourceId?: string): void {
    const before = this.#watching();
    if (mode !== 'sfu') for (const member of this.#members.values()) member.sfuAliases.clear();
    this.#mode = mode;
    this.#forced = mode === 'single' ? (sourceId ?? null) : null;
    if (mode === 'talker' && (this.#talkerSource === null || !this.#hasVideo(this.#talkerSource))) this.#pickFirstTalker();
    this.#afterChange(before);
  }

  /** A member joined, changed its video (a re-INVITE), or lost it (`format` null). */
  setMember(id: string, format: VideoFormat | null): void {
    const before = this.#watching();
    let member = this.#members.get(id);
    if (member === undefined) {
      member = { id, format: null, out: null, sourceSsrc: 0, level: 0, lastFeedbackAt: Number.NEGATIVE_INFINITY, sfuAliases: new Map() };
      this.#members.set(id, member);
    }
    const previous = member.format;
    member.format = format === null ? null : { codec: format.codec.toUpperCase(), payloadType: format.payloadType };
    if (this.#mode === 'talker' && (this.#talkerSource === null || !this.#hasVideo(this.#talkerSource))) this.#pickFirstTalker();
    this.#afterChange(before);
    // A new receiver cannot decode until the next keyframe of whatever it now gets.
    if (format !== null && (previous === null || previous.codec !== member.format?.codec)) {
      if (this.#mode === 'sfu') {
        // Both ways: the newcomer needs the others' pictures, and they need its (it may have
        // joined mid-stream, moved from another bridge).
        let others = 0;
        for (const other of this.#members.values()) {
          if (other.id === id || !this.#sameCodec(other, member)) continue;
          others += 1;
          this.#sink.requestKeyframe(other.id);
        }
        if (others > 0) this.#sink.requestKeyframe(id);
      } else {
        const target = this.#targetOf(member);
        if (target !== null && (!before.has(id) || before.get(id) === target)) this.#sink.requestKeyframe(target);
      }
    }
  }

  removeMember(id: string): void {
    if (!this.#members.has(id)) return;
    const before = this.#watching();
    this.#members.delete(id);
    for (const member of this.#members.values()) member.sfuAliases.delete(id);
    if (this.#previous === id) this.#previous = null;
    if (this.#challenger === id) this.#challenger = null;
    if (this.#talkerSource === id) {
      this.#talkerSource = null;
      if (this.#mode === 'talker') this.#pickFirstTalker();
    }
    this.#afterChange(before);
  }

  /**
   * Routes one packet `fromId` sent (`header` as received; the caller already checked it carries
   * the member's negotiated payload type). Each receiver is handed a header through the sink.
   */
  route(fromId: string, header: Readonly<VideoHeader>): void {
    const from = this.#members.get(fromId);
    if (from === undefined || from.format === null || this.#mode === 'none') return;
    from.sourceSsrc = header.ssrc;
    const out = this.#header;
    for (const receiver of this.#members.values()) {
      if (receiver === from || receiver.format === null || !this.#sameCodec(receiver, from)) continue;
      out.payloadType = receiver.format.payloadType;
      out.marker = header.marker;
      if (this.#mode === 'sfu') {
        out.sequenceNumber = header.sequenceNumber;
        out.timestamp = header.timestamp;
        out.ssrc = this.#sfuSsrc(receiver, from, header.ssrc >>> 0);
      } else {
        if (this.#targetOf(receiver) !== fromId) continue;
        this.#rewrite(receiver, header, out);
      }
      this.#sink.forward(receiver.id, out);
    }
  }

  /**
   * `byId` sent a PLI or FIR: ask the sender of what it watches (in sfu mode the sender of
   * `mediaSsrc`, or every sender when that SSRC is unknown). Requests to one source are spaced by
   * the feedback interval, so that many receivers do not make a source send keyframes nonstop.
   */
  keyframeRequested(byId: string, mediaSsrc = 0): void {
    const receiver = this.#members.get(byId);
    if (receiver === undefined || receiver.format === null) return;
    if (this.#mode === 'sfu') {
      const senders = [...this.#members.values()].filter((m) => m !== receiver && m.format !== null && this.#sameCodec(m, receiver));
      const named = senders.filter((m) => mediaSsrc !== 0 && this.#seenAs(receiver, m) === mediaSsrc >>> 0);
      for (const sender of named.length > 0 ? named : senders) this.#throttledKeyframe(sender);
      return;
    }
    const target = this.#targetOf(receiver);
    const sender = target === null ? undefined : this.#members.get(target);
    if (sender !== undefined) this.#throttledKeyframe(sender);
  }

  /**
   * `byId` sent a generic NACK (RFC 4585 §6.2.1) about its stream `mediaSsrc` naming `sequences`
   * as lost: ask the sender of those packets to resend them, in its own numbering (see the file
   * comment). NACKs are not spaced out: each names other packets.
   */
  retransmissionRequested(byId: string, mediaSsrc: number, sequences: readonly number[]): void {
    const receiver = this.#members.get(byId);
    if (receiver === undefined || receiver.format === null || this.#mode === 'none' || sequences.length === 0) return;
    const named = sequences.length > MAX_NACKED ? sequences.slice(0, MAX_NACKED) : sequences;
    if (this.#mode === 'sfu') {
      for (const sender of this.#members.values()) {
        if (sender === receiver || !this.#sameCodec(sender, receiver) || sender.sourceSsrc === 0) continue;
        if (this.#seenAs(receiver, sender) !== mediaSsrc >>> 0) continue;
        this.#sink.requestRetransmission(sender.id, named);
        return;
      }
      return;
    }
    const target = this.#targetOf(receiver);
    const source = target === null ? undefined : this.#members.get(target);
    const stream = receiver.out;
    // Only the current source's packets, in the stream anchored on the SSRC it still sends.
    if (source === undefined || stream === null || stream.anchor === null || stream.lastSentAt === null) return;
    if (stream.ssrc !== mediaSsrc >>> 0 || stream.anchor !== source.sourceSsrc) return;
    const translated: number[] = [];
    for (const sequence of named) {
      const sinceStart = (((sequence - stream.anchorStart) & 0xffff) << 16) >> 16;
      const beforeEnd = (((stream.lastSequence - sequence) & 0xffff) << 16) >> 16;
      if (sinceStart < 0 || beforeEnd < 0) continue; // sent before the switch, or never sent
      translated.push((sequence - stream.sequenceOffset) & 0xffff);
    }
    if (translated.length > 0) this.#sink.requestRetransmission(source.id, translated);
  }

  /** This tick's audio level of a member (RMS of its 20 ms frame; 0 when silent or muted). */
  observeLevel(id: string, rms: number): void {
    const member = this.#members.get(id);
    if (member === undefined) return;
    const weight = this.#talker.smoothing;
    member.level = member.level * (1 - weight) + rms * weight;
  }

  /**
   * Once per 20 ms tick, after `observeLevel` for every member: in talker mode, moves the source
   * to a member that has been clearly louder than the current one for long enough.
   */
  talkerTick(): void {
    if (this.#mode !== 'talker') return;
    const options = this.#talker;
    let loudest: Member | null = null;
    for (const member of this.#members.values()) {
      if (member.format === null) continue;
      if (loudest === null || member.level > loudest.level) loudest = member;
    }
    const current = this.#talkerSource === null ? undefined : this.#members.get(this.#talkerSource);
    if (loudest === null || loudest === current || loudest.level < options.thresholdRms) {
      this.#challenger = null;
      this.#challengeTicks = 0;
      return;
    }
    if (current !== undefined && loudest.level < current.level * options.ratio) {
      this.#challenger = null;
      this.#challengeTicks = 0;
      return;
    }
    if (this.#challenger !== loudest.id) {
      this.#challenger = loudest.id;
      this.#challengeTicks = 0;
    }
    this.#challengeTicks += 1;
    if (this.#challengeTicks < options.holdTicks || this.#now() - this.#switchedAt < options.minSourceMs) return;
    const before = this.#watching();
    this.#previous = this.#talkerSource;
    this.#talkerSource = loudest.id;
    this.#switchedAt = this.#now();
    this.#challenger = null;
    this.#challengeTicks = 0;
    this.#afterChange(before);
  }

  // ── internals ────────────────────────────────────────────────────────────────────────────

  #hasVideo(id: string): boolean {
    return this.#members.get(id)?.format != null;
  }

  #sameCodec(a: Member, b: Member): boolean {
    return a.format !== null && b.format !== null && a.format.codec === b.format.codec;
  }

  /** Talker mode before anyone has talked: the first member with video is shown. */
  #pickFirstTalker(): void {
    for (const member of this.#members.values()) {
      if (member.format === null) continue;
      this.#talkerSource = member.id;
      this.#switchedAt = this.#now();
      return;
    }
    this.#talkerSource = null;
  }

  /** Whose video `receiver` gets in single or talker mode. */
  #targetOf(receiver: Member): string | null {
    if (this.#mode === 'single') {
      const source = this.source;
      return source !== null && source !== receiver.id ? source : null;
    }
    if (this.#mode !== 'talker' || this.#talkerSource === null) return null;
    if (receiver.id !== this.#talkerSource) return this.#talkerSource;
    if (this.#previous !== null && this.#previous !== receiver.id && this.#hasVideo(this.#previous)) return this.#previous;
    for (const member of this.#members.values()) if (member !== receiver && member.format !== null) return member.id;
    return null;
  }

  /** What each member watches now (null outside single and talker modes), to detect switches. */
  #watching(): Map<string, string | null> {
    const watching = new Map<string, string | null>();
    for (const member of this.#members.values()) watching.set(member.id, this.#targetOf(member));
    return watching;
  }

  /** After a change: every newly watched source is asked once for a keyframe. */
  #afterChange(before: Map<string, string | null>): void {
    const asked = new Set<string>();
    for (const [id, target] of this.#watching()) {
      if (!before.has(id) || before.get(id) === target) continue;
      // A new source: the receiver's stream re-anchors on its first packet.
      const out = this.#members.get(id)?.out;
      if (out != null) out.anchor = null;
      if (target === null || asked.has(target)) continue;
      asked.add(target);
      this.#sink.requestKeyframe(target);
    }
  }

  /** The SSRC `receiver` sees `sender`'s stream in (sfu mode). */
  #seenAs(receiver: Member, sender: Member): number {
    return receiver.sfuAliases.get(sender.id)?.ssrc ?? sender.sourceSsrc >>> 0;
  }

  /**
   * The SSRC `from`'s stream `ssrc` goes to `receiver` in (sfu mode): its own, unless another
   * sender already reached this receiver in it, or it is the receiver's own SSRC; then a random one
   * kept for as long as the sender keeps its SSRC. Allocation-free once the alias exists.
   */
  #sfuSsrc(receiver: Member, from: Member, ssrc: number): number {
    const alias = receiver.sfuAliases.get(from.id);
    // The receiver's phone may have started sending in the SSRC after the alias was made.
    if (alias !== undefined && alias.source === ssrc && alias.ssrc !== receiver.sourceSsrc >>> 0) return alias.ssrc;
    let chosen = ssrc;
    for (let attempt = 0; attempt < 16 && this.#ssrcTaken(receiver, from.id, chosen); attempt += 1) chosen = this.#randomSsrc() >>> 0;
    if (alias === undefined) receiver.sfuAliases.set(from.id, { source: ssrc, ssrc: chosen });
    else {
      alias.source = ssrc;
      alias.ssrc = chosen;
    }
    return chosen;
  }

  #ssrcTaken(receiver: Member, senderId: string, ssrc: number): boolean {
    if (receiver.sourceSsrc >>> 0 === ssrc) return true;
    for (const [id, alias] of receiver.sfuAliases) if (id !== senderId && alias.ssrc === ssrc) return true;
    return false;
  }

  #throttledKeyframe(sender: Member): void {
    const now = this.#now();
    if (now - sender.lastFeedbackAt < this.#feedbackIntervalMs) return;
    sender.lastFeedbackAt = now;
    this.#sink.requestKeyframe(sender.id);
  }

  /** Maps `header` into `receiver`'s own stream (see the file comment). */
  #rewrite(receiver: Member, header: Readonly<VideoHeader>, out: VideoHeader): void {
    let stream = receiver.out;
    if (stream === null) {
      stream = {
        ssrc: this.#randomSsrc() >>> 0,
        anchor: null,
        anchorStart: 0,
        sequenceOffset: 0,
        timestampOffset: 0,
        lastSequence: 0,
        lastTimestamp: 0,
        lastSentAt: null,
      };
      receiver.out = stream;
    }
    const now = this.#now();
    if (stream.anchor !== header.ssrc) {
      stream.anchor = header.ssrc;
      if (stream.lastSentAt === null) {
        // The stream's first packet: keep the source's numbering (already random, RFC 3550 §5.1).
        stream.sequenceOffset = 0;
        stream.timestampOffset = 0;
      } else {
        // Carry on right after the last packet sent, the clock advanced by the time in between.
        const elapsed = Math.max(1, Math.round((now - stream.lastSentAt) * VIDEO_CLOCK_PER_MS));
        stream.sequenceOffset = (stream.lastSequence + 1 - header.sequenceNumber) & 0xffff;
        stream.timestampOffset = (stream.lastTimestamp + elapsed - header.timestamp) >>> 0;
      }
      stream.anchorStart = (header.sequenceNumber + stream.sequenceOffset) & 0xffff;
    }
    const sequenceNumber = (header.sequenceNumber + stream.sequenceOffset) & 0xffff;
    const timestamp = (header.timestamp + stream.timestampOffset) >>> 0;
    // Only a newer packet moves the stream's end: a late one keeps its place behind it.
    if (stream.lastSentAt === null || ((sequenceNumber - stream.lastSequence) << 16) >> 16 > 0) {
      stream.lastSequence = sequenceNumber;
      stream.lastTimestamp = timestamp;
      stream.lastSentAt = now;
    }
    out.sequenceNumber = sequenceNumber;
    out.timestamp = timestamp;
    out.ssrc = stream.ssrc;
  }
}
