import { randomUUID } from 'node:crypto';
import type { Channel } from '../channels/channel.js';
import { conflict, invalidArgument, notFound } from '../errors.js';
import type { EventBus } from '../events/event-bus.js';
import type { ChannelFormat, MediaEngine, MediaNotification, MediaTarget, ToneSegment } from '../media/media-engine.js';
import type { PlaybackSnapshot } from '../model/snapshots.js';
import type { SoundIndex } from '../sounds/sound-index.js';
import type { Logger } from '../util/logger.js';
import type { Clock } from '../util/time.js';
import { resolvePlayable } from './playable-media.js';
import { Playback, type PlaybackControl } from './playback.js';
import { ToneResolver } from './tone-resolver.js';

export interface PlayOptions {
  playbackId?: string;
  lang?: string;
  offsetMs?: number;
  skipMs?: number;
  /** Bridge playback: the announcer's format (absent: linear PCM at the bridge's mixing rate). */
  announcerFormat?: ChannelFormat;
}

/** A bridge as playbacks see it: something to play into that can go away. */
export interface PlaybackBridge {
  readonly id: string;
  readonly isDestroyed: boolean;
  onDestroy(hook: () => void): void;
}

/** What is playing right now for an active playback. */
interface ActiveMedia {
  target: MediaTarget;
  files: string[];
  /** Set while the current item is a tone (played by the engine until stopped). */
  tone: ToneSegment[] | undefined;
  /** Id of the current file's play request in the media engine; notifications for others are stale. */
  mediaPlayId: string;
  /** A bridge playback's announcer format, for every item of the playback. */
  announcerFormat?: ChannelFormat;
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
  /** Announcer formats of queued bridge playbacks, by playback id. */
  readonly #announcerFormats = new Map<string, ChannelFormat>();
  readonly #byMediaPlayId = new Map<string, Playback>();
  readonly #waiters = new Map<string, ((p: Playback) => void)[]>();
  readonly #channels = new Map<string, Channel>();
  readonly #bridges = new Map<string, PlaybackBridge>();
  readonly #bus: EventBus;
  readonly #media: MediaEngine;
  readonly #sounds: SoundIndex;
  readonly #tones: ToneResolver;
  readonly #recordingFile: (name: string) => string | undefined;
  readonly #toneZoneOf: (channel: Channel) => string | undefined;
  readonly #log: Logger;
  readonly #clock: Clock;
  #mediaPlaySequence = 0;

  constructor(deps: {
    bus: EventBus;
    media: MediaEngine;
    sounds: SoundIndex;
    log: Logger;
    clock: Clock;
    /** Tone names and zones (indications.conf); the built-in US zone when absent. */
    tones?: ToneResolver;
    /** Where `recording:` URIs find their WAV file; without it they fail. */
    recordingFile?: (name: string) => string | undefined;
    /** A channel's own tone zone (channel-tone-zone.ts), for `tone:` URIs that name none. */
    toneZoneOf?: (channel: Channel) => string | undefined;
  }) {
    this.#bus = deps.bus;
    this.#media = deps.media;
    this.#sounds = deps.sounds;
    this.#tones = deps.tones ?? new ToneResolver();
    this.#recordingFile = deps.recordingFile ?? (() => undefined);
    this.#toneZoneOf = deps.toneZoneOf ?? (() => undefined);
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
    return this.playOnChannelTracked(channel, mediaUris, options).snapshot;
  }

  /**
   * As playOnChannel, with a promise for the end that is in place before the playback starts, so
   * a playback that fails at once (a missing sound) still reports its phase to the dialplan.
   */
  playOnChannelTracked(
    channel: Channel,
    mediaUris: string[],
    options: PlayOptions = {},
  ): { snapshot: PlaybackSnapshot; finished: Promise<Playback> } {
    if (mediaUris.length === 0) throw invalidArgument('media is required');
    channel.assertReadyForMedia();
    const playback = this.#create(mediaUris, { kind: 'channel', id: channel.id }, options.lang ?? channel.language, options);
    this.#channels.set(channel.id, channel);
    const finished = new Promise<Playback>((resolve) => this.#waiters.set(playback.id, [resolve]));
    return { snapshot: this.#enqueue(playback, (stopAll) => channel.onHangup(stopAll)), finished };
  }

  /**
   * Queues a media list on a bridge: it plays to every participant, after the bridge's earlier
   * playbacks (SPEC §4.5 rule 4). Sounds use `lang`, else the default language.
   */
  playOnBridge(bridge: PlaybackBridge, mediaUris: string[], options: PlayOptions & { defaultLanguage: string }): PlaybackSnapshot {
    if (mediaUris.length === 0) throw invalidArgument('media is required');
    if (bridge.isDestroyed) throw notFound('Bridge not found');
    const playback = this.#create(mediaUris, { kind: 'bridge', id: bridge.id }, options.lang ?? options.defaultLanguage, options);
    this.#bridges.set(bridge.id, bridge);
    if (options.announcerFormat !== undefined) this.#announcerFormats.set(playback.id, options.announcerFormat);
    return this.#enqueue(playback, (stopAll) => bridge.onDestroy(stopAll));
  }

  #create(mediaUris: string[], target: Playback['target'], language: string, options: PlayOptions): Playback {
    const id = options.playbackId ?? randomUUID();
    if (this.#playbacks.has(id)) throw conflict('A playback with this id already exists');
    return new Playback({
      id,
      mediaUris,
      target,
      language,
      skipMs: options.skipMs ?? DEFAULT_SKIP_MS,
      offsetMs: Math.max(0, options.offsetMs ?? 0),
    });
  }

  /** `whenTargetGoes` registers the end of every playback of the target when it goes away. */
  #enqueue(playback: Playback, whenTargetGoes: (stopAll: () => void) => void): PlaybackSnapshot {
    this.#playbacks.set(playback.id, playback);
    const key = targetKey(playback);
    const queue = this.#queues.get(key) ?? [];
    if (queue.length === 0) {
      this.#queues.set(key, queue);
      whenTargetGoes(() => this.#stopAllOn(key));
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
    if (active) await this.#stopMedia(active);
  }

  async control(id: string, operation: PlaybackControl): Promise<void> {
    const playback = this.get(id);
    playback.assertControlAllowed(operation);
    const active = this.#active.get(id);
    if (!active) throw conflict('Playback is not playing');
    if (active.tone) return this.#controlTone(playback, active, operation);
    const position = this.#positionMs(active);
    switch (operation) {
      case 'pause':
        if (playback.phase === 'paused') return;
        active.pausedAtMs = position;
        playback.transition('paused');
        this.#forgetMediaPlay(active);
        await this.#stopMedia(active);
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

  /** Tones cannot seek (SPEC §3 rule 4); pause stops them and unpause/restart start them over. */
  async #controlTone(playback: Playback, active: ActiveMedia, operation: PlaybackControl): Promise<void> {
    switch (operation) {
      case 'reverse':
      case 'forward':
        throw conflict(`A tone cannot be ${operation === 'reverse' ? 'reversed' : 'fast-forwarded'}`);
      case 'pause':
        if (playback.phase === 'paused') return;
        playback.transition('paused');
        this.#forgetMediaPlay(active);
        await this.#stopMedia(active);
        return;
      case 'unpause':
        if (playback.phase !== 'paused') return;
        playback.transition('playing');
        await this.#playFile(playback, active, 0);
        return;
      case 'restart':
        await this.#stopMedia(active);
        await this.#playFile(playback, active, 0);
        return;
    }
  }

  async #startNext(key: string): Promise<void> {
    const playback = this.#queues.get(key)?.[0];
    if (!playback) {
      this.#queues.delete(key);
      return;
    }
    if (playback.target.kind === 'bridge') {
      const bridge = this.#bridges.get(playback.target.id);
      if (!bridge || bridge.isDestroyed) {
        this.#finish(playback, 'failed');
        return;
      }
      playback.transition('playing');
      const active = emptyActive({ kind: 'bridge', bridgeId: bridge.id });
      const announcerFormat = this.#announcerFormats.get(playback.id);
      if (announcerFormat !== undefined) active.announcerFormat = announcerFormat;
      this.#active.set(playback.id, active);
      await this.#startItem(playback, playback.offsetMs);
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
    this.#active.set(playback.id, emptyActive({ kind: 'leg', legId }));
    await this.#startItem(playback, playback.offsetMs);
  }

  async #startItem(playback: Playback, offsetMs: number): Promise<void> {
    const active = this.#active.get(playback.id);
    if (!active || playback.isFinished) return;
    const channel = playback.target.kind === 'channel' ? this.#channels.get(playback.target.id) : undefined;
    const resolved = resolvePlayable(
      playback.currentUri,
      playback.language,
      { sounds: this.#sounds, tones: this.#tones, recordingFile: this.#recordingFile },
      channel === undefined ? undefined : this.#toneZoneOf(channel),
    );
    if (resolved.kind === 'error') {
      this.#log.info({ playback: playback.id, media: playback.currentUri, error: resolved.error }, 'media item failed');
      this.#itemFailed(playback);
      return;
    }
    active.files = resolved.kind === 'files' ? resolved.files : [];
    active.tone = resolved.kind === 'tone' ? resolved.segments : undefined;
    playback.fileIndex = 0;
    this.#bus.publish({ type: 'PlaybackStarted', playback: playback.snapshot() });
    await this.#playFile(playback, active, offsetMs);
  }

  async #playFile(playback: Playback, active: ActiveMedia, offsetMs: number): Promise<void> {
    const file = active.files[playback.fileIndex];
    if (file === undefined && !active.tone) return;
    this.#forgetMediaPlay(active);
    this.#mediaPlaySequence += 1;
    active.mediaPlayId = `${playback.id}#${this.#mediaPlaySequence}`;
    active.fileOffsetMs = offsetMs;
    active.startedAt = this.#clock.now();
    this.#byMediaPlayId.set(active.mediaPlayId, playback);
    try {
      const playbackId = active.mediaPlayId;
      const target = active.target;
      const announcer = active.announcerFormat === undefined ? {} : { announcerFormat: active.announcerFormat };
      if (active.tone) await this.#media.playTone(target, { playbackId, segments: active.tone, repeat: true, ...announcer });
      else if (file === undefined) return;
      else if (target.kind === 'bridge') await this.#media.playFileOnBridge(target.bridgeId, { playbackId, file, offsetMs, ...announcer });
      else await this.#media.playFile(target.legId, { playbackId, file, offsetMs });
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
    this.#announcerFormats.delete(playback.id);
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
      else this.#bridges.delete(playback.target.id);
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

  async #stopMedia(active: ActiveMedia): Promise<void> {
    const stopping =
      active.target.kind === 'bridge'
        ? this.#media.stopBridgePlayback(active.target.bridgeId, active.mediaPlayId)
        : this.#media.stopPlayback(active.target.legId, active.mediaPlayId);
    await stopping.catch(() => undefined);
  }

  #forgetMediaPlay(active: ActiveMedia): void {
    this.#byMediaPlayId.delete(active.mediaPlayId);
  }

  #positionMs(active: ActiveMedia): number {
    return active.fileOffsetMs + Math.max(0, this.#clock.now() - active.startedAt);
  }
}

function emptyActive(target: MediaTarget): ActiveMedia {
  return { target, files: [], tone: undefined, mediaPlayId: '', fileOffsetMs: 0, startedAt: 0, pausedAtMs: 0 };
}

function targetKey(playback: Playback): string {
  return `${playback.target.kind}:${playback.target.id}`;
}
