/**
 * A media bridge on its home worker. Each 20 ms tick `step()` collects every member's frame and
 * gives each member what it should hear:
 *
 *   mixing   everyone but itself (minus-one), plus bridge media (playback, tones, a recording's beep)
 *   holding  the announcer(s) plus bridge media; announcers hear nothing; participants never hear
 *            each other
 *
 * A muted member is not heard. The bridge's recordings get the full mix (everyone plus media).
 *
 * Rate: the bridge's rate is the highest native rate among its members (8 kHz G.711, 16 kHz
 * G.722, 48 kHz Opus; capped by mix-rate.ts). Members are mixed per rate (rate-mix.ts): wideband
 * legs hear each other at their rate, narrowband legs at theirs, with one resampler per rate pair
 * rather than per member, so a joining or leaving member never changes another member's audio
 * path (no click) and all-narrowband bridges cost what they always did. Bridge playback enters at
 * its announcer format's rate (by default the bridge's rate when it starts); each recording takes
 * the mix at its recorder format's rate.
 *
 * Two local legs with the same codec and nothing else going on (no bridge media or recording, no
 * announcer, no playback, DTMF, mute, whisper or beep on either) are relayed instead: each received packet is sent on
 * by the other leg untouched but for its header (relay-rewriter.ts), without decoding. The bridge
 * checks the condition on every tick and switches between relaying and mixing by itself.
 *
 * Video is forwarded packet by packet, never mixed (bridge-video.ts, video-router.ts).
 */
import type { WorkerNotification } from '../protocol.js';
import type { Recorder } from '../recording/recorder.js';
import { rateOfFrame } from '../dsp/rate-converter.js';
import type { ResampleRate } from '../dsp/resampler.js';
import type { BridgeKind, BridgeVideoRequest, JoinBridgeOptions, PlaybackEndReason } from '@switchboard/media-control';
import type { FormatQuantiser } from '../worker/channel-format.js';
import { type FrameSource, Playback, SAMPLES_PER_FRAME } from '../worker/playback.js';
import type { RtpLeg, TappedPacket } from '../worker/rtp-leg.js';
import { BridgeVideo } from './bridge-video.js';
import type { BridgeMember } from './members.js';
import { MAX_MIX_RATE } from './mix-rate.js';
import { applyGain } from '../dsp/gain.js';
import { mixAll } from './mixer.js';
import { RateMixer, type RateMixMedia } from './rate-mix.js';
import { RelayRewriter } from './relay-rewriter.js';

interface Membership {
  member: BridgeMember;
  options: Required<JoinBridgeOptions>;
}

export function memberOptions(options: JoinBridgeOptions | undefined, previous?: Required<JoinBridgeOptions>): Required<JoinBridgeOptions> {
  return {
    role: options?.role ?? previous?.role ?? 'participant',
    mute: options?.mute ?? previous?.mute ?? false,
    absorbDtmf: options?.absorbDtmf ?? previous?.absorbDtmf ?? false,
    listenGain: options?.listenGain ?? previous?.listenGain ?? 1,
  };
}

export class Bridge {
  readonly id: string;
  readonly kind: BridgeKind;
  readonly #notify: (notification: WorkerNotification) => void;
  readonly #legOf: (member: BridgeMember) => RtpLeg | null;
  readonly #members = new Map<string, Membership>();
  /**
   * The members in joining order, and what each was heard saying this tick: kept between ticks so a
   * tick that only relays allocates nothing (every bridge steps 50 times a second).
   */
  #list: Membership[] = [];
  readonly #heard: (Int16Array | null)[] = [];
  #playback: Playback | null = null;
  /** The announcer format the current playback enters the mix through (rate and quantisation). */
  #playbackFormat: FormatQuantiser | null = null;
  readonly recorders = new Set<Recorder>();
  readonly #mixer = new RateMixer();
  #relay: { a: RtpLeg; b: RtpLeg } | null = null;
  readonly #video: BridgeVideo;

  /** `legOf` says which members are local RTP legs (the only ones a relay can join). */
  constructor(
    id: string,
    kind: BridgeKind,
    notify: (notification: WorkerNotification) => void,
    legOf: (member: BridgeMember) => RtpLeg | null,
    now: () => number = () => performance.now(),
  ) {
    this.id = id;
    this.kind = kind;
    this.#notify = notify;
    this.#legOf = legOf;
    this.#video = new BridgeVideo(kind, now);
  }

  setVideo(request: BridgeVideoRequest): void {
    this.#video.setMode(request);
  }

  /** A local member's negotiated video changed. */
  videoChanged(legId: string): void {
    this.#video.refresh(legId);
  }

  get size(): number {
    return this.#members.size;
  }

  /** The highest native rate among the members (8 kHz when empty), capped by mix-rate.ts. */
  get rate(): ResampleRate {
    let rate: ResampleRate = 8000;
    for (const { member } of this.#members.values()) if (member.nativeRate > rate) rate = member.nativeRate;
    return rate > MAX_MIX_RATE ? MAX_MIX_RATE : rate;
  }

  get relaying(): boolean {
    return this.#relay !== null;
  }

  get active(): boolean {
    return this.#members.size > 0 || this.#playback !== null || this.recorders.size > 0;
  }

  has(legId: string): boolean {
    return this.#members.has(legId);
  }

  memberIds(): string[] {
    return [...this.#members.keys()];
  }

  add(member: BridgeMember, options: JoinBridgeOptions | undefined): void {
    this.#stopRelay();
    this.#video.remove(member.legId);
    this.#members.get(member.legId)?.member.close();
    this.#members.set(member.legId, { member, options: memberOptions(options) });
    this.#list = [...this.#members.values()];
    this.#video.add(member);
  }

  update(legId: string, options: JoinBridgeOptions): boolean {
    const membership = this.#members.get(legId);
    if (membership === undefined) return false;
    membership.options = memberOptions(options, membership.options);
    return true;
  }

  remove(legId: string): BridgeMember | null {
    const membership = this.#members.get(legId);
    if (membership === undefined) return null;
    this.#stopRelay();
    this.#members.delete(legId);
    this.#list = [...this.#members.values()];
    this.#video.remove(legId);
    membership.member.close();
    return membership.member;
  }

  /** A member received a digit: every other member gets it, unless the sender absorbs DTMF. */
  dtmfFrom(legId: string, digit: string, durationMs: number): void {
    const from = this.#members.get(legId);
    if (from === undefined || from.options.absorbDtmf || this.#relay !== null) return; // a relay passes the event packets itself
    for (const [id, membership] of this.#members) if (id !== legId) membership.member.dtmf(digit, durationMs);
  }

  // ── bridge media ──────────────────────────────────────────────────────────────────────────

  /** `format` (absent: slin at the bridge's rate) is what the playback is quantised to before it is mixed. */
  play(playbackId: string, load: () => Promise<FrameSource>, wake: () => void, format: FormatQuantiser | null = null): void {
    this.endPlayback('stopped');
    const playback = new Playback(playbackId);
    this.#playback = playback;
    this.#playbackFormat = format;
    load().then(
      (source) => {
        if (this.#playback !== playback || playback.state !== 'loading') return;
        playback.begin(source);
        if (source.done) this.endPlayback('complete');
        else wake();
      },
      (error: unknown) => {
        if (this.#playback !== playback || playback.state !== 'loading') return;
        this.endPlayback('failed', error instanceof Error ? error.message : String(error));
      },
    );
  }

  stopPlayback(playbackId: string): void {
    if (this.#playback?.id === playbackId) this.endPlayback('stopped');
  }

  endPlayback(reason: PlaybackEndReason, error?: string): void {
    const playback = this.#playback;
    if (playback === null) return;
    this.#playback = null;
    if (playback.state === 'finished') return;
    playback.finish();
    const notification: WorkerNotification = { type: 'playbackFinished', legId: '', bridgeId: this.id, playbackId: playback.id, reason };
    if (error !== undefined) notification.error = error;
    this.#notify(notification);
  }

  // ── the tick ─────────────────────────────────────────────────────────────────────────────

  step(): void {
    const memberships = this.#list;
    const heard = this.#heard;
    heard.length = memberships.length;
    // Every member's input is taken each tick, so remote queues keep their pace even while relaying.
    for (let index = 0; index < memberships.length; index += 1) {
      const { member, options } = memberships[index];
      const frame = member.input();
      heard[index] = options.mute ? null : frame;
    }
    this.#video.levels(memberships, heard);
    if (this.#updateRelay()) return;

    const mixing = this.kind === 'mixing';
    const inputs = memberships.map(({ member, options }, index) => {
      const frame = heard[index];
      const announcer = options.role === 'announcer';
      return {
        frame,
        rate: frame === null ? member.nativeRate : rateOfFrame(frame),
        // Mixing: everyone hears everyone else. Holding: participants hear the announcers only.
        source: mixing || announcer,
        listener: mixing || !announcer,
      };
    });
    const recordRates = [...new Set([...this.recorders].map((recorder) => recorder.captureRate))];
    const { outputs, full } = this.#mixer.mix(inputs, this.#media(), recordRates);
    for (const [index, { member, options }] of memberships.entries()) member.output(applyGain(outputs[index], options.listenGain));
    for (const recorder of this.recorders) recorder.feed(full.get(recorder.captureRate) ?? null);
    const playback = this.#playback;
    if (playback !== null && playback.state === 'playing' && playback.exhausted) this.endPlayback('complete');
  }

  /** Playback and beeps everyone hears this tick, each at its own rate. */
  #media(): RateMixMedia[] {
    const media: RateMixMedia[] = [];
    const playback = this.#playback;
    if (playback !== null && playback.state === 'playing') {
      const first = playback.framesOut === 0;
      const frame = playback.nextFrame();
      if (first && frame !== null) this.#notify({ type: 'playbackStarted', legId: '', playbackId: playback.id });
      // The announcer's format decides what enters the mix: its rate, and its codec's quantisation.
      if (frame !== null)
        media.push({ name: 'playback', frame: this.#playbackFormat === null ? frame.slice() : this.#playbackFormat.apply(frame) });
    }
    if (this.recorders.size > 0) {
      const beep = mixAll(
        [...this.recorders].map((recorder) => recorder.beepFrame()),
        SAMPLES_PER_FRAME,
      );
      if (beep !== null) media.push({ name: 'beep', frame: beep });
    }
    return media;
  }

  // ── relay ────────────────────────────────────────────────────────────────────────────────

  /** Relays this tick when the two members allow it, starting or moving the relay as needed. */
  #updateRelay(): boolean {
    if (this.kind !== 'mixing' || this.#list.length !== 2 || this.#playback !== null || this.recorders.size > 0) return this.#noRelay();
    const first = this.#list[0];
    const second = this.#list[1];
    if (first.options.mute || second.options.mute) return this.#noRelay();
    // A changed listening volume needs the decoded audio.
    if (first.options.listenGain !== 1 || second.options.listenGain !== 1) return this.#noRelay();
    if (first.options.role === 'announcer' || second.options.role === 'announcer') return this.#noRelay();
    if (first.member.endpoint?.busy !== false || second.member.endpoint?.busy !== false) return this.#noRelay();
    const a = this.#legOf(first.member);
    const b = this.#legOf(second.member);
    if (a === null || b === null) return this.#noRelay();
    const ca = a.remote?.codec;
    const cb = b.remote?.codec;
    if (ca === undefined || cb === undefined || ca.name !== cb.name || ca.clockRate !== cb.clockRate) return this.#noRelay();
    if (this.#relay === null || this.#relay.a !== a || this.#relay.b !== b) {
      this.#stopRelay();
      this.#startRelay(a, b, first.options.absorbDtmf, second.options.absorbDtmf);
    }
    return true;
  }

  #noRelay(): false {
    this.#stopRelay();
    return false;
  }

  #startRelay(a: RtpLeg, b: RtpLeg, absorbA: boolean, absorbB: boolean): void {
    const toB = new RelayRewriter();
    const toA = new RelayRewriter();
    a.packetTap = (packet) => relay(packet, b, toB, absorbA);
    b.packetTap = (packet) => relay(packet, a, toA, absorbB);
    this.#relay = { a, b };
    this.#setRelayed(true);
  }

  #stopRelay(): void {
    if (this.#relay === null) return;
    this.#relay.a.packetTap = null;
    this.#relay.b.packetTap = null;
    this.#relay = null;
    this.#setRelayed(false);
  }

  #setRelayed(relayed: boolean): void {
    for (const { member } of this.#members.values()) if (member.endpoint !== null) member.endpoint.relayed = relayed;
  }

  close(): void {
    this.#stopRelay();
    this.#video.close();
    this.endPlayback('stopped');
    for (const recorder of this.recorders) recorder.end('target-gone');
    this.recorders.clear();
    for (const { member } of this.#members.values()) member.close();
    this.#members.clear();
  }
}

/**
 * Sends one received packet on through the other leg, rewritten into that leg's stream. A packet
 * with a bare 12-byte header is sent on in its own buffer with the header rewritten in place (the
 * common case: one touch, no copy, nothing allocated); anything else (CSRCs, extension, padding)
 * is copied behind a fresh header.
 */
function relay(packet: TappedPacket, to: RtpLeg, rewriter: RelayRewriter, absorbDtmf: boolean): void {
  if (packet.kind === 'event' && absorbDtmf) return;
  const remote = to.remote;
  const clockRate = remote?.codec.clockRate ?? 8000;
  const codec = remote?.codec.name;
  // G.711 carries one sample per byte; otherwise assume the default 20 ms packet (RFC 3551 §4.2).
  const samples = packet.kind === 'event' ? 0 : codec === 'PCMU' || codec === 'PCMA' ? packet.info.payloadLength : clockRate / 50;
  const header = rewriter.rewriteAt(packet.info, to.nextSequence, to.nextTimestamp);
  if (packet.plainHeader) to.relayInPlace(packet.kind, packet.datagram, header, samples);
  else to.sendRelayed(packet.kind, packet.payload(), header, samples);
}
