/**
 * One live recording inside a worker: what its target (a leg's inbound audio, or a bridge's mix)
 * hands it on each 20 ms media tick, written through the format's sink.
 *
 *     beeping ──beep played──► recording ──stop / limit / DTMF / target gone / error──► finished
 *        └──(no beep)──────────────┘
 *        └──stop / target gone─────────────────────────────────────────────────────────┘
 *
 * Paused: frames are dropped (nothing written, no time counted). Muted: silence is written in
 * their place. `durationMs` is the length of the audio written by this recording.
 *
 * Frames come at the target's rate (a leg: 8 kHz; a bridge: `captureRate`). A recorder format,
 * when given, is the helper recorder channel's: the audio is first taken to its rate and
 * quantisation (channel-format.ts), then to the file format's rate for its sink.
 */
import type { WorkerNotification } from '../protocol.js';
import type { RecordingEndReason, StartRecordingRequest } from '@switchboard/media-control';
import { RateConverter } from '../dsp/rate-converter.js';
import type { ResampleRate } from '../dsp/resampler.js';
import { FormatQuantiser } from '../worker/channel-format.js';
import { beepSource, type ToneSource } from '../worker/tone-frames.js';
import { SilenceTracker } from './silence.js';
import { type AudioSink, openSink, sinkRate } from './sinks.js';

export type RecorderState = 'beeping' | 'recording' | 'finished';

const TRANSITIONS: Record<RecorderState, readonly RecorderState[]> = {
  beeping: ['recording', 'finished'],
  recording: ['finished'],
  finished: [],
};

const FRAME_MS = 20;
const FRAME_SAMPLES = 160;

export type RecordingFinished = Extract<WorkerNotification, { type: 'recordingFinished' }>;

export class Recorder {
  readonly id: string;
  readonly #request: StartRecordingRequest;
  readonly #notify: (notification: WorkerNotification) => void;
  #state: RecorderState;
  #sink: AudioSink | null = null;
  #openError: string | null = null;
  #beep: ToneSource | null;
  readonly #beepFrame = new Int16Array(FRAME_SAMPLES);
  #paused = false;
  #muted = false;
  #framesWritten = 0;
  readonly #silence: SilenceTracker | null;
  readonly #capture: FormatQuantiser | null;
  readonly #toSink = new RateConverter();
  readonly #sinkSilence: Int16Array;
  #finishing: Promise<RecordingFinished> | null = null;

  /** Opens the file at once; a file or format problem is reported by `failure` for the caller to finish with. */
  constructor(request: StartRecordingRequest, notify: (notification: WorkerNotification) => void) {
    this.id = request.recordingId;
    this.#request = request;
    this.#notify = notify;
    this.#silence = request.maxSilenceMs !== undefined && request.maxSilenceMs > 0 ? new SilenceTracker(FRAME_MS) : null;
    try {
      this.#sink = openSink(request.format, request.file, request.append === true);
    } catch (error) {
      this.#openError = `cannot record to ${request.file}: ${error instanceof Error ? error.message : String(error)}`;
    }
    this.#capture = request.recorderFormat === undefined ? null : new FormatQuantiser(request.recorderFormat);
    this.#sinkSilence = new Int16Array((sinkRate(request.format) * FRAME_MS) / 1000);
    this.#beep = request.beep === true ? beepSource() : null;
    this.#state = this.#beep === null ? 'recording' : 'beeping';
  }

  /**
   * The rate a bridge hands this recording its mix at: the recorder format's, else the file
   * format's own (16 kHz for G.722, 8 kHz otherwise), so the capture never changes rate mid-file.
   */
  get captureRate(): ResampleRate {
    return this.#capture?.rate ?? sinkRate(this.#request.format);
  }

  get state(): RecorderState {
    return this.#state;
  }

  /** Why the recording could not start (format unavailable, file not writable), or null. */
  get failure(): string | null {
    return this.#openError;
  }

  /** Announces the start; call once after the start command was answered (or at once without a beep). */
  announce(): void {
    if (this.#state === 'recording') this.#notify({ type: 'recordingStarted', recordingId: this.id });
  }

  #transition(next: RecorderState): void {
    if (!TRANSITIONS[this.#state].includes(next)) throw new Error(`recording ${this.id}: illegal transition ${this.#state} → ${next}`);
    this.#state = next;
  }

  setState(state: { paused?: boolean; muted?: boolean }): void {
    if (state.paused !== undefined) this.#paused = state.paused;
    if (state.muted !== undefined) this.#muted = state.muted;
  }

  /** While beeping: the next beep frame for the target to hear; null once the beep is over. */
  beepFrame(): Int16Array | null {
    if (this.#state !== 'beeping' || this.#beep === null) return null;
    if (this.#beep.next(this.#beepFrame)) return this.#beepFrame;
    this.#beep = null;
    this.#transition('recording');
    this.#notify({ type: 'recordingStarted', recordingId: this.id });
    return null;
  }

  /** One tick of the target's audio (null: nothing arrived, which is silence). */
  feed(frame: Int16Array | null): void {
    if (this.#state !== 'recording' || this.#sink === null || this.#paused || this.#finishing !== null) return;
    let pcm = this.#sinkSilence;
    if (!this.#muted && frame !== null) {
      const captured = this.#capture === null ? frame : this.#capture.apply(frame);
      pcm = this.#toSink.convert(captured, sinkRate(this.#request.format));
    }
    this.#sink.write(pcm);
    this.#framesWritten += 1;
    if (this.#silence !== null) this.#silence.feed(pcm);
    const max = this.#request.maxDurationMs ?? 0;
    if (max > 0 && this.#framesWritten * FRAME_MS >= max) {
      this.end('max-duration');
    } else if (this.#silence !== null && this.#silence.currentSilenceMs >= (this.#request.maxSilenceMs ?? 0)) {
      this.end('max-silence');
    }
  }

  /** A DTMF digit from the target: ends the recording when it is one of `terminateOn`. */
  dtmf(digit: string): void {
    const terminate = this.#request.terminateOn;
    if (terminate === undefined || terminate === '' || terminate === 'none' || this.#finishing !== null) return;
    if (terminate === 'any' || terminate.includes(digit)) this.end('dtmf');
  }

  /** Ends from inside the worker (limits, DTMF, target gone): the notification is posted when the file is complete. */
  end(reason: RecordingEndReason, error?: string): void {
    void this.finish(reason, { discard: false, error }).then((notification) => this.#notify(notification));
  }

  /**
   * Completes or deletes the file and resolves with the `recordingFinished` notification for the
   * caller to post (so a stop command's reply can go first). Later calls share the first outcome.
   */
  finish(reason: RecordingEndReason, options: { discard: boolean; error?: string }): Promise<RecordingFinished> {
    if (this.#finishing !== null) return this.#finishing;
    if (this.#state !== 'finished') this.#transition('finished');
    this.#finishing = (async (): Promise<RecordingFinished> => {
      let finalReason: RecordingEndReason = options.discard ? 'canceled' : reason;
      let error = options.error ?? this.#openError ?? undefined;
      if (this.#openError !== null) finalReason = 'failed';
      if (this.#sink !== null) {
        try {
          if (options.discard) await this.#sink.discard();
          else await this.#sink.finish();
        } catch (cause) {
          finalReason = 'failed';
          error = `recording ${this.#request.file} failed: ${cause instanceof Error ? cause.message : String(cause)}`;
        }
      }
      const notification: RecordingFinished = {
        type: 'recordingFinished',
        recordingId: this.id,
        reason: finalReason,
        durationMs: this.#framesWritten * FRAME_MS,
      };
      if (this.#silence !== null) {
        notification.talkingMs = this.#silence.talkingMs;
        notification.silenceMs = this.#silence.silenceMs;
      }
      if (error !== undefined) notification.error = error;
      return notification;
    })();
    return this.#finishing;
  }
}
