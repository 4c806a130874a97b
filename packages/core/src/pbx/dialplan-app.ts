import type { ApplicationRegistry } from '../apps/application-registry.js';
import type { Channel } from '../channels/channel.js';
import type { PlaybackManager } from '../playback/playback-manager.js';
import type { Logger } from '../util/logger.js';

/** Where the dialplan goes after an application returns. */
export type DialplanFlow =
  | { kind: 'next' }
  | { kind: 'goto'; context?: string; exten?: string; priority?: number; label?: string }
  | { kind: 'stop' };

export interface DialplanAppContext {
  channel: Channel;
  applications: ApplicationRegistry;
  playbacks: PlaybackManager;
  globals: Map<string, string>;
  log: Logger;
  /** Resolves after `ms`, or rejects when the channel hangs up. */
  sleep(ms: number): Promise<void>;
}

/** A dialplan application such as Answer or Playback; `args` are already expanded and split. */
export type DialplanApplication = (ctx: DialplanAppContext, args: string[]) => Promise<DialplanFlow>;
