import type { ApplicationRegistry } from '../apps/application-registry.js';
import type { Channel } from '../channels/channel.js';
import type { PlaybackManager } from '../playback/playback-manager.js';
import type { Logger } from '../util/logger.js';
import type { PbxServices } from './pbx-services.js';

/** Where the dialplan goes after an application returns. */
export type DialplanFlow =
  | { kind: 'next' }
  | { kind: 'goto'; context?: string; exten?: string; priority?: number; label?: string }
  | { kind: 'stop' };

/** A position in the dialplan. */
export interface DialplanPosition {
  context: string;
  exten: string;
  priority: number;
}

export interface DialplanAppContext {
  channel: Channel;
  applications: ApplicationRegistry;
  playbacks: PlaybackManager;
  globals: Map<string, string>;
  log: Logger;
  /** Resolves after `ms`, or rejects when the channel hangs up. */
  sleep(ms: number): Promise<void>;
  /** The step being run (Gosub returns after it; GotoIf jumps relative to it). */
  location: DialplanPosition;
  /** What applications beyond the basic ones need (DTMF, AstDB, the clock, functions, ...). */
  pbx: PbxServices;
}

/** A dialplan application such as Answer or Playback; `args` are already expanded and split. */
export type DialplanApplication = (ctx: DialplanAppContext, args: string[]) => Promise<DialplanFlow>;
