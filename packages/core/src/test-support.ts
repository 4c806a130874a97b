/**
 * Test doubles for core's unit tests: a media engine that records requests and lets a test finish
 * plays by hand, and a channel technology that records what core asked of it.
 */
import type { ChannelInit } from './channels/channel.js';
import type { ChannelDriver, ChannelTechnology, ChannelTechnologyEvents, OutboundCallRequest } from './drivers/channel-technology.js';
import type { DialplanConfig, SwitchboardConfig } from './config/types.js';
import { CoreError } from './errors.js';
import type {
  BridgeVideoRequest,
  CreateLegRequest,
  CreateBridgeRequest,
  CreateSnoopRequest,
  JoinBridgeOptions,
  MediaEngine,
  MediaNotification,
  MediaTarget,
  PlayFileRequest,
  PlayToneRequest,
  StartRecordingRequest,
  TalkDetectionOptions,
  ToneDetectionOptions,
} from './media/media-engine.js';

export class RecordingMediaEngine implements MediaEngine {
  readonly plays: { legId: string; request: PlayFileRequest }[] = [];
  readonly stops: string[] = [];
  readonly #listeners = new Set<(n: MediaNotification) => void>();

  async createLeg(_request?: CreateLegRequest) {
    return { legId: 'leg-1', localAddress: '127.0.0.1', localPort: 10000 };
  }
  async setLegRemote() {}
  async destroyLeg() {}
  async playFile(legId: string, request: PlayFileRequest) {
    this.plays.push({ legId, request });
  }
  async stopPlayback(_legId: string, playbackId: string) {
    this.stops.push(playbackId);
  }
  async getCounters() {
    return { packetsSent: 0, packetsReceived: 0, bytesSent: 0, bytesReceived: 0 };
  }
  onNotification(listener: (n: MediaNotification) => void) {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
  /** Every other request, by method name and arguments, for tests that check what core asked. */
  readonly requests: { method: string; args: unknown[] }[] = [];
  #record(method: string, ...args: unknown[]): Promise<void> {
    this.requests.push({ method, args });
    return Promise.resolve();
  }
  playTone(target: MediaTarget, request: PlayToneRequest) {
    return this.#record('playTone', target, request);
  }
  playFileOnBridge(bridgeId: string, request: PlayFileRequest) {
    this.plays.push({ legId: `bridge:${bridgeId}`, request });
    return this.#record('playFileOnBridge', bridgeId, request);
  }
  stopBridgePlayback(bridgeId: string, playbackId: string) {
    this.stops.push(playbackId);
    return this.#record('stopBridgePlayback', bridgeId, playbackId);
  }
  createBridge(request: CreateBridgeRequest) {
    return this.#record('createBridge', request);
  }
  destroyBridge(bridgeId: string) {
    return this.#record('destroyBridge', bridgeId);
  }
  joinBridge(bridgeId: string, legId: string, options?: JoinBridgeOptions) {
    return this.#record('joinBridge', bridgeId, legId, options);
  }
  leaveBridge(bridgeId: string, legId: string) {
    return this.#record('leaveBridge', bridgeId, legId);
  }
  setBridgeParticipant(bridgeId: string, legId: string, options: JoinBridgeOptions) {
    return this.#record('setBridgeParticipant', bridgeId, legId, options);
  }
  setBridgeVideo(bridgeId: string, request: BridgeVideoRequest) {
    return this.#record('setBridgeVideo', bridgeId, request);
  }
  startRecording(target: MediaTarget, request: StartRecordingRequest) {
    return this.#record('startRecording', target, request);
  }
  stopRecording(recordingId: string, options: { discard: boolean }) {
    return this.#record('stopRecording', recordingId, options);
  }
  setRecordingState(recordingId: string, state: { paused?: boolean; muted?: boolean }) {
    return this.#record('setRecordingState', recordingId, state);
  }
  sendDtmf(legId: string, request: { digits: string; durationMs: number; betweenMs: number }) {
    return this.#record('sendDtmf', legId, request);
  }
  setLegMute(legId: string, mute: { inbound: boolean; outbound: boolean }) {
    return this.#record('setLegMute', legId, mute);
  }
  setLegGain(legId: string, gain: { inbound: number; outbound: number }) {
    return this.#record('setLegGain', legId, gain);
  }
  setToneDetection(legId: string, options: ToneDetectionOptions | null) {
    return this.#record('setToneDetection', legId, options);
  }
  setTalkDetection(legId: string, options: TalkDetectionOptions | null) {
    return this.#record('setTalkDetection', legId, options);
  }
  setInbandDtmfDetection(legId: string, enabled: boolean) {
    return this.#record('setInbandDtmfDetection', legId, enabled);
  }
  setLegRtpTimeout(legId: string, seconds: number) {
    return this.#record('setLegRtpTimeout', legId, seconds);
  }
  async createSnoopLeg(request: CreateSnoopRequest) {
    await this.#record('createSnoopLeg', request);
    return { legId: `snoop-${this.requests.length}` };
  }
  /** One idle worker. */
  async getWorkerStats(options?: { reset?: boolean }) {
    await this.#record('getWorkerStats', options);
    const idle = { workerIndex: 0, windowMs: 0, ticks: 0, tickMsP50: 0, tickMsP99: 0, tickMsMax: 0, overruns: 0 };
    return [
      { ...idle, longTicks: 0, lateTicks: 0, skippedFrames: 0, budgetMs: 20, lateThresholdMs: 10, heapUsedBytes: 0, heapTotalBytes: 0 },
    ];
  }
  async getRtpStatistics(legId: string) {
    await this.#record('getRtpStatistics', legId);
    return { txcount: 0, rxcount: 0, txploss: 0, rxploss: 0, local_ssrc: 1, remote_ssrc: 2, txoctetcount: 0, rxoctetcount: 0 };
  }
  /** Delivers a notification as the engine would. */
  emit(notification: MediaNotification): void {
    for (const l of this.#listeners) l(notification);
  }
  /** Ends the most recent play request with the given reason. */
  finishLast(reason: 'complete' | 'failed' = 'complete'): void {
    const last = this.plays[this.plays.length - 1];
    if (!last) throw new Error('nothing is playing');
    for (const l of this.#listeners) l({ type: 'playbackFinished', legId: last.legId, playbackId: last.request.playbackId, reason });
  }
}

export class RecordingTechnology implements ChannelTechnology {
  readonly protocolId = 'call-id-1';
  readonly mediaLegId: string | undefined = 'leg-1';
  readonly calls: string[] = [];
  async answer() {
    this.calls.push('answer');
  }
  async indicateRinging() {
    this.calls.push('ringing');
  }
  async indicateProgress() {
    this.calls.push('progress');
  }
  async hangup(cause: number) {
    this.calls.push(`hangup:${cause}`);
  }
}

/**
 * What `channels.create` takes for a SIP channel of `endpoint` (`SIP/<endpoint>-1`, context `default`, an id of
 * the registry's choosing): inbound and answered unless `overrides` say otherwise (`state: 'Ring'` for one still
 * ringing, `direction: 'outbound'` for one being dialled, `id` for a chosen id).
 */
export function sipChannelInit(
  endpoint: string,
  tech: ChannelTechnology,
  overrides: Partial<ChannelInit> = {},
): Omit<ChannelInit, 'id'> & { id?: string } {
  return {
    name: `SIP/${endpoint}-1`,
    technology: 'SIP',
    endpoint,
    direction: 'inbound',
    state: 'Up',
    caller: { name: '', number: '' },
    language: 'en',
    dialplan: { context: 'default', exten: 's', priority: 1 },
    tech,
    snapshotVariables: [],
    ...overrides,
  };
}

/** Lets pending promise callbacks run. */
export const settle = () => new Promise<void>((resolve) => setImmediate(resolve));

/** An outbound call as a driver would prepare it; tests drive the far end through `events`. */
export class FakeOutboundCall {
  readonly name: string;
  readonly endpoint: string;
  readonly tech: RecordingTechnology;
  events: ChannelTechnologyEvents | undefined;
  dialOptions: { timeoutSeconds: number } | undefined;
  /** Set to make `dial` reject, as a driver that cannot reach the far end does. */
  failDial = false;

  constructor(name: string, endpoint: string) {
    this.name = name;
    this.endpoint = endpoint;
    this.tech = new RecordingTechnology();
  }

  async dial(events: ChannelTechnologyEvents, options: { timeoutSeconds: number }) {
    if (this.failDial) throw new Error('unreachable');
    this.events = events;
    this.dialOptions = options;
  }
}

/**
 * A driver of technology `SIP` (alias `PJSIP`) that prepares FakeOutboundCalls; a resource
 * starting with `nobody` is an unknown endpoint, as a real driver reports it.
 */
export class FakeChannelDriver implements ChannelDriver {
  readonly technology = 'SIP';
  readonly aliases = ['PJSIP'] as const;
  readonly requests: OutboundCallRequest[] = [];
  readonly calls: FakeOutboundCall[] = [];
  /** Applied to every call before it is handed out (e.g. `failDial`). */
  configure: (call: FakeOutboundCall) => void = () => undefined;

  prepareOutbound(request: OutboundCallRequest): FakeOutboundCall {
    if (request.resource.startsWith('nobody')) throw new CoreError('not_found', 'Endpoint not found');
    this.requests.push(request);
    const endpoint = request.resource.split('/')[0] ?? request.resource;
    const call = new FakeOutboundCall(`SIP/${endpoint}-${String(this.calls.length + 1).padStart(8, '0')}`, endpoint);
    this.configure(call);
    this.calls.push(call);
    return call;
  }

  lastCall(): FakeOutboundCall {
    const call = this.calls[this.calls.length - 1];
    if (!call) throw new Error('no call prepared');
    return call;
  }

  async close() {}
}

/** A configuration for a core built in a test: no files, no SIP, the given dialplan and sound directory. */
export function testCoreConfig(options: { soundDir?: string; dialplan?: DialplanConfig } = {}) {
  const config: SwitchboardConfig = {
    confDir: '/nonexistent',
    general: {
      entityId: '02:00:5e:00:53:01',
      systemName: 'test',
      store: { backend: 'sqlite' },
      defaultLanguage: 'en',
      soundDirs: options.soundDir ? [options.soundDir] : [],
      recordingDir: '/nonexistent/recordings',
      mediaWorkers: 1,
      highPriority: false,
    },
    http: { enabled: false, bindAddress: '127.0.0.1', bindPort: 0, prefix: '' },
    ari: {
      enabled: true,
      channelVars: [],
      allowedOrigins: [],
      users: [],
      websocketWriteTimeoutMs: 100,
      resumeWindowSeconds: 60,
      resumeMaxEvents: 10_000,
      outboundWebsockets: [],
      dialect: 'switchboard',
    },
    sip: { transports: [], endpoints: [], identifies: [], aors: [], auths: [] },
    rtp: { rtpStart: 10000, rtpEnd: 20000, nativeSockets: true },
    dialplan: options.dialplan ?? { contexts: [], globals: {} },
  };
  return config;
}
export {
  findPostgresBin,
  postgresUnavailableReason,
  startTemporaryPostgres,
  type TemporaryPostgres,
} from './store/postgres/temporary-postgres.js';
