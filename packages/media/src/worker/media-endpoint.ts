/**
 * A leg as the worker's media tick sees it, whether it has a socket (RtpLeg) or not (a snoop leg):
 * on every 20 ms frame the tick first *captures* what the leg received (after inbound mute and
 * whisper; talk and in-band DTMF detection), then bridges mix, then the endpoint *renders* what
 * the leg sends: DTMF being sent (an RFC 4733 event replaces the frame, an in-band tone is the
 * frame), else a recording's beep, else its own playback, else what its bridge gave it; plus
 * whisper, then outbound mute (silence).
 */
import { clip16 } from '../bridge/mixer.js';
import type { WorkerNotification } from '../protocol.js';
import type { Recorder } from '../recording/recorder.js';
import type { TelephoneEvent } from '../rtp/telephone-event.js';
import type { LegRemote, PlaybackEndReason, TalkDetectionOptions, ToneDetectionOptions } from '@switchboard/media-control';
import { MAX_MIX_RATE } from '../bridge/mix-rate.js';
import { DtmfDetector } from '../dsp/dtmf-detector.js';
import { applyGain } from '../dsp/gain.js';
import { RateConverter, engineRate, rateOfFrame } from '../dsp/rate-converter.js';
import type { ResampleRate } from '../dsp/resampler.js';
import { TalkDetector } from '../dsp/talk-detector.js';
import { ToneDetector } from '../dsp/tone-detector.js';
import { DtmfSender, type EventPacket } from './dtmf-sender.js';
import { type FrameSource, Playback, SAMPLES_PER_FRAME } from './playback.js';

/** The audio surface of a leg: one 20 ms frame in, one out, per tick, at a rate the caller names. */
export interface AudioIo {
  readonly id: string;
  /** The rate the leg's codec samples at (absent: 8000); a bridged leg is captured at this rate. */
  readonly nativeRate?: number;
  /** What the far end sent for this frame, or null when nothing arrived. */
  readFrame(rateHz: number): Int16Array | null;
  /** Sends one frame toward the far end. */
  writeFrame(pcm: Int16Array, rateHz: number): void;
  /** The next frame written starts a talkspurt. */
  startTalkspurt(): void;
  /** Whether received audio should be buffered for decoding at all (a relayed leg nobody decodes: no). */
  setDecodeWanted?(wanted: boolean): void;
  close(): void;
}

/** A leg that can send RFC 4733 events in its RTP stream (RtpLeg). */
export interface EventIo {
  readonly remote: LegRemote | null;
  /** The leg detects something in its decoded audio itself (in-band DTMF): its frames must be read every tick. */
  readonly needsAudioTicks: boolean;
  sendEvent(event: TelephoneEvent, timestamp: number, marker: boolean): boolean;
  claimTimestamp(samples: number): number;
}

interface DtmfSending {
  /** Created when the digits start, so they use the telephone-event negotiated by then. */
  start: () => DtmfSender;
  sender: DtmfSender | null;
  timestamp: number;
  done: () => void;
}

const RATE = 8000;
const SILENCE = new Int16Array(SAMPLES_PER_FRAME);

function addInto(target: Int16Array, other: Int16Array): Int16Array {
  const out = new Int16Array(target.length);
  for (let i = 0; i < target.length; i += 1) out[i] = clip16(target[i] + (other[i] ?? 0));
  return out;
}

const silences = new Map<number, Int16Array>();
function silenceLike(frame: Int16Array): Int16Array {
  if (frame.length === SAMPLES_PER_FRAME) return SILENCE;
  let silence = silences.get(frame.length);
  if (silence === undefined) {
    silence = new Int16Array(frame.length);
    silences.set(frame.length, silence);
  }
  return silence;
}

export class MediaEndpoint {
  readonly id: string;
  readonly io: AudioIo;
  readonly #notify: (notification: WorkerNotification) => void;
  readonly #events: EventIo | null;
  #playback: Playback | null = null;
  #dtmf: DtmfSending | null = null;
  /** Digits waiting for those being sent (a request, or digits a bridge passes on). */
  readonly #dtmfQueue: DtmfSending[] = [];
  #talk: TalkDetector | null = null;
  #tone: ToneDetector | null = null;
  #inband: DtmfDetector | null = null;
  muteInbound = false;
  muteOutbound = false;
  /** Gain of what the phone sends (VOLUME(RX)) and of what is sent to it (VOLUME(TX)); 1: unchanged. */
  gainInbound = 1;
  gainOutbound = 1;
  /** The bridge this leg is in (here or on another worker), for bookkeeping. */
  bridgeId: string | null = null;
  /** Snoop legs attached to this one (a relay must not bypass their whisper). */
  snoops = 0;
  /** The leg's bridge relays its packets undecoded (bridge.ts): capture decodes only if something else listens. */
  relayed = false;
  /** Recordings of what this leg receives. */
  readonly recorders = new Set<Recorder>();

  /**
   * This tick's captured inbound audio (null: silence or muted), at `captureRate`: the leg's native
   * rate while it is bridged (so a wideband bridge hears it wideband), else 8 kHz.
   */
  inFrame: Int16Array | null = null;
  /** What was sent on the last tick (null: nothing), at the rate it was sent; see `lastOut8k()`. */
  lastOut: Int16Array | null = null;
  /** This tick's output from the leg's bridge, at any engine rate (its length says which). */
  bridgeOut: Int16Array | null = null;
  /** Paths between the capture rate and the 8 kHz consumers (detectors, leg recordings, snoops, whisper). */
  readonly #detectPath = new RateConverter();
  readonly #narrowInPath = new RateConverter();
  readonly #narrowOutPath = new RateConverter();
  readonly #whisperInPath = new RateConverter();
  readonly #whisperOutPath = new RateConverter();
  #narrowIn: Int16Array | null = null;
  #narrowInReady = true;
  #narrowOut: Int16Array | null = null;
  #narrowOutReady = true;
  /** Whisper from a snoop leg, applied on the next tick: into what the leg sends on, and what it hears. */
  whisperIn: Int16Array | null = null;
  whisperOut: Int16Array | null = null;

  constructor(io: AudioIo, notify: (notification: WorkerNotification) => void, events: EventIo | null = null) {
    this.id = io.id;
    this.io = io;
    this.#notify = notify;
    this.#events = events;
  }

  /** The rate `capture()` reads at: the leg's native rate (up to the mixing cap) while bridged, else 8 kHz. */
  get captureRate(): ResampleRate {
    return this.bridgeId === null ? RATE : engineRate(this.io.nativeRate ?? RATE, MAX_MIX_RATE);
  }

  /** This tick's `inFrame` at 8 kHz (computed once per tick, on demand). */
  inFrame8k(): Int16Array | null {
    if (!this.#narrowInReady) {
      this.#narrowIn = this.inFrame === null ? null : this.#narrowInPath.convert(this.inFrame, RATE);
      this.#narrowInReady = true;
    }
    return this.#narrowIn;
  }

  /** The last tick's `lastOut` at 8 kHz (computed once per tick, on demand). */
  lastOut8k(): Int16Array | null {
    if (!this.#narrowOutReady) {
      this.#narrowOut = this.lastOut === null ? null : this.#narrowOutPath.convert(this.lastOut, RATE);
      this.#narrowOutReady = true;
    }
    return this.#narrowOut;
  }

  setToneDetection(options: ToneDetectionOptions | null): void {
    this.#tone = options === null ? null : new ToneDetector(options, RATE);
  }

  setTalkDetection(options: TalkDetectionOptions | null): void {
    this.#talk = options === null ? null : new TalkDetector(options, RATE);
  }

  setInbandDtmfDetection(enabled: boolean): void {
    this.#inband = enabled ? new DtmfDetector() : null;
  }

  /**
   * An RTP leg whose peer negotiated no telephone-event already listens for in-band digits itself
   * (audio/leg-audio.ts); detecting them here as well would report every digit twice.
   */
  #legDetectsInband(): boolean {
    const remote = this.#events?.remote;
    return remote != null && remote.telephoneEventPayloadType === undefined;
  }

  /**
   * Sends digits (RFC 4733 events when the peer negotiated telephone-event, else in-band tones)
   * after any still being sent; resolves when the last one has ended.
   */
  sendDigits(digits: string, durationMs: number, betweenMs: number): Promise<void> {
    return new Promise((resolve) => {
      const start = (): DtmfSender => {
        const useEvents = this.#events !== null && this.#events.remote?.telephoneEventPayloadType !== undefined;
        return new DtmfSender(digits, durationMs, betweenMs, useEvents);
      };
      this.#dtmfQueue.push({ start, sender: null, timestamp: 0, done: resolve });
    });
  }

  get playback(): Playback | null {
    return this.#playback;
  }

  /** Something about this endpoint needs the media tick. */
  get active(): boolean {
    return (
      this.#playback !== null ||
      this.#dtmf !== null ||
      this.#dtmfQueue.length > 0 ||
      this.#events?.needsAudioTicks === true ||
      this.#talk !== null ||
      this.#inband !== null ||
      this.recorders.size > 0 ||
      this.bridgeId !== null ||
      this.snoops > 0 ||
      this.whisperIn !== null ||
      this.whisperOut !== null
    );
  }

  /** Whether the endpoint is playing something of its own (a relay cannot run meanwhile). */
  get busy(): boolean {
    return (
      this.#playback !== null ||
      this.#dtmf !== null ||
      this.#dtmfQueue.length > 0 ||
      this.muteInbound ||
      this.muteOutbound ||
      this.gainInbound !== 1 ||
      this.gainOutbound !== 1 ||
      this.snoops > 0 ||
      this.#beeping()
    );
  }

  /** A loop, not a spread: `busy` is read for both members of every relaying bridge on every tick. */
  #beeping(): boolean {
    if (this.recorders.size === 0) return false; // no iterator made for the common case
    for (const recorder of this.recorders) if (recorder.state === 'beeping') return true;
    return false;
  }

  // ── playback ──────────────────────────────────────────────────────────────────────────────

  /** Replaces the current playback (finished `stopped`); `load` yields its frames or rejects with a reason. */
  play(playbackId: string, load: () => Promise<FrameSource>, wake: () => void): void {
    this.endPlayback('stopped');
    const playback = new Playback(playbackId);
    this.#playback = playback;
    load().then(
      (source) => {
        // Stopped or replaced while loading.
        if (this.#playback !== playback || playback.state !== 'loading') return;
        playback.begin(source);
        if (source.done) {
          this.endPlayback('complete');
          return;
        }
        this.io.startTalkspurt();
        wake();
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
    this.io.startTalkspurt();
    this.#notify(
      error === undefined
        ? { type: 'playbackFinished', legId: this.id, playbackId: playback.id, reason }
        : { type: 'playbackFinished', legId: this.id, playbackId: playback.id, reason, error },
    );
  }

  // ── the tick ─────────────────────────────────────────────────────────────────────────────

  /** Phase 1: take what the leg received; feed its recordings. */
  capture(): void {
    this.#narrowIn = null;
    this.#narrowInReady = true;
    if (!this.active) {
      // An idle leg's audio goes nowhere: leave it in the jitter buffer, which bounds itself.
      this.inFrame = null;
      return;
    }
    if (
      this.relayed &&
      this.recorders.size === 0 &&
      this.#talk === null &&
      this.#tone === null &&
      this.#inband === null &&
      this.#events?.needsAudioTicks !== true
    ) {
      // Nobody needs the decoded audio: the leg stops filling its jitter buffer until it is wanted again.
      this.io.setDecodeWanted?.(false);
      this.inFrame = null;
      return;
    }
    this.io.setDecodeWanted?.(true);
    const rate = this.captureRate;
    let frame = this.io.readFrame(rate);
    const detected = rate === RATE || frame === null ? frame : this.#detectPath.convert(frame, RATE);
    if (this.#talk !== null) {
      const event = this.#talk.process(detected ?? SILENCE);
      if (event?.type === 'talkingStarted') this.#notify({ type: 'talkingStarted', legId: this.id });
      else if (event?.type === 'talkingFinished')
        this.#notify({ type: 'talkingFinished', legId: this.id, durationMs: Math.round(event.durationMs) });
    }
    if (this.#tone?.process(detected ?? SILENCE)) {
      this.#notify({ type: 'toneDetected', legId: this.id, frequencyHz: this.#tone.frequencyHz });
    }
    if (this.#inband !== null && !this.#legDetectsInband()) {
      for (const digit of this.#inband.process(detected ?? SILENCE)) {
        this.#notify({ type: 'dtmfReceived', legId: this.id, digit: digit.digit, durationMs: Math.round(digit.durationMs) });
      }
    }
    if (this.muteInbound) frame = null;
    else frame = applyGain(frame, this.gainInbound);
    if (this.whisperIn !== null) {
      const whisper = this.#whisperInPath.convert(this.whisperIn, rate);
      frame = frame === null ? whisper : addInto(frame, whisper);
      this.whisperIn = null;
    }
    this.inFrame = frame;
    this.#narrowInReady = rate === RATE;
    this.#narrowIn = frame;
    // A leg's own recordings hear it at 8 kHz, as its playback and detectors do.
    if (this.recorders.size > 0) {
      const narrow = this.inFrame8k();
      for (const recorder of this.recorders) recorder.feed(narrow);
    }
  }

  /** Phase 5: send this tick's frame, if the leg has anything to send. */
  render(): void {
    let frame: Int16Array | null = null;
    this.#narrowOut = null;
    this.#narrowOutReady = true;
    if (this.#dtmf === null) this.#dtmf = this.#dtmfQueue.shift() ?? null;
    const dtmf = this.#dtmf;
    if (dtmf !== null) {
      dtmf.sender ??= dtmf.start();
      const step = dtmf.sender.step();
      if (step.kind === 'events' && this.#events !== null) {
        this.#sendEvents(dtmf, step.packets);
        this.bridgeOut = null;
        this.whisperOut = null;
        return; // the event replaces this frame's audio
      }
      if (step.kind === 'tone') frame = step.frame;
      if (step.kind === 'done') {
        this.#dtmf = null;
        dtmf.done();
      }
    }
    // Every endpoint renders every frame: an empty set is not iterated (each iterator is garbage on the relay's thread).
    if (this.recorders.size > 0)
      for (const recorder of this.recorders) {
        const beep = recorder.beepFrame();
        if (beep !== null && frame === null) frame = beep;
      }
    const playback = this.#playback;
    if (frame === null && playback !== null && playback.state === 'playing') {
      const first = playback.framesOut === 0;
      frame = playback.nextFrame();
      if (first && frame !== null) this.#notify({ type: 'playbackStarted', legId: this.id, playbackId: playback.id });
    }
    if (frame === null) frame = this.bridgeOut;
    this.bridgeOut = null;
    if (this.whisperOut !== null) {
      const whisper = frame === null ? this.whisperOut : this.#whisperOutPath.convert(this.whisperOut, rateOfFrame(frame));
      frame = frame === null ? whisper : addInto(frame, whisper);
      this.whisperOut = null;
    }
    if (frame !== null) {
      const sent = this.muteOutbound ? silenceLike(frame) : (applyGain(frame, this.gainOutbound) ?? frame);
      this.io.writeFrame(sent, rateOfFrame(sent));
      this.lastOut = sent.slice();
    } else {
      this.lastOut = null;
    }
    this.#narrowOutReady = this.lastOut === null || this.lastOut.length === SAMPLES_PER_FRAME;
    this.#narrowOut = this.lastOut;
    if (playback !== null && playback === this.#playback && playback.state === 'playing' && playback.exhausted)
      this.endPlayback('complete');
  }

  /** One tick of RFC 4733 events: every packet of an event carries its start timestamp (§2.5.1.3). */
  #sendEvents(dtmf: DtmfSending, packets: EventPacket[]): void {
    const events = this.#events;
    if (events === null) return;
    // The event occupies the stream's time as audio would, so audio resumes at the right timestamp.
    const claimed = events.claimTimestamp(SAMPLES_PER_FRAME);
    for (const packet of packets) {
      if (packet.newEvent) dtmf.timestamp = claimed;
      events.sendEvent(packet.event, dtmf.timestamp, packet.marker);
    }
    this.lastOut = null;
  }

  /** The leg is going away: its playback finishes `stopped`, its recordings `target-gone`. */
  close(): void {
    this.endPlayback('stopped');
    this.#dtmf?.done();
    this.#dtmf = null;
    for (const pending of this.#dtmfQueue.splice(0)) pending.done();
    for (const recorder of this.recorders) recorder.end('target-gone');
    this.recorders.clear();
    this.io.close();
  }
}
