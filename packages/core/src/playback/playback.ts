import { CoreError, conflict } from '../errors.js';
import type { PlaybackSnapshot, PlaybackState } from '../model/snapshots.js';

/**
 * Life of one playback (one media list on one target):
 *
 *   queued ──► playing ⇄ paused
 *     │           │  └──► playing (next item, after PlaybackContinuing)
 *     │           ▼
 *     └──────► done | failed      (stop/cancel → done)
 *
 * `paused` shows as `playing` on the wire; `queued`/`done` show as `enqueued`/`complete` (SPEC §2.12).
 */
export type PlaybackPhase = 'queued' | 'playing' | 'paused' | 'done' | 'failed';

const TRANSITIONS: Record<PlaybackPhase, readonly PlaybackPhase[]> = {
  queued: ['playing', 'done', 'failed'],
  playing: ['paused', 'done', 'failed', 'playing'],
  paused: ['playing', 'done', 'failed'],
  done: [],
  failed: [],
};

const WIRE_STATE: Record<PlaybackPhase, PlaybackState> = {
  queued: 'enqueued',
  playing: 'playing',
  paused: 'playing',
  done: 'complete',
  failed: 'failed',
};

export type PlaybackControl = 'restart' | 'pause' | 'unpause' | 'reverse' | 'forward';
export const PLAYBACK_CONTROLS: readonly PlaybackControl[] = ['restart', 'pause', 'unpause', 'reverse', 'forward'];

export interface PlaybackTarget {
  kind: 'channel' | 'bridge';
  id: string;
}

export class Playback {
  readonly id: string;
  readonly mediaUris: readonly string[];
  readonly target: PlaybackTarget;
  readonly language: string;
  readonly skipMs: number;
  /** Applies to the first item only (SPEC §4.4 rule 5). */
  readonly offsetMs: number;
  /** Index of the item now playing. */
  itemIndex = 0;
  /** Index of the file within the current item (`digits:123` is three files). */
  fileIndex = 0;
  #phase: PlaybackPhase = 'queued';

  constructor(init: { id: string; mediaUris: string[]; target: PlaybackTarget; language: string; skipMs: number; offsetMs: number }) {
    this.id = init.id;
    this.mediaUris = init.mediaUris;
    this.target = init.target;
    this.language = init.language;
    this.skipMs = init.skipMs;
    this.offsetMs = init.offsetMs;
  }

  get phase(): PlaybackPhase {
    return this.#phase;
  }

  get isFinished(): boolean {
    return this.#phase === 'done' || this.#phase === 'failed';
  }

  get isLastItem(): boolean {
    return this.itemIndex >= this.mediaUris.length - 1;
  }

  get currentUri(): string {
    return this.mediaUris[this.itemIndex] ?? this.mediaUris[this.mediaUris.length - 1];
  }

  transition(next: PlaybackPhase): void {
    if (!TRANSITIONS[this.#phase].includes(next)) {
      throw conflict(`Playback cannot go from ${this.#phase} to ${next}`);
    }
    this.#phase = next;
  }

  /** Refuses a control operation the current phase does not allow (reference state × operation table). */
  assertControlAllowed(operation: PlaybackControl): void {
    const allowed: Record<PlaybackPhase, readonly PlaybackControl[]> = {
      queued: [],
      playing: ['restart', 'pause', 'unpause', 'reverse', 'forward'],
      paused: ['pause', 'unpause'],
      done: [],
      failed: [],
    };
    if (this.#phase === 'queued' && operation === 'restart') {
      throw new CoreError('restart_queued', 'Playback is queued; restart is not allowed now');
    }
    if (!allowed[this.#phase].includes(operation)) {
      throw conflict(`Playback is ${WIRE_STATE[this.#phase]}; '${operation}' is not allowed now`);
    }
  }

  snapshot(): PlaybackSnapshot {
    const snapshot: PlaybackSnapshot = {
      id: this.id,
      media_uri: this.currentUri,
      target_uri: `${this.target.kind}:${this.target.id}`,
      language: this.language,
      state: WIRE_STATE[this.#phase],
    };
    const next = this.mediaUris[this.itemIndex + 1];
    if (next !== undefined && !this.isFinished) snapshot.next_media_uri = next;
    return snapshot;
  }
}
