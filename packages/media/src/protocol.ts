/**
 * The one message catalogue between the engine (main thread) and its media workers.
 *
 *   main ──► worker   MainToWorker:  { kind: 'request', id, command }
 *   worker ──► main   WorkerToMain:  { kind: 'ready' }                       once, after start-up
 *                                    { kind: 'reply', id, ok, result|error } exactly one per request
 *                                    { kind: 'notification', notification }  events of legs/playbacks
 *                                    { kind: 'log', level, fields, msg }     forwarded log lines
 *                                    { kind: 'closed' }                      last message, after `close`
 *
 * Ordering: the worker posts a request's reply before any notification that request caused, and
 * one port carries everything, so the engine resolves the caller's promise (and Node drains its
 * microtasks) before it hands those notifications to listeners.
 */
import type { WireError } from './errors.js';
import type { LogLevel } from './logger.js';
import type { LegCounters, LegRemote, MediaNotification } from './types.js';

/** Every command the engine sends to a worker. */
export type WorkerCommand =
  /** Bind an RTP socket on `bindAddress:port` for a new leg. Fails with `port_in_use` when taken. */
  | { type: 'createLeg'; legId: string; bindAddress: string; port: number }
  /** Set or change where the leg sends, with which codec, and whether it may send or receive. */
  | { type: 'setLegRemote'; legId: string; remote: LegRemote }
  /** Stop the leg's playback (finished `stopped`) and close its socket. */
  | { type: 'destroyLeg'; legId: string }
  /** Start playing a WAV file; replaces the current playback, which finishes `stopped`. */
  | { type: 'playFile'; legId: string; playbackId: string; file: string; offsetMs: number }
  /** Stop a playback if it is still the leg's current one; otherwise nothing happens. */
  | { type: 'stopPlayback'; legId: string; playbackId: string }
  | { type: 'getCounters'; legId: string }
  /** Destroy every leg and stop the tick; the engine ends the thread after the reply. */
  | { type: 'close' };

export type CommandType = WorkerCommand['type'];
export type CommandOf<T extends CommandType> = Extract<WorkerCommand, { type: T }>;

/** The result of each command's successful reply. */
export interface CommandResults {
  createLeg: { localAddress: string; localPort: number };
  setLegRemote: null;
  destroyLeg: null;
  playFile: null;
  stopPlayback: null;
  getCounters: LegCounters;
  close: null;
}

export interface WorkerRequest {
  kind: 'request';
  id: number;
  command: WorkerCommand;
}

export type MainToWorker = WorkerRequest;

export type WorkerReply =
  | { kind: 'reply'; id: number; ok: true; result: CommandResults[CommandType] }
  | { kind: 'reply'; id: number; ok: false; error: WireError };

/** Notifications a worker raises; `workerDied` is the engine's own, raised when a worker exits. */
export type WorkerNotification = Exclude<MediaNotification, { type: 'workerDied' }>;

export type WorkerToMain =
  | { kind: 'ready'; workerIndex: number }
  | WorkerReply
  | { kind: 'notification'; notification: WorkerNotification }
  | { kind: 'log'; level: LogLevel; fields: Record<string, unknown>; msg: string }
  /**
   * Follows the `close` reply and the notifications it caused: everything the worker had to say has
   * been posted, so the engine can end the thread without losing a message.
   */
  | { kind: 'closed' };

/** `workerData` given to each worker thread. */
export interface WorkerInit {
  workerIndex: number;
}
