// Over 500 lines: the worker's one command dispatcher over the legs, bridges, links and recordings it owns, holding notifications back until each reply (protocol.ts).
/**
 * The worker side of the protocol: owns the worker's legs, bridges, links and recordings, answers
 * each request exactly once, and runs the media tick. It talks through a `post` function, so it
 * can be driven without a thread.
 *
 * Ordering rule (see protocol.ts): notifications raised while a command is being handled are held
 * back and posted right after that command's reply; an asynchronous command's own outcome
 * notifications (a stopped recording's `recordingFinished`) are held until its reply too.
 *
 * The media tick: frame n of the worker's clock is due at start + n × 20 ms on the monotonic
 * clock (playback/pacer.ts arithmetic), checked every 5 ms, so timer jitter never accumulates.
 * Each frame runs in phases so that every consumer sees the same instant:
 *
 *   1. capture   every endpoint reads what its leg received (RTP legs before snoop legs, which
 *                hear their source's capture of the same frame); leg recordings are fed
 *   2. links     legs bridged on another worker send their frame up
 *   3. bridges   each bridge homed here mixes (or relays) for its members; bridge recordings fed
 *   4. links     the mix from other workers' bridges becomes those legs' bridge output
 *   5. render    every endpoint sends its frame (beep, playback, DTMF, bridge output, whisper)
 *
 * Each frame's work time and start delay go into the worker's tick statistics (tick-stats.ts).
 */
import { getHeapStatistics } from 'node:v8';
import { Bridge } from '../bridge/bridge.js';
import { BridgeLink } from '../bridge/bridge-link.js';
import { type BridgeMember, LocalMember, RemoteMember } from '../bridge/members.js';
import { InvalidArgumentError, MediaError, bridgeNotFound, legNotFound, mediaErrorToWire, recordingNotFound } from '../errors.js';
import type { LogLevel } from '../logger.js';
import { Pacer } from '../playback/pacer.js';
import { loadPlaybackAudio } from '../playback/playback-audio.js';
import type { ResampleRate } from '../dsp/resampler.js';
import type { CommandResults, CommandType, WorkerCommand, WorkerNotification, WorkerRequest, WorkerToMain } from '../protocol.js';
import { Recorder } from '../recording/recorder.js';
import { SnoopLeg } from '../snoop/snoop-leg.js';
import type { ChannelFormat, LegCounters, LegRemote, LegRtpStatistics, MediaTarget } from '@switchboard/media-control';
import { FormatQuantiser } from './channel-format.js';
import { MediaEndpoint } from './media-endpoint.js';
import { type FrameSource, SampleSource } from './playback.js';
import { type LegHost, RtpLeg } from './rtp-leg.js';
import { RtpTimeouts } from './rtp-timeouts.js';
import { VideoStream } from './video-stream.js';
import { TickStats } from './tick-stats.js';
import { ToneSource } from './tone-frames.js';

/** How often the worker looks for due frames. Frames leave at most this late; the schedule never drifts. */
export const TICK_MS = 5;
/** After a stall, at most this many overdue frames are produced at once; the rest are skipped. */
const MAX_CATCH_UP_FRAMES = 5;
/**
 * Relaying bridges are checked at least this often (frames; half a second) even when nothing was
 * noticed to change: what changes without a command or a wake-up (a beep ending, digits sent) only
 * lets a relay start, and bridges not relaying are stepped every frame, so this bounds the cost of
 * a future change that forgets to say so.
 */
const FULL_STEP_FRAMES = 25;

type Result = CommandResults[CommandType];

interface RecordingEntry {
  recorder: Recorder;
  target: MediaTarget;
}

export class WorkerHost implements LegHost {
  readonly #post: (message: WorkerToMain) => void;
  readonly #workerIndex: number;
  readonly #now: () => number;
  readonly #rtpLegs = new Map<string, RtpLeg>();
  readonly #endpoints = new Map<string, MediaEndpoint>();
  readonly #bridges = new Map<string, Bridge>();
  /** Local legs that are members of a bridge homed here: leg id → bridge. */
  readonly #homeOf = new Map<string, Bridge>();
  /** Local legs that are members of a bridge homed on another worker. */
  readonly #links = new Map<string, BridgeLink>();
  readonly #recordings = new Map<string, RecordingEntry>();
  /** Legs whose call ends when their peer goes quiet (setLegRtpTimeout). */
  readonly #rtpTimeouts: RtpTimeouts;
  #clock: Pacer | null = null;
  readonly #tickStats: TickStats;
  #timer: NodeJS.Timeout | null = null;
  /** Notifications raised during the synchronous part of a command, posted after its reply. */
  #held: WorkerNotification[] | null = null;
  /**
   * Whether anything may have changed what a relaying bridge depends on since the last frame (see
   * `#step`). Everything that can end a relay (a playback, digits, mute or gain, a recording, a
   * snoop, a member or codec change) arrives as a command or wakes the tick.
   */
  #changedSinceStep = true;
  /** Frames since every bridge was last stepped. */
  #framesSinceFullStep = 0;

  constructor(post: (message: WorkerToMain) => void, workerIndex: number, now: () => number = () => performance.now()) {
    this.#post = post;
    this.#workerIndex = workerIndex;
    this.#now = now;
    this.#tickStats = new TickStats(now());
    this.#rtpTimeouts = new RtpTimeouts((n) => this.notify(n), now);
  }

  // ── LegHost ──────────────────────────────────────────────────────────────────────────────

  notify(notification: WorkerNotification): void {
    if (notification.type === 'dtmfReceived') this.#routeDtmf(notification.legId, notification.digit, notification.durationMs);
    if (notification.type === 'recordingFinished') this.#recordings.delete(notification.recordingId);
    if (this.#held !== null) this.#held.push(notification);
    else this.#post({ kind: 'notification', notification });
  }

  log(level: LogLevel, fields: Record<string, unknown>, msg: string): void {
    this.#post({ kind: 'log', level, fields, msg });
  }

  now(): number {
    return this.#now();
  }

  // ── requests ─────────────────────────────────────────────────────────────────────────────

  ready(): void {
    this.#post({ kind: 'ready', workerIndex: this.#workerIndex });
  }

  receive(message: WorkerRequest): void {
    const { id, command } = message;
    const succeed = (result: Result, held: WorkerNotification[]): void => {
      this.#post({ kind: 'reply', id, ok: true, result });
      this.#flush(held);
      if (command.type === 'close') this.#post({ kind: 'closed' });
    };
    const fail = (error: unknown, held: WorkerNotification[]): void => {
      if (!(error instanceof MediaError)) {
        this.log('error', { command: command.type, err: error instanceof Error ? error.stack : String(error) }, 'media command failed');
      }
      this.#post({ kind: 'reply', id, ok: false, error: mediaErrorToWire(error) });
      this.#flush(held);
    };

    const held: WorkerNotification[] = [];
    this.#held = held;
    let outcome: Result | Promise<Result>;
    try {
      outcome = this.#execute(command, held);
    } catch (error) {
      this.#held = null;
      fail(error, held);
      return;
    }
    this.#held = null;
    // A synchronous command is answered at once; an asynchronous one (binding a socket, closing a
    // recording's file, sending digits) when it settles. Either way its held notifications follow its reply.
    if (outcome instanceof Promise) {
      outcome.then(
        (result) => succeed(result, held),
        (error: unknown) => fail(error, held),
      );
    } else {
      succeed(outcome, held);
    }
  }

  #flush(held: WorkerNotification[]): void {
    for (const notification of held) this.#post({ kind: 'notification', notification });
  }

  #endpoint(legId: string): MediaEndpoint {
    const endpoint = this.#endpoints.get(legId);
    if (endpoint === undefined) throw legNotFound(legId);
    return endpoint;
  }

  #rtpLeg(legId: string): RtpLeg {
    const leg = this.#rtpLegs.get(legId);
    if (leg === undefined) throw legNotFound(legId);
    return leg;
  }

  #bridge(bridgeId: string): Bridge {
    const bridge = this.#bridges.get(bridgeId);
    if (bridge === undefined) throw bridgeNotFound(bridgeId);
    return bridge;
  }

  #recording(recordingId: string): RecordingEntry {
    const entry = this.#recordings.get(recordingId);
    if (entry === undefined) throw recordingNotFound(recordingId);
    return entry;
  }

  #execute(command: WorkerCommand, held: WorkerNotification[]): Result | Promise<Result> {
    this.#changedSinceStep = true;
    switch (command.type) {
      case 'createLeg':
        return this.#createLeg(command.legId, command.bindAddress, command.port, command.videoPort, command.remote);
      case 'createSnoopLeg': {
        if (this.#endpoints.has(command.legId)) throw new InvalidArgumentError(`media leg ${command.legId} already exists`);
        const source = this.#endpoint(command.sourceLegId);
        const snoop = new SnoopLeg(command.legId, source, command.spy, command.whisper, command.spyGain);
        this.#endpoints.set(command.legId, new MediaEndpoint(snoop, (n) => this.notify(n)));
        this.#wake();
        return null;
      }
      case 'setLegRemote':
        this.#setLegRemote(command.legId, command.remote);
        return null;
      case 'destroyLeg':
        this.#destroyLeg(command.legId);
        return null;
      case 'playFile':
        this.#play(
          command.target,
          command.playbackId,
          (rate) =>
            loadPlaybackAudio(command.file, 0, rate).then(
              (samples) =>
                new SampleSource(samples, {
                  loop: command.loop,
                  start: Math.round((command.offsetMs * rate) / 1000),
                  frameSamples: rate / 50,
                }),
            ),
          command.announcerFormat,
        );
        return null;
      case 'playTone':
        this.#play(
          command.target,
          command.playbackId,
          (rate) => Promise.resolve(new ToneSource(command.segments, command.repeat, rate)),
          command.announcerFormat,
        );
        return null;
      case 'stopPlayback':
        if (command.target.kind === 'leg') this.#endpoint(command.target.legId).stopPlayback(command.playbackId);
        else this.#bridge(command.target.bridgeId).stopPlayback(command.playbackId);
        return null;
      case 'getCounters':
        return this.#counters(command.legId);
      case 'getRtpStatistics':
        return this.#statistics(command.legId);
      case 'createBridge':
        if (this.#bridges.has(command.bridgeId)) throw new InvalidArgumentError(`media bridge ${command.bridgeId} already exists`);
        this.#bridges.set(
          command.bridgeId,
          new Bridge(
            command.bridgeId,
            command.kind,
            (n) => this.notify(n),
            (member) => this.#rtpOf(member),
            () => this.#now(),
          ),
        );
        return null;
      case 'destroyBridge': {
        const bridge = this.#bridge(command.bridgeId);
        for (const legId of bridge.memberIds()) this.#leaveHome(bridge, legId);
        bridge.close();
        this.#bridges.delete(command.bridgeId);
        return null;
      }
      case 'joinBridge':
        this.#join(command.bridgeId, command.legId, command);
        return null;
      case 'linkLeg':
        this.#link(command.bridgeId, command.legId, command.port);
        return null;
      case 'leaveBridge': {
        const bridge = this.#bridge(command.bridgeId);
        this.#leaveHome(bridge, command.legId);
        return null;
      }
      case 'unlinkLeg':
        this.#unlink(command.legId);
        return null;
      case 'setBridgeVideo':
        this.#bridge(command.bridgeId).setVideo(command.video);
        return null;
      case 'setBridgeParticipant':
        if (!this.#bridge(command.bridgeId).update(command.legId, command.options)) throw legNotFound(command.legId);
        return null;
      case 'startRecording':
        this.#startRecording(command.target, command, held);
        return null;
      case 'stopRecording': {
        const entry = this.#recording(command.recordingId);
        this.#detachRecorder(entry);
        return entry.recorder.finish('stopped', { discard: command.discard }).then((notification) => {
          this.#recordings.delete(command.recordingId);
          held.push(notification);
          return null;
        });
      }
      case 'setRecordingState':
        this.#recording(command.recordingId).recorder.setState({ paused: command.paused, muted: command.muted });
        return null;
      case 'sendDtmf': {
        const done = this.#endpoint(command.legId).sendDigits(command.digits, command.durationMs, command.betweenMs);
        this.#wake();
        return done.then(() => null);
      }
      case 'setLegMute': {
        const endpoint = this.#endpoint(command.legId);
        endpoint.muteInbound = command.inbound;
        endpoint.muteOutbound = command.outbound;
        return null;
      }
      case 'setLegGain': {
        const endpoint = this.#endpoint(command.legId);
        endpoint.gainInbound = command.inbound;
        endpoint.gainOutbound = command.outbound;
        return null;
      }
      case 'setToneDetection':
        this.#endpoint(command.legId).setToneDetection(command.options);
        this.#wake();
        return null;
      case 'setTalkDetection':
        this.#endpoint(command.legId).setTalkDetection(command.options);
        this.#wake();
        return null;
      case 'setInbandDtmfDetection':
        this.#endpoint(command.legId).setInbandDtmfDetection(command.enabled);
        this.#wake();
        return null;
      case 'setLegRtpTimeout': {
        const leg = this.#rtpLegs.get(command.legId);
        if (leg === undefined) {
          this.#endpoint(command.legId);
          throw new InvalidArgumentError(`media leg ${command.legId} has no RTP socket to time out`);
        }
        this.#rtpTimeouts.set(leg, command.seconds);
        return null;
      }
      case 'getTickStats': {
        const heap = getHeapStatistics();
        const stats = {
          ...this.#tickStats.snapshot(this.#workerIndex, this.#now()),
          heapUsedBytes: heap.used_heap_size,
          heapTotalBytes: heap.total_heap_size,
        };
        if (command.reset) this.#tickStats.reset(this.#now());
        return stats;
      }
      case 'close':
        return this.#closeAll();
    }
  }

  async #createLeg(
    legId: string,
    bindAddress: string,
    port: number,
    videoPort: number | undefined,
    remote: LegRemote | undefined,
  ): Promise<CommandResults['createLeg']> {
    if (this.#endpoints.has(legId)) throw new InvalidArgumentError(`media leg ${legId} already exists`);
    const leg = await RtpLeg.open(legId, bindAddress, port, this);
    try {
      if (videoPort !== undefined) leg.video = await VideoStream.open(legId, bindAddress, videoPort, this, leg.cname);
      // Set before the leg is registered: a remote the leg refuses leaves nothing behind.
      if (remote !== undefined) leg.setRemote(remote);
    } catch (error) {
      leg.close();
      throw error;
    }
    this.#rtpLegs.set(legId, leg);
    this.#endpoints.set(legId, new MediaEndpoint(leg, (n) => this.notify(n), leg));
    if (remote !== undefined && this.#endpoint(legId).active) this.#wake();
    this.log('debug', { legId, address: leg.localAddress, port: leg.localPort, videoPort }, 'RTP leg created');
    const result: CommandResults['createLeg'] = { localAddress: leg.localAddress, localPort: leg.localPort };
    if (leg.video !== null) result.videoPort = leg.video.localPort;
    return result;
  }

  /** The engine validated the remote before sending it (validate.ts). */
  #setLegRemote(legId: string, remote: LegRemote): void {
    this.#rtpLeg(legId).setRemote(remote);
    this.#homeOf.get(legId)?.videoChanged(legId);
    this.#links.get(legId)?.videoChanged();
    // A peer without telephone-event has its in-band digits detected on the tick.
    if (this.#endpoint(legId).active) this.#wake();
  }

  #destroyLeg(legId: string): void {
    const endpoint = this.#endpoint(legId);
    const home = this.#homeOf.get(legId);
    if (home !== undefined) this.#leaveHome(home, legId);
    this.#unlink(legId);
    // Snoop legs of this one lose their source: they stay, and hear silence.
    for (const other of this.#endpoints.values()) if (other.io instanceof SnoopLeg && other.io.sourceId === legId) other.io.detach();
    for (const recorder of endpoint.recorders) this.#recordings.delete(recorder.id);
    this.#endpoints.delete(legId);
    this.#rtpLegs.delete(legId);
    this.#rtpTimeouts.forget(legId);
    endpoint.close();
    const leg = endpoint.io instanceof RtpLeg ? endpoint.io : null;
    this.log('debug', { legId, port: leg?.localPort, counters: leg?.counters }, 'media leg destroyed');
  }

  /**
   * `load` yields the playback's frames at the rate asked: 8 kHz for a leg; for a bridge, the
   * announcer format's rate, or the bridge's mixing rate when no format was given (the reference's
   * "slin at the highest participant sample rate").
   */
  #play(target: MediaTarget, playbackId: string, loadAt: (rate: ResampleRate) => Promise<FrameSource>, format?: ChannelFormat): void {
    if (target.kind === 'bridge') {
      const bridge = this.#bridge(target.bridgeId);
      const announcer = format === undefined ? null : new FormatQuantiser(format);
      const rate = announcer?.rate ?? bridge.rate;
      bridge.play(
        playbackId,
        () => loadAt(rate),
        () => this.#wake(),
        announcer,
      );
      this.#wake();
      return;
    }
    const load = () => loadAt(8000);
    const endpoint = this.#endpoint(target.legId);
    const leg = this.#rtpLegs.get(target.legId);
    if (leg !== undefined && leg.remote === null) {
      endpoint.play(
        playbackId,
        () => Promise.reject(new Error(`leg ${target.legId} has no remote yet: call setLegRemote before playing`)),
        () => {},
      );
      return;
    }
    endpoint.play(playbackId, load, () => this.#wake());
  }

  #rtpOf(member: BridgeMember): RtpLeg | null {
    return member.endpoint === null ? null : (this.#rtpLegs.get(member.legId) ?? null);
  }

  #sendDtmfOn(endpoint: MediaEndpoint): (digit: string, durationMs: number) => void {
    return (digit, durationMs) => {
      void endpoint.sendDigits(digit, durationMs, 0);
      this.#wake();
    };
  }

  #join(bridgeId: string, legId: string, command: Extract<WorkerCommand, { type: 'joinBridge' }>): void {
    const bridge = this.#bridge(bridgeId);
    let member: BridgeMember;
    const port = command.port;
    if (port === undefined) {
      const endpoint = this.#endpoint(legId);
      const previous = this.#homeOf.get(legId);
      if (previous !== undefined && previous !== bridge) this.#leaveHome(previous, legId);
      this.#unlink(legId);
      member = new LocalMember(endpoint, this.#sendDtmfOn(endpoint), this.#rtpLegs.get(legId)?.video ?? null);
      endpoint.bridgeId = bridgeId;
      this.#homeOf.set(legId, bridge);
    } else {
      member = new RemoteMember(
        legId,
        port,
        (digit, durationMs) => this.#bridgeDtmf(bridge, legId, digit, durationMs),
        () => {
          // The leg's worker died (or unlinked): drop the membership.
          if (this.#bridges.get(bridgeId) === bridge) bridge.remove(legId);
        },
      );
    }
    bridge.add(member, command.options);
    this.#wake();
  }

  #leaveHome(bridge: Bridge, legId: string): void {
    const member = bridge.remove(legId);
    if (member?.endpoint != null) {
      member.endpoint.bridgeId = null;
      this.#homeOf.delete(legId);
    }
  }

  #link(bridgeId: string, legId: string, port: import('node:worker_threads').MessagePort): void {
    const endpoint = this.#endpoint(legId);
    const home = this.#homeOf.get(legId);
    if (home !== undefined) this.#leaveHome(home, legId);
    this.#unlink(legId);
    const link = new BridgeLink(
      bridgeId,
      endpoint,
      port,
      this.#sendDtmfOn(endpoint),
      () => {
        // The bridge's worker died: the leg is out of the bridge.
        if (this.#links.get(legId) !== link) return;
        this.#links.delete(legId);
        endpoint.bridgeId = null;
      },
      this.#rtpLegs.get(legId)?.video ?? null,
    );
    this.#links.set(legId, link);
    endpoint.bridgeId = bridgeId;
    this.#wake();
  }

  #unlink(legId: string): void {
    const link = this.#links.get(legId);
    if (link === undefined) return;
    this.#links.delete(legId);
    link.close();
    link.endpoint.bridgeId = null;
  }

  #routeDtmf(legId: string, digit: string, durationMs: number): void {
    const endpoint = this.#endpoints.get(legId);
    if (endpoint !== undefined) for (const recorder of endpoint.recorders) recorder.dtmf(digit);
    const home = this.#homeOf.get(legId);
    if (home !== undefined) this.#bridgeDtmf(home, legId, digit, durationMs);
    this.#links.get(legId)?.forwardDtmf(digit, durationMs);
  }

  #bridgeDtmf(bridge: Bridge, legId: string, digit: string, durationMs: number): void {
    bridge.dtmfFrom(legId, digit, durationMs);
    for (const recorder of bridge.recorders) recorder.dtmf(digit);
  }

  #startRecording(target: MediaTarget, command: Extract<WorkerCommand, { type: 'startRecording' }>, held: WorkerNotification[]): void {
    const request = command.request;
    if (this.#recordings.has(request.recordingId)) throw new InvalidArgumentError(`recording ${request.recordingId} is already live`);
    // Look the target up first: a missing target is the caller's error, not a failed recording.
    const endpoint = target.kind === 'leg' ? this.#endpoint(target.legId) : null;
    const bridge = target.kind === 'bridge' ? this.#bridge(target.bridgeId) : null;
    const recorder = new Recorder(request, (n) => this.notify(n));
    if (recorder.failure !== null) {
      void recorder.finish('failed', { discard: false }).then((notification) => this.notify(notification));
      return;
    }
    this.#recordings.set(request.recordingId, { recorder, target });
    if (endpoint !== null) endpoint.recorders.add(recorder);
    if (bridge !== null) bridge.recorders.add(recorder);
    // `recordingStarted` follows the reply (held), or comes after the beep.
    if (recorder.state === 'recording') held.push({ type: 'recordingStarted', recordingId: recorder.id });
    this.#wake();
  }

  #detachRecorder(entry: RecordingEntry): void {
    if (entry.target.kind === 'leg') this.#endpoints.get(entry.target.legId)?.recorders.delete(entry.recorder);
    else this.#bridges.get(entry.target.bridgeId)?.recorders.delete(entry.recorder);
  }

  /** A snoop leg has no socket: its counters are zero. */
  #counters(legId: string): LegCounters {
    const leg = this.#rtpLegs.get(legId);
    if (leg !== undefined) return leg.counters;
    this.#endpoint(legId);
    return { packetsSent: 0, packetsReceived: 0, bytesSent: 0, bytesReceived: 0, packetsDropped: 0 };
  }

  #statistics(legId: string): LegRtpStatistics {
    // RFC 3550 figures from the leg's statistics tracker (rtp/rtcp-stats.ts), RTPstat names.
    const leg = this.#rtpLegs.get(legId);
    if (leg !== undefined) return { ...leg.rtpStatistics };
    this.#endpoint(legId);
    return { txcount: 0, rxcount: 0, txploss: 0, rxploss: 0, local_ssrc: 0, remote_ssrc: 0, txoctetcount: 0, rxoctetcount: 0 };
  }

  async #closeAll(): Promise<null> {
    const finishing = [...this.#recordings.values()].map(({ recorder }) => recorder.finish('target-gone', { discard: false }));
    for (const bridge of this.#bridges.values()) bridge.close();
    this.#bridges.clear();
    this.#homeOf.clear();
    for (const link of this.#links.values()) link.close();
    this.#links.clear();
    for (const endpoint of this.#endpoints.values()) endpoint.close();
    this.#endpoints.clear();
    this.#rtpLegs.clear();
    this.#rtpTimeouts.close();
    this.#stopTimer();
    // Files are completed before `closed`, so no recording is left with an unfixed header.
    await Promise.all(finishing.map((promise) => promise.catch(() => undefined)));
    return null;
  }

  // ── the media tick ───────────────────────────────────────────────────────────────────────

  /** Starts the tick if it is not running; the first frame is produced at once. */
  #wake(): void {
    this.#changedSinceStep = true;
    if (this.#timer !== null) return;
    this.#clock = new Pacer(this.#now(), Infinity);
    this.#timer = setInterval(() => this.#tick(), TICK_MS);
    this.#tick();
  }

  #stopTimer(): void {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
    this.#clock = null;
  }

  #busy(): boolean {
    for (const bridge of this.#bridges.values()) if (bridge.active) return true;
    if (this.#links.size > 0) return true;
    for (const endpoint of this.#endpoints.values()) if (endpoint.active) return true;
    return false;
  }

  #tick(): void {
    const clock = this.#clock;
    if (clock === null) return;
    const first = clock.taken;
    const due = clock.take(this.#now());
    const produced = Math.min(due, MAX_CATCH_UP_FRAMES);
    for (let frame = 0; frame < produced; frame += 1) {
      const started = this.#now();
      this.#step();
      const dueAt = clock.startMs + (first + frame) * clock.frameMs;
      this.#tickStats.record(this.#now() - started, started - dueAt);
    }
    if (due > produced) this.#tickStats.skip(due - produced);
    if (!this.#busy()) this.#stopTimer();
  }

  #step(): void {
    // Snoop legs capture after the RTP legs they listen to. Two passes over the map rather than
    // arrays and a closure per endpoint: the tick runs on the thread that relays packets, so its
    // garbage is collected while packets wait (bench/README.md, profiles).
    for (const endpoint of this.#endpoints.values()) if (!(endpoint.io instanceof SnoopLeg)) this.#capture(endpoint);
    for (const endpoint of this.#endpoints.values()) if (endpoint.io instanceof SnoopLeg) this.#capture(endpoint);
    for (const link of this.#links.values()) link.sendUp();
    // A relaying bridge's frame only checks that it may go on relaying (its packets never wait for
    // the tick). With nothing changed since the last frame it may, and the check is skipped: at 200
    // relayed calls those checks were half of each frame's work, time in which packets wait in the
    // sockets (bench/README.md). Every bridge is still stepped at least every FULL_STEP_FRAMES.
    const settled = !this.#changedSinceStep && this.#framesSinceFullStep < FULL_STEP_FRAMES;
    this.#changedSinceStep = false;
    this.#framesSinceFullStep = settled ? this.#framesSinceFullStep + 1 : 0;
    for (const bridge of this.#bridges.values()) {
      if (settled && bridge.relaying) continue;
      try {
        bridge.step();
      } catch (error) {
        this.log('error', { bridgeId: bridge.id, err: error instanceof Error ? error.stack : String(error) }, 'media bridge tick failed');
        bridge.endPlayback('failed', error instanceof Error ? error.message : String(error));
      }
    }
    for (const link of this.#links.values()) link.takeDown();
    for (const endpoint of this.#endpoints.values()) if (!(endpoint.io instanceof SnoopLeg)) this.#render(endpoint);
    for (const endpoint of this.#endpoints.values()) if (endpoint.io instanceof SnoopLeg) this.#render(endpoint);
  }

  #capture(endpoint: MediaEndpoint): void {
    try {
      endpoint.capture();
    } catch (error) {
      this.#failed(endpoint, error);
    }
  }

  #render(endpoint: MediaEndpoint): void {
    try {
      endpoint.render();
    } catch (error) {
      this.#failed(endpoint, error);
    }
  }

  /** A bug in one leg's media must not stop the others: fail that leg's playback alone. */
  #failed(endpoint: MediaEndpoint, error: unknown): void {
    const message = error instanceof Error ? error.message : String(error);
    this.log('error', { legId: endpoint.id, err: error instanceof Error ? error.stack : message }, 'media leg tick failed');
    if (endpoint.playback !== null) {
      endpoint.endPlayback('failed', message);
      this.notify({ type: 'legFailed', legId: endpoint.id, error: `playback failed: ${message}` });
    }
  }
}
