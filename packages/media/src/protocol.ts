/**
 * The one message catalogue between the engine (main thread) and its media workers.
 *
 *   main ──► worker   MainToWorker:  { kind: 'request', id, command }
 *                                    { kind: 'batch', requests }   the requests of one main-loop turn, in order
 *   worker ──► main   WorkerToMain:  { kind: 'ready' }                       once, after start-up
 *                                    { kind: 'reply', id, ok, result|error } exactly one per request
 *                                    { kind: 'notification', notification }  events of legs/playbacks
 *                                    { kind: 'log', level, fields, msg }     forwarded log lines
 *                                    { kind: 'closed' }                      last message, after `close`
 *
 * Commands that hand a worker a MessagePort (`joinBridge` with a remote member, `linkLeg`) transfer
 * it with the request; frames between workers then flow on those ports (bridge/bridge-link.ts),
 * never through the main thread.
 *
 * Ordering: the worker posts a request's reply before any notification that request caused, and
 * one port carries everything, so the engine resolves the caller's promise (and Node drains its
 * microtasks) before it hands those notifications to listeners.
 */
import type { MessagePort } from 'node:worker_threads';
import type { WireError } from './errors.js';
import type { LogLevel } from './logger.js';
import type {
  BridgeKind,
  BridgeVideoRequest,
  ChannelFormat,
  JoinBridgeOptions,
  LegCounters,
  LegRemote,
  LegRtpStatistics,
  MediaNotification,
  MediaTarget,
  SnoopDirection,
  StartRecordingRequest,
  TalkDetectionOptions,
  ToneDetectionOptions,
  ToneSegment,
  WorkerTickStats,
} from '@switchboard/media-control';

/** Every command the engine sends to a worker. */
export type WorkerCommand =
  /**
   * Bind an RTP socket on `bindAddress:port` for a new leg, and a video pair on `videoPort` when
   * given, then set `remote` as `setLegRemote` does when given (one round trip for a new call's leg).
   * Fails with `port_in_use` when either port is taken; a refused remote leaves no leg behind.
   */
  | { type: 'createLeg'; legId: string; bindAddress: string; port: number; videoPort?: number; remote?: LegRemote }
  /** A leg without a socket that hears and/or whispers into `sourceLegId` (on this worker). */
  | {
      type: 'createSnoopLeg';
      legId: string;
      sourceLegId: string;
      spy: SnoopDirection;
      whisper: SnoopDirection;
      spyGain?: { in: number; out: number };
    }
  /** Set or change where the leg sends, with which codec, and whether it may send or receive. */
  | { type: 'setLegRemote'; legId: string; remote: LegRemote }
  /** Stop the leg's playback (finished `stopped`), end its recordings, leave its bridge, close its socket. */
  | { type: 'destroyLeg'; legId: string }
  /** Start playing a WAV file; replaces the current playback, which finishes `stopped`. */
  | {
      type: 'playFile';
      target: MediaTarget;
      playbackId: string;
      file: string;
      offsetMs: number;
      loop: boolean;
      announcerFormat?: ChannelFormat;
    }
  /** Start playing a tone pattern; replaces the current playback like a file. */
  | { type: 'playTone'; target: MediaTarget; playbackId: string; segments: ToneSegment[]; repeat: boolean; announcerFormat?: ChannelFormat }
  /** Stop a playback if it is still the target's current one; otherwise nothing happens. */
  | { type: 'stopPlayback'; target: MediaTarget; playbackId: string }
  | { type: 'getCounters'; legId: string }
  | { type: 'getRtpStatistics'; legId: string }
  /** A bridge whose mixing runs on this worker (its home). */
  | { type: 'createBridge'; bridgeId: string; kind: BridgeKind }
  /** Remove every member (their links close), stop bridge media and recordings, free the bridge. */
  | { type: 'destroyBridge'; bridgeId: string }
  /**
   * Add a member to a bridge homed here: a leg of this worker (`port` absent), or a leg of another
   * worker reached through `port` (its worker got the other end with `linkLeg`).
   */
  | { type: 'joinBridge'; bridgeId: string; legId: string; options: JoinBridgeOptions; port?: MessagePort }
  /** On the leg's worker: connect the leg to a bridge homed on another worker through `port`. */
  | { type: 'linkLeg'; bridgeId: string; legId: string; port: MessagePort }
  | { type: 'leaveBridge'; bridgeId: string; legId: string }
  /** On the leg's worker: close the leg's link to a bridge on another worker. */
  | { type: 'unlinkLeg'; legId: string }
  | { type: 'setBridgeParticipant'; bridgeId: string; legId: string; options: JoinBridgeOptions }
  /** How the bridge homed here forwards video. */
  | { type: 'setBridgeVideo'; bridgeId: string; video: BridgeVideoRequest }
  /** Record a leg's inbound audio or a bridge's mix; file/format problems finish it `failed` after the reply. */
  | { type: 'startRecording'; target: MediaTarget; request: StartRecordingRequest }
  /** Replies once the file is complete (or deleted); `recordingFinished` follows the reply. */
  | { type: 'stopRecording'; recordingId: string; discard: boolean }
  | { type: 'setRecordingState'; recordingId: string; paused?: boolean; muted?: boolean }
  /** Replies when the last digit has been sent. */
  | { type: 'sendDtmf'; legId: string; digits: string; durationMs: number; betweenMs: number }
  | { type: 'setLegMute'; legId: string; inbound: boolean; outbound: boolean }
  | { type: 'setLegGain'; legId: string; inbound: number; outbound: number }
  | { type: 'setTalkDetection'; legId: string; options: TalkDetectionOptions | null }
  | { type: 'setToneDetection'; legId: string; options: ToneDetectionOptions | null }
  | { type: 'setInbandDtmfDetection'; legId: string; enabled: boolean }
  /** Arms (seconds > 0) or disarms (0) the leg's RTP timeout; checked once a second (worker/rtp-timeouts.ts). */
  | { type: 'setLegRtpTimeout'; legId: string; seconds: number }
  /** Destroy every leg and stop the tick; the engine ends the thread after the reply. */
  /** The worker's media tick statistics (tick-stats.ts); `reset` starts a new measuring window. */
  | { type: 'getTickStats'; reset: boolean }
  | { type: 'close' };

export type CommandType = WorkerCommand['type'];
export type CommandOf<T extends CommandType> = Extract<WorkerCommand, { type: T }>;

/** The result of each command's successful reply. */
export interface CommandResults {
  createLeg: { localAddress: string; localPort: number; videoPort?: number };
  createSnoopLeg: null;
  setLegRemote: null;
  destroyLeg: null;
  playFile: null;
  playTone: null;
  stopPlayback: null;
  getCounters: LegCounters;
  getRtpStatistics: LegRtpStatistics;
  createBridge: null;
  destroyBridge: null;
  joinBridge: null;
  linkLeg: null;
  leaveBridge: null;
  unlinkLeg: null;
  setBridgeParticipant: null;
  setBridgeVideo: null;
  startRecording: null;
  stopRecording: null;
  setRecordingState: null;
  sendDtmf: null;
  setLegMute: null;
  setLegGain: null;
  setTalkDetection: null;
  setToneDetection: null;
  setInbandDtmfDetection: null;
  setLegRtpTimeout: null;
  getTickStats: WorkerTickStats;
  close: null;
}

export interface WorkerRequest {
  kind: 'request';
  id: number;
  command: WorkerCommand;
}

/**
 * The requests the main thread made during one turn of its event loop, sent together: every
 * message wakes the worker thread, and waking a sleeping thread was the largest share of
 * `postMessage`'s cost on the main thread under load.
 */
export interface WorkerRequestBatch {
  kind: 'batch';
  requests: WorkerRequest[];
}

export type MainToWorker = WorkerRequest | WorkerRequestBatch;

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

/**
 * What a worker said during one callback, sent together (worker/worker-outbox.ts): every message
 * the main thread receives is a callback into its JavaScript, and a call's requests are answered
 * in one turn of the worker.
 */
export interface WorkerMessageBatch {
  kind: 'batch';
  messages: WorkerToMain[];
}

/** One message as it crosses from a worker to the main thread. */
export type WorkerPost = WorkerToMain | WorkerMessageBatch;

/** `workerData` given to each worker thread. */
export interface WorkerInit {
  workerIndex: number;
  /** IPv4 legs on the native socket hub when its addon is built (rtp.conf `native_sockets`). */
  nativeSockets: boolean;
}
