/**
 * A leg as the worker's media tick sees it, whether it has a socket (RtpLeg) or not (a snoop leg):
 * on every 20 ms frame the tick first *captures* what the leg received (after inbound mute and
 * whisper), then bridges mix, then the endpoint *renders* what the leg sends: a recording's beep,
 * else its own playback, else what its bridge gave it; plus whisper, then outbound mute.
 */
import type { WorkerNotification } from '../protocol.js';
import type { Recorder } from '../recording/recorder.js';
import type { TelephoneEvent } from '../rtp/telephone-event.js';
import type { LegRemote, PlaybackEndReason, TalkDetectionOptions } from '../types.js';
import { DtmfSender, END_REPETITIONS } from './dtmf-sender.js';
import { InbandDtmfDetector } from './inband-dtmf.js';
import { type FrameSource, Playback, SAMPLES_PER_FRAME } from './playback.js';
import { TalkDetector } from './talk-detector.js';

/** The audio surface of a leg: one 8 kHz frame in, one out, per tick. */
export interface AudioIo {
  readonly id: string;
  /** What the far end sent for this frame, or null when nothing arrived. */
  readFrame(rateHz: number): Int16Array | null;
  /** Sends one frame toward the far end. */
  writeFrame(pcm: Int16Array, rateHz: number): void;
  /** The next frame written starts a talkspurt. */
  startTalkspurt(): void;
  close(): void;
}

/** A leg that can send RFC 4733 events in its RTP stream (RtpLeg). */
export interface EventIo {
  readonly remote: LegRemote | null;
  sendEvent(event: TelephoneEvent, timestamp: number, marker: boolean): boolean;
  claimTimestamp(samples: number): number;
}

/** RFC 4733 §2.3.4 volume of the events we send, in −dBm0 (a typical DTMF level). */
const EVENT_VOLUME = 10;

interface DtmfSending {
  sender: DtmfSender;
  timestamp: number;
  done: () => void;
}

const RATE = 8000;
const SILENCE = new Int16Array(SAMPLES_PER_FRAME);

function addInto(target: Int16Array, other: Int16Array): Int16Array {
  const out = new Int16Array(SAMPLES_PER_FRAME);
  for (let i = 0; i < SAMPLES_PER_FRAME; i += 1) {
    const sum = target[i] + other[i];
    out[i] = sum > 32767 ? 32767 : sum < -32768 ? -32768 : sum;
  }
  return out;
}

export class MediaEndpoint {
  readonly id: string;
  readonly io: AudioIo;
  readonly #notify: (notification: WorkerNotification) => void;
  readonly #events: EventIo | null;
  #playback: Playback | null = null;
  #dtmf: DtmfSending | null = null;
  #talk: TalkDetector | null = null;
  #inband: InbandDtmfDetector | null = null;
  muteInbound = false;
  muteOutbound = false;
  /** The bridge this leg is in (here or on another worker), for bookkeeping. */
  bridgeId: string | null = null;
  /** Snoop legs attached to this one (a relay must not bypass their whisper). */
  snoops = 0;
  /** Recordings of what this leg receives. */
  readonly recorders = new Set<Recorder>();

  /** This tick's captured inbound audio (null: silence or muted). */
  inFrame: Int16Array | null = null;
  /** What was sent on the last tick (null: nothing), for a snoop's `out` direction. */
  lastOut: Int16Array | null = null;
  /** This tick's output from the leg's bridge. */
  bridgeOut: Int16Array | null = null;
  /** Whisper from a snoop leg, applied on the next tick: into what the leg sends on, and what it hears. */
  whisperIn: Int16Array | null = null;
  whisperOut: Int16Array | null = null;

  constructor(io: AudioIo, notify: (notification: WorkerNotification) => void, events: EventIo | null = null) {
    this.id = io.id;
    this.io = io;
    this.#notify = notify;
    this.#events = events;
  }

  setTalkDetection(options: TalkDetectionOptions | null): void {
    this.#talk = options === null ? null : new TalkDetector(options);
  }

  setInbandDtmfDetection(enabled: boolean): void {
    this.#inband = enabled ? new InbandDtmfDetector() : null;
  }

  /**
   * Sends digits (RFC 4733 events when the peer negotiated telephone-event, else in-band tones);
   * resolves when the last one has ended. A new call replaces digits still being sent.
   */
  sendDigits(digits: string, durationMs: number, betweenMs: number): Promise<void> {
    this.#dtmf?.done();
    const useEvents = this.#events !== null && this.#events.remote?.telephoneEventPayloadType !== undefined;
    return new Promise((resolve) => {
      this.#dtmf = { sender: new DtmfSender(digits, durationMs, betweenMs, useEvents), timestamp: 0, done: resolve };
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
    return this.#playback !== null || this.#dtmf !== null || this.muteInbound || this.muteOutbound || this.snoops > 0 || [...this.recorders].some((r) => r.state === 'beeping');
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
    let frame = this.io.readFrame(RATE);
    if (this.#talk !== null) {
      const event = this.#talk.feed(frame);
      if (event?.type === 'started') this.#notify({ type: 'talkingStarted', legId: this.id });
      else if (event?.type === 'finished') this.#notify({ type: 'talkingFinished', legId: this.id, durationMs: event.durationMs });
    }
    if (this.#inband !== null) {
      const digit = this.#inband.feed(frame);
      if (digit !== null) this.#notify({ type: 'dtmfReceived', legId: this.id, digit: digit.digit, durationMs: digit.durationMs });
    }
    if (this.muteInbound) frame = null;
    if (this.whisperIn !== null) {
      frame = frame === null ? this.whisperIn : addInto(frame, this.whisperIn);
      this.whisperIn = null;
    }
    this.inFrame = frame;
    for (const recorder of this.recorders) recorder.feed(frame);
  }

  /** Phase 3: send this tick's frame, if the leg has anything to send. */
  render(): void {
    let frame: Int16Array | null = null;
    const dtmf = this.#dtmf;
    if (dtmf !== null) {
      const step = dtmf.sender.step();
      if (step.kind === 'event' && this.#events !== null) {
        this.#sendEvent(dtmf, step.code, step.start, step.end, step.durationSamples);
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
      frame = frame === null ? this.whisperOut : addInto(frame, this.whisperOut);
      this.whisperOut = null;
    }
    if (frame !== null) {
      const sent = this.muteOutbound ? SILENCE : frame;
      this.io.writeFrame(sent, RATE);
      this.lastOut = sent.slice();
    } else {
      this.lastOut = null;
    }
    if (playback !== null && playback === this.#playback && playback.state === 'playing' && playback.exhausted) this.endPlayback('complete');
  }

  /** One tick of an RFC 4733 event: every packet carries the event's start timestamp (§2.5.1.3). */
  #sendEvent(dtmf: DtmfSending, code: number, start: boolean, end: boolean, durationSamples: number): void {
    const events = this.#events;
    if (events === null) return;
    // The event occupies the stream's time like audio would, so audio resumes at the right timestamp.
    const claimed = events.claimTimestamp(SAMPLES_PER_FRAME);
    if (start) dtmf.timestamp = claimed;
    const event = { event: code, end, volume: EVENT_VOLUME, duration: durationSamples };
    const copies = end ? END_REPETITIONS : 1;
    for (let i = 0; i < copies; i += 1) events.sendEvent(event, dtmf.timestamp, start && i === 0);
    this.lastOut = null;
  }

  /** The leg is going away: its playback finishes `stopped`, its recordings `target-gone`. */
  close(): void {
    this.endPlayback('stopped');
    this.#dtmf?.done();
    this.#dtmf = null;
    for (const recorder of this.recorders) recorder.end('target-gone');
    this.recorders.clear();
    this.io.close();
  }
}
