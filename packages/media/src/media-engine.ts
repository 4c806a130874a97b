/**
 * The media engine as the rest of the server sees it: a main-thread proxy over a pool of media
 * worker threads. It allocates RTP ports, places each leg on a worker, forwards calls as protocol
 * requests, fans worker notifications out to listeners, and replaces a worker that dies.
 * No RTP packet ever passes through this thread.
 *
 *     idle ──start()──► starting ──all workers ready──► running ──close()──► closing ──► closed
 *                          └──a worker failed to start──────────────────────────────────┘
 */
import { randomUUID } from 'node:crypto';
import { PortAllocator } from './engine/port-allocator.js';
import { WorkerChannel } from './engine/worker-channel.js';
import { EngineNotRunningError, MediaError, PortsExhaustedError, WorkerDiedError, legNotFound } from './errors.js';
import { type MediaLogger, scopedLogger, silentMediaLogger } from './logger.js';
import type { WorkerNotification } from './protocol.js';
import type {
  CreateLegRequest,
  LegCounters,
  LegRemote,
  MediaLegInfo,
  MediaNotification,
  MediaNotificationListener,
  PlayFileRequest,
} from './types.js';
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
}

type EngineState = 'idle' | 'starting' | 'running' | 'closing' | 'closed';

interface LegRecord {
  legId: string;
  slot: number;
  /** The worker instance that owns the leg: after a restart, the slot holds a different one. */
  channel: WorkerChannel;
  port: number;
  /** The worker confirmed the leg (its socket is bound). */
  created: boolean;
  /** The playback last accepted on this leg and not yet reported finished. */
  playbackId: string | null;
  destroying: Promise<void> | null;
}

const WORKER_SCRIPT = new URL('./worker.js', import.meta.url);
const CLOSE_TIMEOUT_MS = 2000;

let channelOf: (engine: MediaEngine, workerIndex: number) => WorkerChannel | undefined;

export class MediaEngine {
  readonly #log: MediaLogger;
  readonly #baseLogger: MediaLogger;
  readonly #ports: PortAllocator;
  readonly #workerCount: number;
  readonly #readyTimeoutMs: number;
  readonly #restartDelayMs: number;
  #state: EngineState = 'idle';
  #slots: WorkerChannel[] = [];
  /** Legs per slot, for least-loaded placement. */
  #load: number[] = [];
  #nextSlot = 0;
  readonly #legs = new Map<string, LegRecord>();
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
    this.#log.info({ workers: this.#workerCount, rtpPorts: `${this.#ports.first}-${this.#ports.last}` }, 'media engine started');
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

  async createLeg(request: CreateLegRequest): Promise<MediaLegInfo> {
    this.#assertRunning();
    const bindAddress = validateIpAddress('bindAddress', request.bindAddress);
    const slot = this.#pickSlot();
    const channel = this.#slots[slot];
    const record: LegRecord = {
      legId: randomUUID(),
      slot,
      channel,
      port: -1,
      created: false,
      playbackId: null,
      destroying: null,
    };
    this.#legs.set(record.legId, record);
    this.#load[slot] += 1;
    const busy = new Set<number>(); // ports another program holds
    try {
      for (;;) {
        const port = this.#ports.acquire(busy);
        if (port === null) {
          throw new PortsExhaustedError(
            `no free RTP port in ${this.#ports.first}-${this.#ports.last}: ` +
              `${this.#ports.inUse} held by legs, ${busy.size} bound by other programs`,
          );
        }
        record.port = port;
        try {
          const bound = await channel.request({ type: 'createLeg', legId: record.legId, bindAddress, port });
          record.created = true;
          return { legId: record.legId, localAddress: bound.localAddress, localPort: bound.localPort };
        } catch (error) {
          this.#ports.release(port);
          record.port = -1;
          if (error instanceof MediaError && error.code === 'port_in_use') {
            busy.add(port);
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
    await record.channel.request({ type: 'setLegRemote', legId, remote: validateRemote(remote) });
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
    await record.channel.request({ type: 'playFile', legId, playbackId, file, offsetMs });
    record.playbackId = playbackId;
  }

  /** Stops the playback if it is still the leg's current one (finished `stopped`); otherwise does nothing. */
  async stopPlayback(legId: string, playbackId: string): Promise<void> {
    const record = this.#leg(legId);
    await record.channel.request({ type: 'stopPlayback', legId, playbackId });
  }

  async getCounters(legId: string): Promise<LegCounters> {
    const record = this.#leg(legId);
    return record.channel.request({ type: 'getCounters', legId });
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

  #leg(legId: string): LegRecord {
    this.#assertRunning();
    const record = this.#legs.get(legId);
    if (record === undefined || !record.created) throw legNotFound(legId);
    return record;
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
    record.port = -1;
  }

  #newChannel(slot: number): WorkerChannel {
    const channel: WorkerChannel = new WorkerChannel({
      index: slot,
      script: WORKER_SCRIPT,
      logger: this.#baseLogger,
      readyTimeoutMs: this.#readyTimeoutMs,
      closeTimeoutMs: CLOSE_TIMEOUT_MS,
      onNotification: (notification) => this.#fromWorker(notification),
      onDied: (error) => this.#workerDied(channel, error),
    });
    return channel;
  }

  #fromWorker(notification: WorkerNotification): void {
    if (notification.type === 'playbackFinished') {
      const record = this.#legs.get(notification.legId);
      if (record?.playbackId === notification.playbackId) record.playbackId = null;
    }
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
    this.#emit({ type: 'workerDied', workerIndex: slot, legIds: lost.map((record) => record.legId), error });
    this.#restart(slot);
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
