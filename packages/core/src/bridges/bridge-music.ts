/**
 * Music on hold into a bridge (SPEC §4.5 rule 3: it mutes nobody): the WAV files of a
 * musiconhold.conf class, played to every participant in turn. One file loops in the media
 * engine; several are played one after another, starting over after the last.
 */
import { DEFAULT_MUSIC_CLASS, defaultMusicOnHoldConfig, musicOnHoldFiles } from '../config/musiconhold-config.js';
import type { MusicOnHoldClass, MusicOnHoldConfig } from '../config/types.js';
import { conflict } from '../errors.js';
import type { MediaEngine, MediaNotification } from '../media/media-engine.js';
import type { Logger } from '../util/logger.js';

interface Playing {
  bridgeId: string;
  mohClass: string;
  files: string[];
  index: number;
  playbackId: string;
  /** Failures in a row: when every file has failed, the music stops instead of spinning. */
  failures: number;
}

export class BridgeMusic {
  readonly #playing = new Map<string, Playing>();
  #config: MusicOnHoldConfig;
  readonly #confDir: string;
  readonly #media: MediaEngine;
  readonly #log: Logger;
  #sequence = 0;

  constructor(deps: { config: MusicOnHoldConfig | undefined; confDir: string; media: MediaEngine; log: Logger }) {
    this.#confDir = deps.confDir;
    this.#config = deps.config ?? defaultMusicOnHoldConfig(deps.confDir);
    this.#media = deps.media;
    this.#log = deps.log;
    this.#media.onNotification((n) => this.#onMediaNotification(n));
  }

  isPlaying(bridgeId: string): boolean {
    return this.#playing.has(bridgeId);
  }

  /** Starts (or switches to) a class; an unknown class plays the default one, as operators expect. */
  async start(bridgeId: string, mohClass: string | undefined): Promise<void> {
    await this.stop(bridgeId).catch(() => undefined);
    const chosen = this.#classFor(mohClass);
    const files = chosen ? musicOnHoldFiles(chosen) : [];
    if (files.length === 0) this.#log.warn({ bridge: bridgeId, mohClass }, 'music-on-hold class has no files; bridge stays silent');
    const playing: Playing = {
      bridgeId,
      mohClass: chosen?.name ?? mohClass ?? DEFAULT_MUSIC_CLASS,
      files,
      index: 0,
      playbackId: '',
      failures: 0,
    };
    this.#playing.set(bridgeId, playing);
    await this.#playCurrent(playing);
  }

  /** Errors: 409 when no music is playing (reference: `Bridge isn't playing music`). */
  async stop(bridgeId: string): Promise<void> {
    const playing = this.#playing.get(bridgeId);
    if (!playing) throw conflict("Bridge isn't playing music");
    this.#playing.delete(bridgeId);
    if (playing.playbackId !== '') await this.#media.stopBridgePlayback(bridgeId, playing.playbackId);
  }

  /** The bridge is gone: forget its music without asking the engine (the bridge took it along). */
  forget(bridgeId: string): void {
    this.#playing.delete(bridgeId);
  }

  /** musiconhold.conf was reread: classes apply to music started from now on. */
  useConfig(config: MusicOnHoldConfig | undefined): void {
    this.#config = config ?? defaultMusicOnHoldConfig(this.#confDir);
  }

  #classFor(name: string | undefined): MusicOnHoldClass | undefined {
    const wanted = name && name !== '' ? name : DEFAULT_MUSIC_CLASS;
    const found = Object.hasOwn(this.#config.classes, wanted) ? this.#config.classes[wanted] : undefined;
    if (found) return found;
    this.#log.warn({ mohClass: wanted }, 'unknown music-on-hold class; using the default class');
    return this.#config.classes[DEFAULT_MUSIC_CLASS];
  }

  async #playCurrent(playing: Playing): Promise<void> {
    const file = playing.files[playing.index];
    if (file === undefined) return;
    this.#sequence += 1;
    playing.playbackId = `moh-${this.#sequence}`;
    await this.#media.playFileOnBridge(playing.bridgeId, { playbackId: playing.playbackId, file, loop: playing.files.length === 1 });
  }

  #onMediaNotification(n: MediaNotification): void {
    if (n.type !== 'playbackFinished' || n.bridgeId === undefined) return;
    const playing = this.#playing.get(n.bridgeId);
    if (!playing || playing.playbackId !== n.playbackId) return;
    if (n.reason === 'stopped') return;
    if (n.reason === 'failed') {
      this.#log.warn({ bridge: n.bridgeId, error: n.error }, 'music-on-hold file failed');
      playing.failures += 1;
      if (playing.failures >= playing.files.length) return;
    } else {
      playing.failures = 0;
    }
    playing.index = (playing.index + 1) % playing.files.length;
    void this.#playCurrent(playing).catch((err: unknown) => this.#log.warn({ err, bridge: n.bridgeId }, 'music-on-hold play failed'));
  }
}
