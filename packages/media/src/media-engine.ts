// Over 500 lines: one proxy class whose every request and worker death updates the same leg, bridge and recording tables together; ports, worker channels and request checks are their own modules under engine/.
/**
 * The media engine as the rest of the server sees it: a main-thread proxy over a pool of media
 * worker threads. It allocates RTP ports, places each leg on a worker, forwards calls as protocol
 * requests, fans worker notifications out to listeners, and replaces a worker that dies.
 * No RTP packet or audio frame ever passes through this thread.
 *
 * Bridges: each bridge has a home worker that mixes for it. A member leg on another worker is
 * linked to the home by a MessageChannel created here, one port transferred to each worker
 * (bridge/bridge-link.ts); frames then flow worker to worker. An empty, idle bridge moves its home
 * to the worker of the first leg that joins it, so most bridges never need a link.
 *
 *     idle ──start()──► starting ──all workers ready──► running ──close()──► closing ──► closed
 *                          └──a worker failed to start──────────────────────────────────┘
 */
import { randomUUID } from 'node:crypto';
import { MessageChannel } from 'node:worker_threads';
import { PortAllocator } from './engine/port-allocator.js';
import {
  validateBridgeKind,
  validateBridgeVideo,
  validateDtmf,
  validateGain,
  validateJoinOptions,
  validateRtpTimeout,
  validateRecording,
  validateSegments,
  validateSnoopDirection,
  validateSpyGain,
  validateTalkDetection,
  validateToneDetection,
  validateChannelFormat,
  validateTarget,
} from './engine/validate-media.js';
import { nativeLegSocketsAvailable } from './rtp/native-leg-socket.js';
import { WorkerChannel } from './engine/worker-channel.js';
import {
  EngineNotRunningError,
  InvalidArgumentError,
  MediaError,
  PortsExhaustedError,
  WorkerDiedError,
  bridgeNotFound,
  legNotFound,
  recordingNotFound,
} from './errors.js';
import { type MediaLogger, scopedLogger, silentMediaLogger } from './logger.js';
import type { WorkerCommand, WorkerNotification } from './protocol.js';
import type {
  BridgeVideoRequest,
  CreateBridgeRequest,
  CreateLegRequest,
  CreateSnoopRequest,
  JoinBridgeOptions,
  LegCounters,
  LegGain,
  LegRemote,
  LegRtpStatistics,
  MediaEngine as MediaEngineControl,
  MediaLegInfo,
  MediaNotification,
  MediaNotificationListener,
  MediaTarget,
  PlayFileRequest,
  PlayToneRequest,
  StartRecordingRequest,
  TalkDetectionOptions,
  ToneDetectionOptions,
  WorkerTickStats,
} from '@switchboard/media-control';
import { validateIpAddress, validateNonEmpty, validateOffsetMs, validateRemote } from './validate.js';

export interface MediaEngineOptions {
  /** First port of the RTP range (rtp.conf `rtpstart`); only even ports are used. */
  rtpStart: number;
  /** Last port of the RTP range (rtp.conf `rtpend`). */
  rtpEnd: number;
  /** Number of media worker threads, at least one. */
  workers: number;
  logger?: MediaLogger;
  /** How long a worker may take to start (default 10 s). */
  workerReadyTimeoutMs?: number;
  /** Delay before retrying a worker that failed to restart (default 1 s). */
  workerRestartDelayMs?: number;
  /**
   * IPv4 legs on the native socket hub (rtp.conf `native_sockets`, default true); dgram when false
   * or when the addon was not built at install.
   */
  nativeSockets?: boolean;
}

type EngineState = 'idle' | 'starting' | 'running' | 'closing' | 'closed';

interface LegRecord {
  legId: string;
  slot: number;
  /** The worker instance that owns the leg: after a restart, the slot holds a different one. */
  channel: WorkerChannel;
  port: number;
  /** The video RTP port, -1 when the leg has no video. */
  videoPort: number;
  /** The worker confirmed the leg (its socket is bound). */
  created: boolean;
  /** Settles when the worker has bound the leg's socket, or for good could not (then the leg is gone). */
  bound: Promise<void>;
  /** Commands given before the socket was bound, still waiting for it (#bound). */
  waiting: number;
  /** The playback last accepted on this leg and not yet reported finished. */
  playbackId: string | null;
  destroying: Promise<void> | null;
  /** A snoop leg has no socket (and no port). */
  snoop: boolean;
  /** The bridge the leg is a member of. */
  bridgeId: string | null;
  /** The audio codec of the last remote set (consoles show it); undefined before any. */
  codec?: string;
}

interface BridgeRecord {
  bridgeId: string;
  kind: 'mixing' | 'holding';
  /** The home worker, which mixes for the bridge. */
  channel: WorkerChannel;
  members: Set<string>;
  /** The bridge playback last accepted and not yet reported finished. */
  playbackId: string | null;
  /** Live recordings of the bridge. */
  recordings: number;
  /** Membership changes run one at a time: a home move must not interleave with another join. */
  queue: Promise<void>;
  /** How the bridge forwards video (absent: the worker's default for the kind). */
  video: BridgeVideoRequest | null;
}

interface RecordingRecord {
  recordingId: string;
  channel: WorkerChannel;
  /** The bridge recorded, or null for a leg. */
  bridgeId: string | null;
}

/** A leg not yet confirmed by its worker: no port, no playback, in no bridge. */
function newLegRecord(legId: string, slot: number, channel: WorkerChannel, snoop: boolean): LegRecord {
  return {
    legId,
    slot,
    channel,
    port: -1,
    videoPort: -1,
    created: false,
    bound: Promise.resolve(),
    waiting: 0,
    playbackId: null,
    destroying: null,
    snoop,
    bridgeId: null,
  };
}

const WORKER_SCRIPT = new URL('./worker.js', import.meta.url);
const CLOSE_TIMEOUT_MS = 2000;

let channelOf: (engine: MediaEngine, workerIndex: number) => WorkerChannel | undefined;

/** Implements the control surface declared once in @switchboard/media-control, which core re-exports as its seam. */
export class MediaEngine implements MediaEngineControl {
  readonly #log: MediaLogger;
  readonly #baseLogger: MediaLogger;
  readonly #ports: PortAllocator;
  readonly #workerCount: number;
  readonly #nativeSockets: boolean;
  readonly #readyTimeoutMs: number;
  readonly #restartDelayMs: number;
  #state: EngineState = 'idle';
  #slots: WorkerChannel[] = [];
  /** Legs per slot, for least-loaded placement. */
  #load: number[] = [];
  #nextSlot = 0;
  readonly #legs = new Map<string, LegRecord>();
  readonly #bridges = new Map<string, BridgeRecord>();
  readonly #recordings = new Map<string, RecordingRecord>();
  readonly #listeners = new Set<MediaNotificationListener>();
  readonly #restartTimers = new Set<NodeJS.Timeout>();
  #closing: Promise<void> | null = null;

  static {
    channelOf = (engine, workerIndex) => engine.#slots[workerIndex];
  }

  constructor(options: MediaEngineOptions) {
    if (!Number.isInteger(options.workers) || options.workers < 1) {
      throw new RangeError(`media workers must be an integer >= 1, got ${options.workers}`);
    }
    this.#ports = new PortAllocator(options.rtpStart, options.rtpEnd);
    this.#workerCount = options.workers;
    this.#nativeSockets = (options.nativeSockets ?? true) && nativeLegSocketsAvailable();
    this.#baseLogger = options.logger ?? silentMediaLogger;
    this.#log = scopedLogger(this.#baseLogger, { module: 'switchboard:media:engine' });
    this.#readyTimeoutMs = options.workerReadyTimeoutMs ?? 10_000;
    this.#restartDelayMs = options.workerRestartDelayMs ?? 1000;
  }

  // ── lifecycle ────────────────────────────────────────────────────────────────────────────

  /** Spawns the workers and resolves when every one has completed its ready handshake. */
  async start(): Promise<void> {
    if (this.#state !== 'idle') throw new EngineNotRunningError(`media engine cannot start: it is ${this.#state}`);
    this.#state = 'starting';
    this.#slots = [];
    this.#load = [];
    for (let slot = 0; slot < this.#workerCount; slot += 1) {
      this.#slots.push(this.#newChannel(slot));
      this.#load.push(0);
    }
    try {
      await Promise.all(this.#slots.map((channel) => channel.start()));
    } catch (error) {
      await Promise.all(this.#slots.map((channel) => channel.close()));
      this.#state = 'closed';
      throw error;
    }
    if (this.#state !== 'starting') return; // closed while starting
    this.#state = 'running';
    this.#log.info(
      {
        workers: this.#workerCount,
        rtpPorts: `${this.#ports.first}-${this.#ports.last}`,
        rtpSockets: this.#nativeSockets ? 'native' : 'dgram',
      },
      'media engine started',
    );
  }

  /** Destroys every leg (playbacks finish `stopped`), stops the workers, rejects pending requests. */
  close(): Promise<void> {
    if (this.#closing !== null) return this.#closing;
    const previous = this.#state;
    this.#state = 'closing';
    this.#closing = (async () => {
      for (const timer of this.#restartTimers) clearTimeout(timer);
      this.#restartTimers.clear();
      if (previous !== 'idle') await Promise.all(this.#slots.map((channel) => channel.close()));
      for (const record of [...this.#legs.values()]) this.#forget(record);
      this.#state = 'closed';
      this.#listeners.clear();
      if (previous !== 'idle') this.#log.info({}, 'media engine closed');
    })();
    return this.#closing;
  }

  // ── the MediaEngine surface ──────────────────────────────────────────────────────────────

  /**
   * Creates a leg and binds its socket. With the caller's `legId` the leg can be given commands (and be
   * destroyed) before this resolves: they wait for the socket and then go in the order they were given.
   */
  createLeg(request: CreateLegRequest): Promise<MediaLegInfo> {
    let record: LegRecord;
    let bindAddress: string;
    let remote: LegRemote | undefined;
    try {
      this.#assertRunning();
      bindAddress = validateIpAddress('bindAddress', request.bindAddress);
      remote = request.remote === undefined ? undefined : validateRemote(request.remote);
      const legId = request.legId === undefined ? randomUUID() : validateNonEmpty('legId', request.legId);
      if (this.#legs.has(legId)) throw new InvalidArgumentError(`media leg ${legId} already exists`);
      const slot = this.#slotNear(request.near) ?? this.#pickSlot();
      record = newLegRecord(legId, slot, this.#slots[slot], false);
    } catch (error) {
      return Promise.reject(error);
    }
    this.#legs.set(record.legId, record);
    this.#load[record.slot] += 1;
    const binding = this.#bindLeg(record, bindAddress, remote, request.video === true);
    record.bound = binding.then(() => undefined);
    // The failure reaches createLeg's caller; commands waiting for the socket are told the leg is gone.
    record.bound.catch(() => undefined);
    return binding;
  }

  /** Binds the leg's socket on a free port, skipping ports another program holds. */
  async #bindLeg(record: LegRecord, bindAddress: string, remote: LegRemote | undefined, video: boolean): Promise<MediaLegInfo> {
    const busy = new Set<number>(); // ports another program holds
    try {
      for (;;) {
        const port = this.#ports.acquire(busy);
        // A video leg takes a second RTP/RTCP pair from the same range.
        const videoPort = video && port !== null ? this.#ports.acquire(busy) : null;
        if (port === null || (video && videoPort === null)) {
          if (port !== null) this.#ports.release(port);
          throw new PortsExhaustedError(
            `no free RTP port in ${this.#ports.first}-${this.#ports.last}: ` +
              `${this.#ports.inUse} held by legs, ${busy.size} bound by other programs`,
          );
        }
        record.port = port;
        record.videoPort = videoPort ?? -1;
        try {
          const bound = await record.channel.request({
            type: 'createLeg',
            legId: record.legId,
            bindAddress,
            port,
            ...(videoPort !== null ? { videoPort } : {}),
            ...(remote !== undefined ? { remote } : {}),
          });
          record.created = true;
          if (remote !== undefined) record.codec = remote.codec.name;
          const info: MediaLegInfo = { legId: record.legId, localAddress: bound.localAddress, localPort: bound.localPort };
          if (bound.videoPort !== undefined) info.videoPort = bound.videoPort;
          return info;
        } catch (error) {
          this.#ports.release(port);
          if (videoPort !== null) this.#ports.release(videoPort);
          record.port = -1;
          record.videoPort = -1;
          if (error instanceof MediaError && error.code === 'port_in_use') {
            // Which of the two was taken is not known: skip both.
            busy.add(port);
            if (videoPort !== null) busy.add(videoPort);
            continue;
          }
          throw error;
        }
      }
    } catch (error) {
      this.#forget(record);
      throw error;
    }
  }

  async setLegRemote(legId: string, remote: LegRemote): Promise<void> {
    const record = this.#leg(legId);
    await this.#bound(record);
    await record.channel.request({ type: 'setLegRemote', legId, remote: validateRemote(remote) });
    record.codec = remote.codec.name;
  }

  /** The audio codec a leg sends and receives (after its remote was set), if known. */
  legCodec(legId: string): string | undefined {
    return this.#legs.get(legId)?.codec;
  }

  /**
   * Stops the leg's playback (finished `stopped`) and closes its socket. Destroying a leg twice
   * concurrently shares one request; a leg lost with its worker is already gone, so that is not an
   * error either.
   */
  destroyLeg(legId: string): Promise<void> {
    let record: LegRecord;
    try {
      record = this.#leg(legId);
    } catch (error) {
      return Promise.reject(error);
    }
    if (record.destroying !== null) return record.destroying;
    record.destroying = (async () => {
      try {
        await this.#bound(record);
        await this.#leaveCurrentBridge(record);
        await record.channel.request({ type: 'destroyLeg', legId });
      } catch (error) {
        const gone = error instanceof MediaError && (error.code === 'worker_died' || error.code === 'worker_closed');
        if (!gone) throw error;
      } finally {
        this.#forget(record);
      }
    })();
    return record.destroying;
  }

  /**
   * Starts playing a file on the leg, replacing its current playback. Resolves when the worker has
   * accepted it; problems with the file itself (missing, unsupported) and a leg without a remote
   * are reported as `playbackFinished` with reason `failed`, after this resolves.
   */
  async playFile(legId: string, request: PlayFileRequest): Promise<void> {
    const record = this.#leg(legId);
    const playbackId = validateNonEmpty('playbackId', request.playbackId);
    const file = validateNonEmpty('file', request.file);
    const offsetMs = validateOffsetMs(request.offsetMs);
    const loop = request.loop === true;
    if (request.announcerFormat !== undefined) throw new InvalidArgumentError('announcerFormat applies to bridge playbacks only');
    await this.#bound(record);
    await record.channel.request({ type: 'playFile', target: { kind: 'leg', legId }, playbackId, file, offsetMs, loop });
    record.playbackId = playbackId;
  }

  /** Stops the playback if it is still the leg's current one (finished `stopped`); otherwise does nothing. */
  async stopPlayback(legId: string, playbackId: string): Promise<void> {
    const record = this.#leg(legId);
    await this.#bound(record);
    await record.channel.request({ type: 'stopPlayback', target: { kind: 'leg', legId }, playbackId });
  }

  /**
   * Plays a tone pattern on a leg (replacing its playback) or to every member of a bridge. A
   * pattern that does not repeat finishes `complete` at its end; a repeating one only when stopped.
   */
  async playTone(target: MediaTarget, request: PlayToneRequest): Promise<void> {
    const checked = validateTarget(target);
    const playbackId = validateNonEmpty('playbackId', request.playbackId);
    const segments = validateSegments(request.segments);
    const command: Extract<WorkerCommand, { type: 'playTone' }> = {
      type: 'playTone',
      target: checked,
      playbackId,
      segments,
      repeat: request.repeat === true,
    };
    if (request.announcerFormat !== undefined) {
      if (checked.kind === 'leg') throw new InvalidArgumentError('announcerFormat applies to bridge playbacks only');
      command.announcerFormat = validateChannelFormat('announcerFormat', request.announcerFormat);
    }
    if (checked.kind === 'leg') {
      const record = this.#leg(checked.legId);
      await this.#bound(record);
      await record.channel.request(command);
      record.playbackId = playbackId;
    } else {
      const bridge = this.#bridge(checked.bridgeId);
      await bridge.channel.request(command);
      bridge.playbackId = playbackId;
    }
  }

  /** Plays a file into a bridge: every member hears it mixed with the others; nobody is muted. */
  async playFileOnBridge(bridgeId: string, request: PlayFileRequest): Promise<void> {
    const bridge = this.#bridge(bridgeId);
    const playbackId = validateNonEmpty('playbackId', request.playbackId);
    const file = validateNonEmpty('file', request.file);
    const offsetMs = validateOffsetMs(request.offsetMs);
    const command: Extract<WorkerCommand, { type: 'playFile' }> = {
      type: 'playFile',
      target: { kind: 'bridge', bridgeId },
      playbackId,
      file,
      offsetMs,
      loop: request.loop === true,
    };
    if (request.announcerFormat !== undefined) command.announcerFormat = validateChannelFormat('announcerFormat', request.announcerFormat);
    await bridge.channel.request(command);
    bridge.playbackId = playbackId;
  }

  async stopBridgePlayback(bridgeId: string, playbackId: string): Promise<void> {
    const bridge = this.#bridge(bridgeId);
    await bridge.channel.request({ type: 'stopPlayback', target: { kind: 'bridge', bridgeId }, playbackId });
  }

  // ── bridges ─────────────────────────────────────────────────────────────────────────────

  async createBridge(request: CreateBridgeRequest): Promise<void> {
    this.#assertRunning();
    const bridgeId = validateNonEmpty('bridgeId', request.bridgeId);
    const kind = validateBridgeKind(request.kind);
    if (this.#bridges.has(bridgeId)) throw new InvalidArgumentError(`media bridge ${bridgeId} already exists`);
    const channel = this.#slots[this.#pickSlot()];
    const record: BridgeRecord = {
      bridgeId,
      kind,
      channel,
      members: new Set(),
      playbackId: null,
      recordings: 0,
      queue: Promise.resolve(),
      video: null,
    };
    this.#bridges.set(bridgeId, record);
    try {
      await channel.request({ type: 'createBridge', bridgeId, kind });
    } catch (error) {
      if (this.#bridges.get(bridgeId) === record) this.#bridges.delete(bridgeId);
      throw error;
    }
  }

  /** Removes every leg from the bridge (they stay alive), stops its media and recordings, frees it. */
  async destroyBridge(bridgeId: string): Promise<void> {
    const bridge = this.#bridge(bridgeId);
    this.#bridges.delete(bridgeId);
    await this.#serialized(bridge, () => this.#destroyBridge(bridge));
  }

  async #destroyBridge(bridge: BridgeRecord): Promise<void> {
    const bridgeId = bridge.bridgeId;
    const members = [...bridge.members].map((legId) => this.#legs.get(legId)).filter((r): r is LegRecord => r !== undefined);
    for (const record of members) record.bridgeId = null;
    await this.#tolerateGone(bridge.channel.request({ type: 'destroyBridge', bridgeId }));
    await Promise.all(
      members
        .filter((record) => record.channel !== bridge.channel)
        .map((record) => this.#tolerateGone(record.channel.request({ type: 'unlinkLeg', legId: record.legId }))),
    );
  }

  /**
   * Adds a leg to a bridge (leaving the bridge it was in). A leg on another worker than the
   * bridge's home is linked to it by a MessageChannel between the two workers.
   */
  async joinBridge(bridgeId: string, legId: string, options?: JoinBridgeOptions): Promise<void> {
    const bridge = this.#bridge(bridgeId);
    this.#leg(legId);
    const checked = validateJoinOptions(options);
    await this.#serialized(bridge, () => this.#join(bridge, legId, checked));
  }

  async #join(bridge: BridgeRecord, legId: string, checked: JoinBridgeOptions): Promise<void> {
    const bridgeId = bridge.bridgeId;
    if (this.#bridges.get(bridgeId) !== bridge) throw bridgeNotFound(bridgeId);
    const record = this.#leg(legId);
    await this.#bound(record);
    if (record.bridgeId !== null && record.bridgeId !== bridgeId) await this.#leaveCurrentBridge(record);
    if (bridge.members.size === 0 && bridge.playbackId === null && bridge.recordings === 0 && bridge.channel !== record.channel) {
      await this.#moveHome(bridge, record.channel);
    }
    if (record.bridgeId === bridgeId && record.channel !== bridge.channel) {
      // Re-joining over a link: the new link replaces the old one on both sides.
      await this.#tolerateGone(record.channel.request({ type: 'unlinkLeg', legId }));
    }
    if (record.channel === bridge.channel) {
      await bridge.channel.request({ type: 'joinBridge', bridgeId, legId, options: checked });
    } else {
      const { port1, port2 } = new MessageChannel();
      await bridge.channel.request({ type: 'joinBridge', bridgeId, legId, options: checked, port: port1 }, [port1]);
      try {
        await record.channel.request({ type: 'linkLeg', bridgeId, legId, port: port2 }, [port2]);
      } catch (error) {
        await this.#tolerateGone(bridge.channel.request({ type: 'leaveBridge', bridgeId, legId }));
        throw error;
      }
    }
    record.bridgeId = bridgeId;
    bridge.members.add(legId);
  }

  async leaveBridge(bridgeId: string, legId: string): Promise<void> {
    const bridge = this.#bridge(bridgeId);
    await this.#serialized(bridge, async () => {
      const record = this.#leg(legId);
      if (!bridge.members.has(legId)) throw legNotFound(`${legId} in bridge ${bridgeId}`);
      await this.#bound(record);
      await this.#leaveCurrentBridge(record);
    });
  }

  /** Runs `work` after the bridge's earlier membership changes have settled. */
  #serialized<T>(bridge: BridgeRecord, work: () => Promise<T>): Promise<T> {
    const run = bridge.queue.then(work, work);
    bridge.queue = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  /**
   * How the bridge forwards its members' video: `sfu`, `single` (with `sourceLegId`), `talker`
   * or `none`. A holding bridge never carries video.
   */
  async setBridgeVideo(bridgeId: string, request: BridgeVideoRequest): Promise<void> {
    const bridge = this.#bridge(bridgeId);
    const video = validateBridgeVideo(request);
    await this.#serialized(bridge, async () => {
      bridge.video = video;
      await bridge.channel.request({ type: 'setBridgeVideo', bridgeId, video });
    });
  }

  async setBridgeParticipant(bridgeId: string, legId: string, options: JoinBridgeOptions): Promise<void> {
    const bridge = this.#bridge(bridgeId);
    if (!bridge.members.has(legId)) throw legNotFound(`${legId} in bridge ${bridgeId}`);
    await bridge.channel.request({ type: 'setBridgeParticipant', bridgeId, legId, options: validateJoinOptions(options) });
  }

  // ── recordings ──────────────────────────────────────────────────────────────────────────

  /**
   * Records a leg (what its phone sends) or a bridge (its mix). Resolves once the worker has
   * accepted it; a format or file problem finishes it `failed` right after.
   */
  async startRecording(target: MediaTarget, request: StartRecordingRequest): Promise<void> {
    const checked = validateTarget(target);
    const recording = validateRecording(request);
    if (this.#recordings.has(recording.recordingId)) throw new InvalidArgumentError(`recording ${recording.recordingId} is already live`);
    // A bridge is recorded on its home worker, a leg on its own.
    let bridge: BridgeRecord | null = null;
    let channel: WorkerChannel;
    if (checked.kind === 'bridge') {
      bridge = this.#bridge(checked.bridgeId);
      channel = bridge.channel;
    } else {
      const leg = this.#leg(checked.legId);
      await this.#bound(leg);
      channel = leg.channel;
    }
    const record: RecordingRecord = { recordingId: recording.recordingId, channel, bridgeId: bridge?.bridgeId ?? null };
    this.#recordings.set(recording.recordingId, record);
    if (bridge !== null) bridge.recordings += 1;
    try {
      await channel.request({ type: 'startRecording', target: checked, request: recording });
    } catch (error) {
      this.#forgetRecording(recording.recordingId);
      throw error;
    }
  }

  /** Ends a recording: its file is completed, or deleted with `discard` (`canceled`). */
  async stopRecording(recordingId: string, options: { discard: boolean }): Promise<void> {
    const record = this.#recording(recordingId);
    await record.channel.request({ type: 'stopRecording', recordingId, discard: options.discard === true });
  }

  async setRecordingState(recordingId: string, state: { paused?: boolean; muted?: boolean }): Promise<void> {
    const record = this.#recording(recordingId);
    const command: { type: 'setRecordingState'; recordingId: string; paused?: boolean; muted?: boolean } = {
      type: 'setRecordingState',
      recordingId,
    };
    if (state.paused !== undefined) command.paused = state.paused === true;
    if (state.muted !== undefined) command.muted = state.muted === true;
    await record.channel.request(command);
  }

  // ── leg features ────────────────────────────────────────────────────────────────────────

  /** Sends digits (RFC 4733 events, or in-band tones without telephone-event); resolves after the last. */
  async sendDtmf(legId: string, request: { digits: string; durationMs: number; betweenMs: number }): Promise<void> {
    const record = this.#leg(legId);
    await this.#bound(record);
    await record.channel.request({ type: 'sendDtmf', legId, ...validateDtmf(request) });
  }

  async setLegMute(legId: string, mute: { inbound: boolean; outbound: boolean }): Promise<void> {
    const record = this.#leg(legId);
    await this.#bound(record);
    await record.channel.request({ type: 'setLegMute', legId, inbound: mute.inbound === true, outbound: mute.outbound === true });
  }

  async setLegGain(legId: string, gain: LegGain): Promise<void> {
    const record = this.#leg(legId);
    await this.#bound(record);
    await record.channel.request({
      type: 'setLegGain',
      legId,
      inbound: validateGain('inbound', gain.inbound),
      outbound: validateGain('outbound', gain.outbound),
    });
  }

  async setTalkDetection(legId: string, options: TalkDetectionOptions | null): Promise<void> {
    const record = this.#leg(legId);
    await this.#bound(record);
    await record.channel.request({ type: 'setTalkDetection', legId, options: validateTalkDetection(options) });
  }

  async setToneDetection(legId: string, options: ToneDetectionOptions | null): Promise<void> {
    const record = this.#leg(legId);
    await this.#bound(record);
    await record.channel.request({ type: 'setToneDetection', legId, options: validateToneDetection(options) });
  }

  async setInbandDtmfDetection(legId: string, enabled: boolean): Promise<void> {
    const record = this.#leg(legId);
    await this.#bound(record);
    await record.channel.request({ type: 'setInbandDtmfDetection', legId, enabled: enabled === true });
  }

  /** Arms (seconds > 0) or disarms (0) the leg's RTP timeout; `legRtpTimeout` follows once it runs out. */
  async setLegRtpTimeout(legId: string, seconds: number): Promise<void> {
    const record = this.#leg(legId);
    await this.#bound(record);
    await record.channel.request({ type: 'setLegRtpTimeout', legId, seconds: validateRtpTimeout(seconds) });
  }

  /** A leg without a socket on the source's worker that hears (spy) and/or whispers into the source. */
  async createSnoopLeg(request: CreateSnoopRequest): Promise<{ legId: string }> {
    const source = this.#leg(request.sourceLegId);
    await this.#bound(source);
    const spy = validateSnoopDirection('spy', request.spy);
    const whisper = validateSnoopDirection('whisper', request.whisper);
    const spyGain = request.spyGain === undefined ? undefined : validateSpyGain(request.spyGain);
    const record = newLegRecord(randomUUID(), source.slot, source.channel, true);
    this.#legs.set(record.legId, record);
    this.#load[record.slot] += 1;
    try {
      await record.channel.request({
        type: 'createSnoopLeg',
        legId: record.legId,
        sourceLegId: source.legId,
        spy,
        whisper,
        ...(spyGain === undefined ? {} : { spyGain }),
      });
    } catch (error) {
      this.#forget(record);
      throw error;
    }
    record.created = true;
    return { legId: record.legId };
  }

  /** Every live leg with the worker that owns it (per-worker RTP metrics). */
  legsByWorker(): { legId: string; workerIndex: number }[] {
    return [...this.#legs.values()].map((record) => ({ legId: record.legId, workerIndex: record.slot }));
  }

  async getRtpStatistics(legId: string): Promise<LegRtpStatistics> {
    const record = this.#leg(legId);
    await this.#bound(record);
    return record.channel.request({ type: 'getRtpStatistics', legId });
  }

  async getCounters(legId: string): Promise<LegCounters> {
    const record = this.#leg(legId);
    await this.#bound(record);
    return record.channel.request({ type: 'getCounters', legId });
  }

  /**
   * Each worker's media tick statistics (work time per 20 ms frame, overruns) since the last
   * reset, in worker order; `reset` starts a new window on every worker.
   */
  async getWorkerStats(options: { reset?: boolean } = {}): Promise<WorkerTickStats[]> {
    this.#assertRunning();
    const reset = options.reset === true;
    return Promise.all(this.#slots.map((channel) => channel.request({ type: 'getTickStats', reset })));
  }

  onNotification(listener: MediaNotificationListener): () => void {
    this.#listeners.add(listener);
    return () => {
      this.#listeners.delete(listener);
    };
  }

  // ── internals ────────────────────────────────────────────────────────────────────────────

  #assertRunning(): void {
    if (this.#state !== 'running') throw new EngineNotRunningError(`media engine is ${this.#state}`);
  }

  /** A leg of this engine, perhaps still being bound: its commands first wait for #bound. */
  #leg(legId: string): LegRecord {
    this.#assertRunning();
    const record = this.#legs.get(legId);
    if (record === undefined) throw legNotFound(legId);
    return record;
  }

  /**
   * Waits, when the leg's socket is not bound yet, until it is (rejects with `leg_not_found` when it could
   * not be). Every command for a leg awaits this right before its request, so the waiting ones go to the
   * worker in the order they were given and ahead of any given later; a bound leg does not wait.
   */
  #bound(record: LegRecord): Promise<void> | undefined {
    if (record.created && record.waiting === 0) return undefined;
    record.waiting += 1;
    return record.bound.then(
      () => {
        record.waiting -= 1;
      },
      () => {
        record.waiting -= 1;
        throw legNotFound(record.legId);
      },
    );
  }

  #bridge(bridgeId: string): BridgeRecord {
    this.#assertRunning();
    const record = this.#bridges.get(bridgeId);
    if (record === undefined) throw bridgeNotFound(bridgeId);
    return record;
  }

  #recording(recordingId: string): RecordingRecord {
    this.#assertRunning();
    const record = this.#recordings.get(recordingId);
    if (record === undefined) throw recordingNotFound(recordingId);
    return record;
  }

  #forgetRecording(recordingId: string): void {
    const record = this.#recordings.get(recordingId);
    if (record === undefined) return;
    this.#recordings.delete(recordingId);
    const bridge = record.bridgeId === null ? undefined : this.#bridges.get(record.bridgeId);
    if (bridge !== undefined && bridge.recordings > 0) bridge.recordings -= 1;
  }

  /** A request whose worker has gone away (died or closed) has nothing left to undo. */
  async #tolerateGone(request: Promise<unknown>): Promise<void> {
    try {
      await request;
    } catch (error) {
      const gone =
        error instanceof MediaError &&
        (error.code === 'worker_died' ||
          error.code === 'worker_closed' ||
          error.code === 'bridge_not_found' ||
          error.code === 'leg_not_found');
      if (!gone) throw error;
    }
  }

  /** Takes a leg out of its bridge on both workers involved. */
  async #leaveCurrentBridge(record: LegRecord): Promise<void> {
    const bridgeId = record.bridgeId;
    if (bridgeId === null) return;
    record.bridgeId = null;
    const bridge = this.#bridges.get(bridgeId);
    if (bridge === undefined) return;
    bridge.members.delete(record.legId);
    await this.#tolerateGone(bridge.channel.request({ type: 'leaveBridge', bridgeId, legId: record.legId }));
    if (record.channel !== bridge.channel) await this.#tolerateGone(record.channel.request({ type: 'unlinkLeg', legId: record.legId }));
  }

  /** Re-creates an empty, idle bridge on another worker, so that its first member needs no link. */
  async #moveHome(bridge: BridgeRecord, channel: WorkerChannel): Promise<void> {
    const old = bridge.channel;
    await channel.request({ type: 'createBridge', bridgeId: bridge.bridgeId, kind: bridge.kind });
    if (bridge.video !== null) await channel.request({ type: 'setBridgeVideo', bridgeId: bridge.bridgeId, video: bridge.video });
    bridge.channel = channel;
    await this.#tolerateGone(old.request({ type: 'destroyBridge', bridgeId: bridge.bridgeId }));
  }

  /** The worker of leg `near` while that leg and its worker live (CreateLegRequest.near). */
  #slotNear(near: string | undefined): number | undefined {
    if (near === undefined) return undefined;
    const record = this.#legs.get(near);
    if (record === undefined || record.channel !== this.#slots[record.slot]) return undefined;
    const state = this.#slots[record.slot].state;
    return state === 'ready' || state === 'starting' ? record.slot : undefined;
  }

  /** The least-loaded live worker; ties go round-robin so equal workers take turns. */
  #pickSlot(): number {
    let best = -1;
    for (let step = 0; step < this.#slots.length; step += 1) {
      const slot = (this.#nextSlot + step) % this.#slots.length;
      const state = this.#slots[slot].state;
      if (state !== 'ready' && state !== 'starting') continue;
      if (best === -1 || this.#load[slot] < this.#load[best]) best = slot;
    }
    if (best === -1) throw new WorkerDiedError('no media worker is running (restarting after failures)');
    this.#nextSlot = (best + 1) % this.#slots.length;
    return best;
  }

  /** Drops a leg's record and returns its port; safe to call more than once. */
  #forget(record: LegRecord): void {
    if (this.#legs.get(record.legId) !== record) return;
    this.#legs.delete(record.legId);
    this.#load[record.slot] -= 1;
    if (record.port !== -1) this.#ports.release(record.port);
    if (record.videoPort !== -1) this.#ports.release(record.videoPort);
    record.port = -1;
    record.videoPort = -1;
  }

  #newChannel(slot: number): WorkerChannel {
    const channel: WorkerChannel = new WorkerChannel({
      index: slot,
      script: WORKER_SCRIPT,
      logger: this.#baseLogger,
      readyTimeoutMs: this.#readyTimeoutMs,
      nativeSockets: this.#nativeSockets,
      closeTimeoutMs: CLOSE_TIMEOUT_MS,
      onNotification: (notification) => this.#fromWorker(notification),
      onDied: (error) => this.#workerDied(channel, error),
    });
    return channel;
  }

  #fromWorker(notification: WorkerNotification): void {
    if (notification.type === 'playbackFinished') {
      if (notification.bridgeId !== undefined) {
        const bridge = this.#bridges.get(notification.bridgeId);
        if (bridge?.playbackId === notification.playbackId) bridge.playbackId = null;
      } else {
        const record = this.#legs.get(notification.legId);
        if (record?.playbackId === notification.playbackId) record.playbackId = null;
      }
    }
    if (notification.type === 'recordingFinished') this.#forgetRecording(notification.recordingId);
    this.#emit(notification);
  }

  #emit(notification: MediaNotification): void {
    for (const listener of [...this.#listeners]) {
      try {
        listener(notification);
      } catch (error) {
        // One listener's exception must not keep the notification from the others.
        this.#log.error(
          { err: error instanceof Error ? error.stack : String(error), notification: notification.type },
          'media notification listener threw',
        );
      }
    }
  }

  #workerDied(channel: WorkerChannel, error: string): void {
    const slot = channel.index;
    if (this.#slots[slot] !== channel || this.#state === 'closing' || this.#state === 'closed') return;
    const lost = [...this.#legs.values()].filter((record) => record.channel === channel && record.created);
    for (const record of lost) this.#forget(record);
    this.#log.error({ worker: slot, legs: lost.length, err: error }, 'media worker died; restarting it');
    // Playbacks on the lost legs will never report their end; report it for them.
    for (const record of lost) {
      if (record.playbackId === null) continue;
      this.#emit({
        type: 'playbackFinished',
        legId: record.legId,
        playbackId: record.playbackId,
        reason: 'failed',
        error: `media worker ${slot} died`,
      });
    }
    const lostBridges = this.#endWorkerMedia(channel, lost, slot);
    this.#emit({ type: 'workerDied', workerIndex: slot, legIds: lost.map((record) => record.legId), bridgeIds: lostBridges, error });
    this.#restart(slot);
  }

  /**
   * What a dead worker took with it besides legs: the bridges homed there (their members on other
   * workers are unlinked and stay alive), its recordings (finished `failed`), and memberships of
   * its legs in bridges elsewhere.
   */
  #endWorkerMedia(channel: WorkerChannel, lost: LegRecord[], slot: number): string[] {
    const error = `media worker ${slot} died`;
    const lostBridges: string[] = [];
    for (const record of lost) {
      const bridge = record.bridgeId === null ? undefined : this.#bridges.get(record.bridgeId);
      if (bridge === undefined || bridge.channel === channel) continue;
      bridge.members.delete(record.legId);
      void this.#tolerateGone(bridge.channel.request({ type: 'leaveBridge', bridgeId: bridge.bridgeId, legId: record.legId })).catch(
        () => {},
      );
    }
    for (const bridge of [...this.#bridges.values()]) {
      if (bridge.channel !== channel) continue;
      this.#bridges.delete(bridge.bridgeId);
      lostBridges.push(bridge.bridgeId);
      for (const legId of bridge.members) {
        const member = this.#legs.get(legId);
        if (member === undefined) continue;
        member.bridgeId = null;
        void this.#tolerateGone(member.channel.request({ type: 'unlinkLeg', legId })).catch(() => {});
      }
      if (bridge.playbackId !== null) {
        this.#emit({
          type: 'playbackFinished',
          legId: '',
          bridgeId: bridge.bridgeId,
          playbackId: bridge.playbackId,
          reason: 'failed',
          error,
        });
      }
    }
    for (const record of [...this.#recordings.values()]) {
      if (record.channel !== channel) continue;
      this.#forgetRecording(record.recordingId);
      this.#emit({ type: 'recordingFinished', recordingId: record.recordingId, reason: 'failed', durationMs: 0, error });
    }
    return lostBridges;
  }

  #restart(slot: number): void {
    if (this.#state !== 'running') return;
    const fresh = this.#newChannel(slot);
    this.#slots[slot] = fresh;
    fresh.start().then(
      () => this.#log.info({ worker: slot }, 'media worker restarted'),
      (error: unknown) => {
        this.#log.error({ worker: slot, err: error instanceof Error ? error.message : String(error) }, 'media worker failed to restart');
        if (this.#state !== 'running' || this.#slots[slot] !== fresh) return;
        const timer = setTimeout(() => {
          this.#restartTimers.delete(timer);
          if (this.#slots[slot] === fresh) this.#restart(slot);
        }, this.#restartDelayMs);
        this.#restartTimers.add(timer);
      },
    );
  }
}

/**
 * Terminates worker `workerIndex` abruptly, as a crash would: the engine reports `workerDied` and
 * starts a replacement. For tests of that path; not exported from the package index.
 */
export async function killWorkerForTest(engine: MediaEngine, workerIndex: number): Promise<void> {
  const channel = channelOf(engine, workerIndex);
  if (channel === undefined) throw new RangeError(`no media worker ${workerIndex}`);
  await channel.killForTest();
}
