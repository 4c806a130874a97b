/**
 * Owns every live recording: checks a record request (name, format, ifExists), asks the media
 * engine to write the file, follows its notifications through the LiveRecording state machine and
 * publishes RecordingStarted / RecordingFinished / RecordingFailed.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { conflict, invalidArgument, notFound, recordingExists, unprocessable } from '../errors.js';
import type { EventBus } from '../events/event-bus.js';
import type { MediaEngine, MediaNotification, MediaTarget, RecordingFormat } from '../media/media-engine.js';
import type { LiveRecordingSnapshot } from '../model/snapshots.js';
import type { Logger } from '../util/logger.js';
import type { Clock } from '../util/time.js';
import { LiveRecording, type LiveRecordingOperation } from './live-recording.js';
import { isRecorderFormat, recorderChannelFormat } from './recorder-format.js';
import { recordingFile } from './recording-paths.js';
import type { StoredRecordings } from './stored-recordings.js';

/** What the media engine can write unless the server says otherwise (CoreOptions.recordingFormats). */
export const DEFAULT_RECORDING_FORMATS: readonly string[] = ['wav', 'ulaw', 'alaw', 'sln', 'g722'];

/**
 * After a stop, the engine's recordingFinished normally follows at once; if it never comes (the
 * engine lost the target), the recording is finished here so that its name is free again.
 */
const FINISH_GRACE_MS = 3000;

export type IfExists = 'fail' | 'overwrite' | 'append';
export type TerminateOn = 'none' | 'any' | '*' | '#';

export interface RecordOptions {
  name: string;
  format: string;
  maxDurationSeconds?: number;
  maxSilenceSeconds?: number;
  ifExists?: IfExists;
  beep?: boolean;
  terminateOn?: TerminateOn;
  /** A bridge recording's recorder format: a helper channel format (`slin16`, `ulaw`, …) or a recording format. */
  recorderFormat?: string;
}

/** What is recorded: a channel's leg or a bridge's mix, and how to learn that it went away. */
export interface RecordTarget {
  /** `channel:{id}` or `bridge:{id}` */
  uri: string;
  media: MediaTarget;
  onGone(hook: () => void): void;
}

interface Active {
  recording: LiveRecording;
  mediaId: string;
  startedAt: number;
  requested?: 'stop' | 'cancel';
  graceTimer?: unknown;
}

export class RecordingManager {
  readonly stored: StoredRecordings;
  readonly formats: readonly string[];
  readonly #live = new Map<string, Active>();
  readonly #byMediaId = new Map<string, Active>();
  readonly #bus: EventBus;
  readonly #media: MediaEngine;
  readonly #log: Logger;
  readonly #clock: Clock;
  #sequence = 0;

  constructor(deps: {
    bus: EventBus;
    media: MediaEngine;
    stored: StoredRecordings;
    formats?: readonly string[];
    log: Logger;
    clock: Clock;
  }) {
    this.stored = deps.stored;
    this.formats = deps.formats ?? DEFAULT_RECORDING_FORMATS;
    this.#bus = deps.bus;
    this.#media = deps.media;
    this.#log = deps.log;
    this.#clock = deps.clock;
    this.#media.onNotification((n) => this.#onMediaNotification(n));
  }

  getLive(name: string): LiveRecording {
    const active = this.#live.get(name);
    if (!active) throw notFound('Recording not found');
    return active.recording;
  }

  /** Whether something is being recorded into a target (`channel:{id}` / `bridge:{id}`). */
  isRecording(targetUri: string): boolean {
    for (const { recording } of this.#live.values()) if (recording.targetUri === targetUri) return true;
    return false;
  }

  /** Starts a recording; returns its first (queued) snapshot. Errors: 400 name, 422 format or existing file, 409 name in use. */
  record(target: RecordTarget, options: RecordOptions): LiveRecordingSnapshot {
    // The name is judged first (400); a format outside the known list is a 422 whatever its spelling.
    const knownFormat = this.formats.includes(options.format) && /^[a-z0-9]+$/i.test(options.format);
    const file = recordingFile(this.stored.root, options.name, knownFormat ? options.format : 'wav');
    if (!knownFormat) throw unprocessable(`Unknown recording format '${options.format}'`);
    if (options.recorderFormat !== undefined && !isRecorderFormat(options.recorderFormat, this.formats))
      throw unprocessable(`Unknown recorder format '${options.recorderFormat}'`);
    if (this.#live.has(options.name)) throw conflict('A recording with the same name is in progress');
    const ifExists = options.ifExists ?? 'fail';
    if (ifExists === 'fail' && this.stored.exists(options.name, options.format)) {
      // SPEC §4.4 rule 6 / §4.5 rule 5: 422 (the reference answers 409).
      throw recordingExists();
    }
    const maxDurationSeconds = options.maxDurationSeconds ?? 0;
    const maxSilenceSeconds = options.maxSilenceSeconds ?? 0;
    if (maxDurationSeconds < 0 || maxSilenceSeconds < 0) throw invalidArgument('Limits must not be negative');
    mkdirSync(dirname(file), { recursive: true });

    const recording = new LiveRecording({
      name: options.name,
      format: options.format,
      targetUri: target.uri,
      silenceDetection: maxSilenceSeconds > 0,
    });
    this.#sequence += 1;
    const active: Active = { recording, mediaId: `rec-${this.#sequence}`, startedAt: this.#clock.now() };
    this.#live.set(recording.name, active);
    this.#byMediaId.set(active.mediaId, active);
    target.onGone(() => this.#targetGone(active));

    const terminateOn = options.terminateOn ?? 'none';
    void this.#media
      .startRecording(target.media, {
        recordingId: active.mediaId,
        file,
        format: options.format as RecordingFormat,
        append: ifExists === 'append',
        maxDurationMs: maxDurationSeconds * 1000,
        ...(maxSilenceSeconds > 0 ? { maxSilenceMs: maxSilenceSeconds * 1000 } : {}),
        beep: options.beep ?? false,
        ...(terminateOn === 'none' ? {} : { terminateOn }),
        ...(options.recorderFormat === undefined ? {} : { recorderFormat: recorderChannelFormat(options.recorderFormat) }),
      })
      .catch((err: unknown) => {
        this.#log.warn({ err, recording: recording.name }, 'media engine refused the recording');
        this.#finish(active, 'failed', { durationMs: 0 }, err instanceof Error ? err.message : String(err));
      });
    return recording.snapshot();
  }

  /** Stops and keeps the file. */
  stop(name: string): Promise<void> {
    return this.#end(name, 'stop');
  }

  /** Stops and discards the file. */
  cancel(name: string): Promise<void> {
    return this.#end(name, 'cancel');
  }

  async pause(name: string): Promise<void> {
    const active = this.#require(name, 'pause');
    if (active.recording.state === 'paused') return;
    await this.#media.setRecordingState(active.mediaId, { paused: true });
    if (active.recording.state === 'recording') active.recording.transition('paused');
  }

  async unpause(name: string): Promise<void> {
    const active = this.#require(name, 'unpause');
    if (active.recording.state !== 'paused') return;
    await this.#media.setRecordingState(active.mediaId, { paused: false });
    if (active.recording.state === 'paused') active.recording.transition('recording');
  }

  async mute(name: string): Promise<void> {
    const active = this.#require(name, 'mute');
    await this.#media.setRecordingState(active.mediaId, { muted: true });
    active.recording.muted = true;
  }

  async unmute(name: string): Promise<void> {
    const active = this.#require(name, 'unmute');
    await this.#media.setRecordingState(active.mediaId, { muted: false });
    active.recording.muted = false;
  }

  #require(name: string, operation: LiveRecordingOperation): Active {
    const active = this.#live.get(name);
    if (!active) throw notFound('Recording not found');
    active.recording.assertAllowed(operation);
    return active;
  }

  async #end(name: string, operation: 'stop' | 'cancel'): Promise<void> {
    const active = this.#require(name, operation);
    active.requested = operation;
    await this.#media.stopRecording(active.mediaId, { discard: operation === 'cancel' }).catch((err: unknown) => {
      this.#log.warn({ err, recording: name }, 'media engine could not stop the recording');
    });
    this.#armGraceTimer(active);
  }

  #targetGone(active: Active): void {
    if (active.recording.isFinished) return;
    active.requested ??= 'stop';
    void this.#media.stopRecording(active.mediaId, { discard: active.requested === 'cancel' }).catch(() => undefined);
    this.#armGraceTimer(active);
  }

  #armGraceTimer(active: Active): void {
    if (active.recording.isFinished || active.graceTimer !== undefined) return;
    active.graceTimer = this.#clock.setTimeout(() => {
      active.graceTimer = undefined;
      if (active.recording.isFinished) return;
      this.#log.warn({ recording: active.recording.name }, 'no recordingFinished from the media engine; finishing anyway');
      const state = active.requested === 'cancel' ? 'canceled' : 'done';
      this.#finish(active, state, { durationMs: Math.max(0, this.#clock.now() - active.startedAt) });
    }, FINISH_GRACE_MS);
  }

  #onMediaNotification(notification: MediaNotification): void {
    if (notification.type === 'recordingStarted') {
      const active = this.#byMediaId.get(notification.recordingId);
      if (active?.recording.state !== 'queued') return;
      active.recording.transition('recording');
      active.startedAt = this.#clock.now();
      this.#bus.publish({ type: 'RecordingStarted', recording: active.recording.snapshot() });
      return;
    }
    if (notification.type !== 'recordingFinished') return;
    const active = this.#byMediaId.get(notification.recordingId);
    if (!active) return;
    const durations = { durationMs: notification.durationMs, talkingMs: notification.talkingMs, silenceMs: notification.silenceMs };
    if (notification.reason === 'failed') this.#finish(active, 'failed', durations, notification.error ?? 'Recording failed');
    else if (notification.reason === 'canceled' || active.requested === 'cancel') this.#finish(active, 'canceled', durations);
    else this.#finish(active, 'done', durations);
  }

  #finish(
    active: Active,
    state: 'done' | 'canceled' | 'failed',
    durations: { durationMs: number; talkingMs?: number; silenceMs?: number },
    cause?: string,
  ): void {
    if (active.recording.isFinished) return;
    if (active.graceTimer !== undefined) this.#clock.clearTimeout(active.graceTimer);
    active.recording.finish(state, durations, cause);
    this.#live.delete(active.recording.name);
    this.#byMediaId.delete(active.mediaId);
    const recording = active.recording.snapshot();
    this.#bus.publish(state === 'failed' ? { type: 'RecordingFailed', recording } : { type: 'RecordingFinished', recording });
  }
}
