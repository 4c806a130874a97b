import { randomUUID } from 'node:crypto';
import type { Channel } from '../channels/channel.js';
import { conflict, invalidArgument, notFound } from '../errors.js';
import type { EventBus } from '../events/event-bus.js';
import type { MediaEngine, MediaNotification } from '../media/media-engine.js';
import type { PlaybackSnapshot } from '../model/snapshots.js';
import type { SoundIndex } from '../sounds/sound-index.js';
import type { Logger } from '../util/logger.js';
import type { Clock } from '../util/time.js';
import { resolveMedia } from './media-uri.js';
import { Playback, type PlaybackControl } from './playback.js';

export interface PlayOptions {
  playbackId?: string;
  lang?: string;
  offsetMs?: number;
  skipMs?: number;
}

/** What is playing right now for an active playback. */
interface ActiveMedia {
  legId: string;
  files: string[];
  /** Id of the current file's play request in the media engine; notifications for others are stale. */
  mediaPlayId: string;
  /** Position in the current file when it (re)started, and when that was. */
  fileOffsetMs: number;
  startedAt: number;
  pausedAtMs: number;
}

const DEFAULT_SKIP_MS = 3000;

/**
 * Owns every playback: queues them per target (SPEC §3 rule 3), walks media lists, drives the media
 * engine file by file and turns its notifications into Playback events.
 */
export class PlaybackManager {
  readonly #playbacks = new Map<string, Playback>();
  readonly #queues = new Map<string, Playback[]>();
  readonly #active = new Map<string, ActiveMedia>();
  readonly #byMediaPlayId = new Map<string, Playback>();
  readonly #waiters = new Map<string, ((p: Playback) => void)[]>();
  readonly #channels = new Map<string, Channel>();
  readonly #bus: EventBus;
  readonly #media: MediaEngine;
  readonly #sounds: SoundIndex;
  readonly #log: Logger;
  readonly #clock: Clock;
  #mediaPlaySequence = 0;

  constructor(deps: { bus: EventBus; media: MediaEngine; sounds: SoundIndex; log: Logger; clock: Clock }) {
    this.#bus = deps.bus;
    this.#media = deps.media;
    this.#sounds = deps.sounds;
    this.#log = deps.log;
    this.#clock = deps.clock;
    this.#media.onNotification((n) => this.#onMediaNotification(n));
  }

  get(id: string): Playback {
    const playback = this.#playbacks.get(id);
    if (!playback) throw notFound('Playback not found');
    return playback;
  }

  /** Queues a media list on a channel; returns at once with the playback's first snapshot. */
  playOnChannel(channel: Channel, mediaUris: string[], options: PlayOptions = {}): PlaybackSnapshot {
    if (mediaUris.length === 0) throw invalidArgument('media is required');
    channel.assertReadyForMedia();
    const id = options.playbackId ?? randomUUID();
    if (this.#playbacks.has(id)) throw conflict('A playback with this id already exists');
    const playback = new Playback({
      id,
      mediaUris,
      target: { kind: 'channel', id: channel.id },
      language: options.lang ?? channel.language,
      skipMs: options.skipMs ?? DEFAULT_SKIP_MS,
      offsetMs: Math.max(0, options.offsetMs ?? 0),
    });
    this.#playbacks.set(id, playback);
    this.#channels.set(channel.id, channel);
    const key = targetKey(playback);
    const queue = this.#queues.get(key) ?? [];
    if (queue.length === 0) {
      this.#queues.set(key, queue);
      channel.onHangup(() => this.#stopAllOn(key));
    }
    queue.push(playback);
    const snapshot = playback.snapshot();
    if (queue.length === 1) void this.#startNext(key);
    return snapshot;
  }

  /** Resolves when the playback ends (for the dialplan's Playback()). */
  whenFinished(id: string): Promise<Playback> {
    const playback = this.get(id);
    if (playback.isFinished) return Promise.resolve(playback);
    return new Promise((resolve) => {
      const list = this.#waiters.get(id) ?? [];
      list.push(resolve);
      this.#waiters.set(id, list);
    });
  }

  /** Stops a playing playback, or cancels a queued one. */
  async stop(id: string): Promise<void> {
    const playback = this.get(id);
    if (playback.isFinished) return;
    const active = this.#active.get(id);
    this.#finish(playback, 'done');
    if (active) await this.#media.stopPlayback(active.legId, active.mediaPlayId).catch(() => undefined);
  }

  async control(id: string, operation: PlaybackControl): Promise<void> {
    const playback = this.get(id);
    playback.assertControlAllowed(operation);
    const active = this.#active.get(id);
    if (!active) throw conflict('Playback is not playing');
    const position = this.#positionMs(active);
    switch (operation) {
      case 'pause':
        if (playback.phase === 'paused') return;
        active.pausedAtMs = position;
        playback.transition('paused');
        this.#forgetMediaPlay(active);
        await this.#media.stopPlayback(active.legId, active.mediaPlayId).catch(() => undefined);
        return;
      case 'unpause':
        if (playback.phase !== 'paused') return;
        playback.transition('playing');
        await this.#playFile(playback, active, active.pausedAtMs);
        return;
      case 'restart':
        playback.fileIndex = 0;
        await this.#playFile(playback, active, 0);
        return;
      case 'reverse':
        await this.#playFile(playback, active, Math.max(0, position - playback.skipMs));
        return;
      case 'forward':
        await this.#playFile(playback, active, position + playback.skipMs);
        return;
    }
  }

  async #startNext(key: string): Promise<void> {
    const playback = this.#queues.get(key)?.[0];
    if (!playback) {
      this.#queues.delete(key);
      return;
    }
    const channel = this.#channels.get(playback.target.id);
    if (!channel || channel.isDestroyed) {
      this.#finish(playback, 'failed');
      return;
    }
    try {
      // Playing media does not answer the channel; an unanswered one gets early media (SPEC §4.4 rule 3).
      if (channel.state !== 'Up') await channel.indicateProgress();
    } catch (err) {
      this.#log.warn({ err, playback: playback.id }, 'progress indication failed');
    }
    if (playback.isFinished) return;
    const legId = channel.tech.mediaLegId;
    if (!legId) {
      this.#log.warn({ playback: playback.id }, 'channel has no media leg');
      this.#finish(playback, 'failed');
      return;
    }
    playback.transition('playing');
    this.#active.set(playback.id, { legId, files: [], mediaPlayId: '', fileOffsetMs: 0, startedAt: 0, pausedAtMs: 0 });
    await this.#startItem(playback, playback.offsetMs);
  }

  async #startItem(playback: Playback, offsetMs: number): Promise<void> {
    const active = this.#active.get(playback.id);
    if (!active || playback.isFinished) return;
    const resolved = resolveMedia(playback.currentUri, playback.language, this.#sounds);
    if (!resolved.ok) {
      this.#log.info({ playback: playback.id, media: playback.currentUri, error: resolved.error }, 'media item failed');
      this.#itemFailed(playback);
      return;
    }
    active.files = resolved.files;
    playback.fileIndex = 0;
    this.#bus.publish({ type: 'PlaybackStarted', playback: playback.snapshot() });
    await this.#playFile(playback, active, offsetMs);
  }

  async #playFile(playback: Playback, active: ActiveMedia, offsetMs: number): Promise<void> {
    const file = active.files[playback.fileIndex];
    if (file === undefined) return;
    this.#forgetMediaPlay(active);
    this.#mediaPlaySequence += 1;
    active.mediaPlayId = `${playback.id}#${this.#mediaPlaySequence}`;
    active.fileOffsetMs = offsetMs;
    active.startedAt = this.#clock.now();
    this.#byMediaPlayId.set(active.mediaPlayId, playback);
    try {
      await this.#media.playFile(active.legId, { playbackId: active.mediaPlayId, file, offsetMs });
    } catch (err) {
      this.#log.warn({ err, playback: playback.id, file }, 'media engine refused the file');
      if (this.#byMediaPlayId.get(active.mediaPlayId) === playback) this.#itemFailed(playback);
    }
  }

  #onMediaNotification(notification: MediaNotification): void {
    if (notification.type !== 'playbackFinished') return;
    const playback = this.#byMediaPlayId.get(notification.playbackId);
    const active = playback && this.#active.get(playback.id);
    if (!playback || !active || active.mediaPlayId !== notification.playbackId) return;
    this.#forgetMediaPlay(active);
    if (notification.reason === 'failed') {
      this.#log.info({ playback: playback.id, error: notification.error }, 'media file failed');
      this.#itemFailed(playback);
    } else if (notification.reason === 'complete') {
      this.#fileComplete(playback, active);
    }
  }

  #fileComplete(playback: Playback, active: ActiveMedia): void {
    if (playback.fileIndex + 1 < active.files.length) {
      playback.fileIndex += 1;
      void this.#playFile(playback, active, 0);
      return;
    }
    if (playback.isLastItem) {
      this.#finish(playback, 'done');
      return;
    }
    this.#bus.publish({ type: 'PlaybackContinuing', playback: playback.snapshot() });
    playback.itemIndex += 1;
    void this.#startItem(playback, 0);
  }

  /** A failed item in a list is skipped silently; only the last item's failure is reported (SPEC §6.3 rule 6). */
  #itemFailed(playback: Playback): void {
    if (playback.isLastItem) {
      this.#finish(playback, 'failed');
      return;
    }
    playback.itemIndex += 1;
    void this.#startItem(playback, 0);
  }

  #finish(playback: Playback, phase: 'done' | 'failed'): void {
    if (playback.isFinished) return;
    playback.transition(phase);
    const active = this.#active.get(playback.id);
    if (active) this.#forgetMediaPlay(active);
    this.#active.delete(playback.id);
    this.#playbacks.delete(playback.id);
    const key = targetKey(playback);
    const queue = this.#queues.get(key) ?? [];
    const wasHead = queue[0] === playback;
    const index = queue.indexOf(playback);
    if (index >= 0) queue.splice(index, 1);
    this.#bus.publish({ type: 'PlaybackFinished', playback: playback.snapshot() });
    for (const resolve of this.#waiters.get(playback.id) ?? []) resolve(playback);
    this.#waiters.delete(playback.id);
    if (queue.length === 0) {
      this.#queues.delete(key);
      if (playback.target.kind === 'channel') this.#channels.delete(playback.target.id);
    } else if (wasHead) {
      void this.#startNext(key);
    }
  }

  #stopAllOn(key: string): void {
    const queue = this.#queues.get(key);
    if (!queue) return;
    // The media leg goes away with the channel, so no stop request is sent.
    this.#queues.delete(key);
    for (const playback of queue) this.#finish(playback, 'done');
  }

  #forgetMediaPlay(active: ActiveMedia): void {
    this.#byMediaPlayId.delete(active.mediaPlayId);
  }

  #positionMs(active: ActiveMedia): number {
    return active.fileOffsetMs + Math.max(0, this.#clock.now() - active.startedAt);
  }
}

function targetKey(playback: Playback): string {
  return `${playback.target.kind}:${playback.target.id}`;
}
