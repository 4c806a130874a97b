import { conflict } from '../errors.js';
import type { LiveRecordingSnapshot, LiveRecordingState } from '../model/snapshots.js';

/**
 * Life of one live recording (reference gaps.md [3-b]):
 *
 *   queued ──► recording ⇄ paused
 *     │            │          │
 *     └────────────┴──────────┴──► done | canceled | failed
 *
 * `queued` until the media engine reports that writing began. Mute and unmute change what is
 * written (silence), never the state. A finished recording leaves the live view at once.
 */
const TRANSITIONS: Record<LiveRecordingState, readonly LiveRecordingState[]> = {
  queued: ['recording', 'done', 'canceled', 'failed'],
  recording: ['paused', 'done', 'canceled', 'failed'],
  paused: ['recording', 'done', 'canceled', 'failed'],
  done: [],
  canceled: [],
  failed: [],
};

export type LiveRecordingOperation = 'stop' | 'cancel' | 'pause' | 'unpause' | 'mute' | 'unmute';

const ALLOWED: Record<LiveRecordingState, readonly LiveRecordingOperation[]> = {
  queued: ['stop', 'cancel'],
  recording: ['stop', 'cancel', 'pause', 'unpause', 'mute', 'unmute'],
  paused: ['stop', 'cancel', 'pause', 'unpause', 'mute', 'unmute'],
  done: [],
  canceled: [],
  failed: [],
};

export interface LiveRecordingInit {
  name: string;
  format: string;
  targetUri: string;
  /** Talking and silence durations are reported only when silence detection was asked for. */
  silenceDetection: boolean;
}

export interface RecordingDurations {
  durationMs: number;
  talkingMs?: number;
  silenceMs?: number;
}

export class LiveRecording {
  readonly name: string;
  readonly format: string;
  readonly targetUri: string;
  readonly silenceDetection: boolean;
  muted = false;
  #state: LiveRecordingState = 'queued';
  #durations: RecordingDurations | undefined;
  #cause: string | undefined;

  constructor(init: LiveRecordingInit) {
    this.name = init.name;
    this.format = init.format;
    this.targetUri = init.targetUri;
    this.silenceDetection = init.silenceDetection;
  }

  get state(): LiveRecordingState {
    return this.#state;
  }

  get isFinished(): boolean {
    return this.#state === 'done' || this.#state === 'canceled' || this.#state === 'failed';
  }

  transition(next: LiveRecordingState): void {
    if (!TRANSITIONS[this.#state].includes(next)) throw conflict(`Recording cannot go from ${this.#state} to ${next}`);
    this.#state = next;
  }

  assertAllowed(operation: LiveRecordingOperation): void {
    if (!ALLOWED[this.#state].includes(operation)) throw conflict(`Recording is ${this.#state}; '${operation}' is not allowed now`);
  }

  /** Ends the recording with what the media engine measured. */
  finish(state: 'done' | 'canceled' | 'failed', durations: RecordingDurations, cause?: string): void {
    this.transition(state);
    this.#durations = durations;
    this.#cause = cause;
  }

  snapshot(): LiveRecordingSnapshot {
    const snapshot: LiveRecordingSnapshot = { name: this.name, format: this.format, target_uri: this.targetUri, state: this.#state };
    const d = this.#durations;
    if (d) {
      // Whole seconds, as the reference reports them; SPEC §2.11 calls the total `total_duration`.
      const seconds = Math.floor(d.durationMs / 1000);
      snapshot.total_duration = seconds;
      if (this.silenceDetection) {
        snapshot.talking_duration = Math.floor((d.talkingMs ?? 0) / 1000);
        snapshot.silence_duration = Math.floor((d.silenceMs ?? 0) / 1000);
      }
    }
    if (this.#cause !== undefined) snapshot.cause = this.#cause;
    return snapshot;
  }
}
