/**
 * What the dialplan's applications and functions use beyond a channel and its playbacks: the
 * clock (GotoIfTime, STRFTIME), AstDB (DB()), DTMF input (Background, WaitExten, Read), the
 * Gosub stacks, the function table, and the core services (channel media, device states, text
 * messages, CDRs) that core attaches once they exist. A runner built without them (unit tests)
 * gets the in-memory defaults of createPbxServices(); an application whose service is missing
 * fails with a clear message.
 */
import type { Channel } from '../channels/channel.js';
import { type AstDb, MemoryAstDb } from '../store/astdb.js';
import type { Logger } from '../util/logger.js';
import type { DialplanAppContext, DialplanFlow, DialplanPosition } from './dialplan-app.js';
import { DtmfCollector } from './dtmf-collector.js';
import { GosubStacks } from './gosub.js';

export interface DialplanFunctionContext {
  channel: Channel;
  location: DialplanPosition;
  globals: Map<string, string>;
  pbx: PbxServices;
  log: Logger;
}

/** A dialplan function such as CALLERID(): read as `${NAME(args)}`, written with `Set(NAME(args)=value)`. */
export interface DialplanFunction {
  read?(ctx: DialplanFunctionContext, args: string): string;
  write?(ctx: DialplanFunctionContext, args: string, value: string): void;
}

/** Media operations some applications need (core's ChannelMediaControl and friends). */
export interface PbxMedia {
  sendDtmf(channel: Channel, digits: string, durationMs: number): Promise<void>;
  startMoh(channel: Channel, mohClass: string | undefined): Promise<void>;
  stopMoh(channel: Channel): Promise<void>;
  /** Plays the channel's own audio back to it until it hangs up. */
  echo(channel: Channel): Promise<void>;
  /** Records the channel into `name` (under the recordings directory); resolves when it ends. */
  record(channel: Channel, options: RecordOptions): Promise<{ endedBy: 'silence' | 'dtmf' | 'max-duration' | 'hangup' | 'failed' }>;
}

export interface RecordOptions {
  name: string;
  format: string;
  maxSilenceSeconds: number;
  maxDurationSeconds: number;
  terminateOn: string;
  beep: boolean;
}

/** A one-way intercom call from a channel to several devices (Page). */
export interface PbxPaging {
  page(channel: Channel, devices: string[], options: { timeoutSeconds: number; duplex: boolean }): Promise<void>;
}

export interface PbxMessaging {
  /** MessageSend(to[,from]): the channel's MESSAGE data sent to a SIP URI or `pjsip:endpoint`. */
  send(to: string, from: string, body: string, variables: Record<string, string>): Promise<void>;
}

export interface PbxServices {
  now(): Date;
  astdb: AstDb;
  /** SHARED() variables: channel id → name → value. */
  shared: Map<string, Map<string, string>>;
  dtmf: DtmfCollector;
  gosub: GosubStacks;
  functions: Map<string, DialplanFunction>;
  /** Runs an application by name with unexpanded-free (already expanded) argument text. */
  runApplication(ctx: DialplanAppContext, name: string, data: string): Promise<DialplanFlow>;
  hasApplication(name: string): boolean;
  /** Whether `exten` exists in `context` (at `priority`, default 1). */
  exists(context: string, exten: string, priority?: number): boolean;
  /** The priority a label names, if it exists. */
  findLabel?(context: string, exten: string, label: string): number | undefined;
  /** Whether (context, exten) can still match more digits (WaitExten keeps collecting). */
  canMatchMore(context: string, exten: string): boolean;
  media?: PbxMedia;
  paging?: PbxPaging;
  messaging?: PbxMessaging;
  deviceState?(device: string): string;
  extensionState?(context: string, exten: string): string;
  /** Another live channel by name (SHARED(name,channel), HANGUPCAUSE(channel)). */
  channelByName?(name: string): Channel | undefined;
  /** TIMEOUT(absolute): hang the channel up after `seconds` (0 clears). */
  setAbsoluteTimeout?(channel: Channel, seconds: number): void;
}

export function createPbxServices(partial: Partial<PbxServices> = {}): PbxServices {
  return {
    now: () => new Date(),
    astdb: new MemoryAstDb(),
    shared: new Map(),
    dtmf: new DtmfCollector(),
    gosub: new GosubStacks(),
    functions: new Map(),
    runApplication: () => Promise.reject(new Error('no application runner')),
    hasApplication: () => false,
    exists: () => false,
    canMatchMore: () => false,
    ...partial,
  };
}

/** The service or a clear error naming the application that needed it. */
export function requireService<T>(service: T | undefined, what: string, app: string): T {
  if (service === undefined) throw new Error(`${app}: ${what} is not available in this server`);
  return service;
}
