/**
 * An adaptive jitter buffer timed only by RTP timestamps and the arrival times the caller passes
 * in (never the wall clock), so a test drives it packet by packet.
 *
 * The buffer keeps a playout cursor in the sender's timestamp space. Each `pop()` is one frame
 * period of the caller's clock: it hands out the packet at the cursor, reports a hole (`lost`, the
 * caller conceals) or `empty` (nothing to play: before the first packet, or after the stream
 * went quiet), and moves the cursor by one frame.
 *
 * Depth adapts between `minDelayMs` and `maxDelayMs`. The target is one frame plus three times the
 * interarrival jitter of RFC 3550 §6.4.1 (computed as in Appendix A.8). When the buffered audio
 * falls below the target the cursor is held for one frame (a concealed frame is played, adding
 * delay); when it exceeds the target by two frames, one frame is dropped (at most once every
 * `SHRINK_SPACING` frames so that the shrink is gradual).
 *
 * Sequence numbers and timestamps are unwrapped to numbers that keep growing across the 16-bit
 * and 32-bit wraps (RFC 3550 Appendix A.1's approach); a new SSRC, or a jump further than the
 * maximum delay, resets the buffer onto the new stream.
 */

export interface JitterPacket {
  /** RTP sequence number (16 bits). */
  seq: number;
  /** RTP timestamp (32 bits). */
  timestamp: number;
  payload: Uint8Array;
  /** When the packet arrived, in milliseconds on any monotonic clock of the caller. */
  arrivalMs: number;
  ssrc?: number;
  marker?: boolean;
}

export type PushResult = 'accepted' | 'duplicate' | 'late' | 'reset';

export type PopResult =
  | { kind: 'frame'; packet: JitterPacket }
  /** A frame should be here but is missing (lost, or held back to grow the buffer): conceal it. */
  | { kind: 'lost'; timestamp: number }
  /** Nothing to play: silence. */
  | { kind: 'empty' };

export interface JitterBufferOptions {
  /** RTP clock rate of the stream (8000 for G.711/G.722, 48000 for Opus). */
  clockRate: number;
  /** Timestamp units per packet (one 20 ms frame: 160 at 8000 Hz). */
  frameTimestamps: number;
  minDelayMs?: number;
  maxDelayMs?: number;
}

export interface JitterBufferStats {
  /** RFC 3550 interarrival jitter, in timestamp units. */
  jitter: number;
  targetDelayMs: number;
  /** Audio buffered ahead of the cursor. */
  depthMs: number;
  lost: number;
  late: number;
  duplicates: number;
  resets: number;
}

/** Pops between two shrink steps: 10 frames, 200 ms at 20 ms frames. */
const SHRINK_SPACING = 10;
/** Consecutive underruns after which the buffer reports `empty` instead of `lost`. */
const QUIET_AFTER = 3;
/** Recently played sequence numbers remembered to tell a duplicate from a late packet. */
const PLAYED_MEMORY = 64;

const TWO_32 = 4294967296;
/** RFC 3550 A.1: sequence numbers this far behind the highest are not reordering but a restart. */
const MAX_MISORDER = 100;
/** Frames (50 = one second) a timestamp may jump beyond the maximum delay before it means a new stream. */
const FAR_FRAMES = 50;

/** Unwraps `value` (modulo `modulus`) to the number nearest `reference`. */
function unwrap(value: number, reference: number, modulus: number): number {
  const low = ((reference % modulus) + modulus) % modulus;
  let delta = value - low;
  if (delta > modulus / 2) delta -= modulus;
  else if (delta < -modulus / 2) delta += modulus;
  return reference + delta;
}

interface Stored {
  ts: number;
  seq: number;
  packet: JitterPacket;
}

export class JitterBuffer {
  readonly #clockRate: number;
  readonly #frame: number;
  readonly #minTs: number;
  readonly #maxTs: number;

  /** Buffered packets, sorted by unwrapped timestamp. */
  #queue: Stored[] = [];
  #ssrc: number | undefined;
  #started = false;
  /** Unwrapped timestamp of the next frame to play. */
  #cursor = 0;
  /** Waiting for the first packet of a stream or talkspurt to reach the cursor: silence, not loss. */
  #filling = false;
  #highestTs = 0;
  #highestSeq = 0;
  readonly #played: number[] = [];

  // RFC 3550 A.8: the previous packet's relative transit time and the running jitter estimate.
  #lastTransit: number | null = null;
  #jitter = 0;

  #underruns = 0;
  /** The sequence number that would confirm a backward restart. */
  #probation = -1;
  /** Pops since the last shrink (or the start: a new stream first settles). */
  #sinceShrink = 0;
  #lost = 0;
  #late = 0;
  #duplicates = 0;
  #resets = 0;

  constructor(options: JitterBufferOptions) {
    this.#clockRate = options.clockRate;
    this.#frame = options.frameTimestamps;
    const minMs = options.minDelayMs ?? 20;
    const maxMs = options.maxDelayMs ?? 200;
    if (!(minMs > 0 && maxMs >= minMs)) throw new RangeError(`jitter buffer delays must satisfy 0 < min ≤ max, got ${minMs}/${maxMs}`);
    this.#minTs = this.#toTs(minMs);
    this.#maxTs = this.#toTs(maxMs);
  }

  #toTs(ms: number): number {
    return Math.round((ms * this.#clockRate) / 1000);
  }

  #toMs(ts: number): number {
    return (ts * 1000) / this.#clockRate;
  }

  /** The delay the buffer aims for, in timestamp units (whole frames). */
  get #target(): number {
    const wanted = this.#frame + 3 * this.#jitter;
    const clamped = Math.min(this.#maxTs, Math.max(this.#minTs, wanted));
    return Math.ceil(clamped / this.#frame) * this.#frame;
  }

  get stats(): JitterBufferStats {
    const depth = this.#started && this.#queue.length > 0 ? this.#highestTs + this.#frame - this.#cursor : 0;
    return {
      jitter: this.#jitter,
      targetDelayMs: this.#toMs(this.#target),
      depthMs: this.#toMs(Math.max(0, depth)),
      lost: this.#lost,
      late: this.#late,
      duplicates: this.#duplicates,
      resets: this.#resets,
    };
  }

  /** Forgets the stream (a new SSRC, a re-INVITE); the jitter estimate starts again too. */
  reset(): void {
    this.#queue = [];
    this.#started = false;
    this.#ssrc = undefined;
    this.#lastTransit = null;
    this.#jitter = 0;
    this.#played.length = 0;
    this.#underruns = 0;
    this.#sinceShrink = 0;
  }

  push(packet: JitterPacket): PushResult {
    let result: PushResult = 'accepted';
    if (this.#started && packet.ssrc !== undefined && this.#ssrc !== undefined && packet.ssrc !== this.#ssrc) {
      this.reset();
      this.#resets += 1;
      result = 'reset';
    }
    if (!this.#started) {
      this.#start(packet);
      return result;
    }
    const ts = unwrap(packet.timestamp >>> 0, this.#highestTs, TWO_32);
    const seq = unwrap(packet.seq & 0xffff, this.#highestSeq, 65536);
    // A forward jump beyond what the buffer could ever hold is a new stream in all but SSRC (a
    // restarted sender, or the end of a long silence): re-anchor instead of playing it as loss.
    // A far backward jump is only believed when the next packet continues it (RFC 3550 A.1's
    // probation), so one stray old packet cannot reset the stream.
    const offset = ts - this.#cursor;
    const backwards = offset < -FAR_FRAMES * this.#frame && seq < this.#highestSeq - MAX_MISORDER;
    if (offset > this.#maxTs + FAR_FRAMES * this.#frame || (backwards && this.#probation === (packet.seq & 0xffff))) {
      this.reset();
      this.#resets += 1;
      this.#start(packet);
      return 'reset';
    }
    if (backwards) {
      this.#probation = (packet.seq + 1) & 0xffff;
      this.#late += 1;
      return 'late';
    }
    if (this.#played.includes(seq) || this.#queue.some((stored) => stored.seq === seq)) {
      this.#duplicates += 1;
      return 'duplicate';
    }
    this.#updateJitter(ts, packet.arrivalMs);
    if (ts < this.#cursor) {
      this.#late += 1;
      return 'late';
    }
    // RFC 3551 §4.1: a marker starts a talkspurt after silence. With nothing buffered, play it after
    // the target delay instead of first concealing the silence the sender chose not to send.
    if (packet.marker === true && this.#queue.length === 0 && ts - this.#target > this.#cursor) {
      this.#cursor = ts - this.#target;
      this.#underruns = 0;
      this.#filling = true;
    }
    this.#insert({ ts, seq, packet });
    if (ts > this.#highestTs) this.#highestTs = ts;
    if (seq > this.#highestSeq) this.#highestSeq = seq;
    // A packet far ahead of the cursor (the sender resumed after silence suppression, or the
    // buffer fell behind): move the cursor up so that the delay stays within the maximum.
    if (ts - this.#cursor > this.#maxTs) {
      this.#cursor = ts - this.#target;
      this.#queue = this.#queue.filter((stored) => stored.ts >= this.#cursor);
      this.#filling = true;
    }
    return result;
  }

  #start(packet: JitterPacket): void {
    this.#started = true;
    this.#ssrc = packet.ssrc;
    const ts = packet.timestamp >>> 0;
    const seq = packet.seq & 0xffff;
    this.#filling = true;
    this.#highestTs = ts;
    this.#highestSeq = seq;
    this.#cursor = ts - this.#target;
    this.#lastTransit = null;
    this.#updateJitter(ts, packet.arrivalMs);
    this.#queue = [{ ts, seq, packet }];
  }

  /** RFC 3550 A.8: J += (|D(i−1,i)| − J) / 16, with D from arrival and RTP timestamps. */
  #updateJitter(ts: number, arrivalMs: number): void {
    const transit = (arrivalMs * this.#clockRate) / 1000 - ts;
    if (this.#lastTransit !== null) {
      const d = Math.abs(transit - this.#lastTransit);
      this.#jitter += (d - this.#jitter) / 16;
    }
    this.#lastTransit = transit;
  }

  #insert(stored: Stored): void {
    let i = this.#queue.length;
    while (i > 0 && this.#queue[i - 1].ts > stored.ts) i -= 1;
    this.#queue.splice(i, 0, stored);
  }

  /** One frame period: the frame to play now. */
  pop(): PopResult {
    if (!this.#started) return { kind: 'empty' };
    const frame = this.#frame;
    this.#sinceShrink += 1;
    // Before the first packet's slot: the buffer is still filling up to its target.
    if (this.#filling && this.#queue.length > 0 && this.#queue[0].ts - this.#cursor >= frame / 2) {
      this.#cursor += frame;
      return { kind: 'empty' };
    }
    if (this.#queue.length === 0) {
      // Underrun. Holding the cursor means the next packet plays one frame later: the buffer grows.
      this.#underruns += 1;
      if (this.#underruns > QUIET_AFTER) return { kind: 'empty' };
      return { kind: 'lost', timestamp: this.#cursor >>> 0 };
    }
    this.#underruns = 0;
    const depth = this.#highestTs + frame - this.#cursor;
    if (depth >= this.#target + 2 * frame && this.#sinceShrink >= SHRINK_SPACING) {
      // Too much delay while the network is calm: skip one frame.
      this.#sinceShrink = 0;
      this.#discardThrough(this.#cursor + frame);
      this.#cursor += frame;
    }
    const head = this.#queue[0];
    if (head.ts < this.#cursor + frame / 2 && head.ts > this.#cursor - frame / 2) {
      this.#queue.shift();
      this.#remember(head.seq);
      this.#cursor = head.ts + frame;
      this.#filling = false;
      return { kind: 'frame', packet: head.packet };
    }
    if (head.ts <= this.#cursor - frame / 2) {
      // Cannot happen through push (late packets are refused), kept for a cursor moved by a shrink.
      this.#discardThrough(this.#cursor);
    }
    const slot = this.#cursor;
    this.#cursor += frame;
    this.#lost += 1;
    return { kind: 'lost', timestamp: slot >>> 0 };
  }

  #discardThrough(ts: number): void {
    while (this.#queue.length > 0 && this.#queue[0].ts < ts - this.#frame / 2 + 1) {
      const dropped = this.#queue.shift();
      if (dropped !== undefined) this.#remember(dropped.seq);
    }
  }

  #remember(seq: number): void {
    this.#played.push(seq);
    if (this.#played.length > PLAYED_MEMORY) this.#played.shift();
  }
}
