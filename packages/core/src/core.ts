// Over 500 lines: the object model's composition root; it builds and wires every core service, and each of those lives in its own file.
import { ClusterMediaLegs } from './cluster/cluster-media-legs.js';
import { watchNodeFailures } from './cluster/node-failure.js';
import { type ClusterView, ObjectOwnership } from './cluster/object-ownership.js';
import { join, resolve } from 'node:path';
import { ApplicationRegistry } from './apps/application-registry.js';
import type { Channel } from './channels/channel.js';
import { ChannelRegistry } from './channels/channel-registry.js';
import { CoreError } from './errors.js';
import { CAUSE_NORMAL_CLEARING } from './channels/hangup-causes.js';
import type { DialplanConfig, SipConfig, SwitchboardConfig } from './config/types.js';
import { Dialplan, type DialplanOptions } from './dialplan/dialplan.js';
import { expand } from './dialplan/expand.js';
import { splitArgs } from './dialplan/split-args.js';
import type {
  ChannelDriver,
  ChannelDriverHost,
  ChannelTechnology,
  ChannelTechnologyEvents,
  InboundCall,
  ReplacementCall,
  TransferDecision,
  TransferRequestInfo,
} from './drivers/channel-technology.js';
import { ChannelTransferService } from './channels/channel-transfer.js';
import { EventBus } from './events/event-bus.js';
import type { MediaEngine } from './media/media-engine.js';
import type { MediaStreamGateway } from './media/media-stream-gateway.js';
import { watchWorkerFailures } from './media/worker-failure.js';
import { DialplanRunner } from './pbx/dialplan-runner.js';
import { DialplanRedirect } from './pbx/dialplan-redirect.js';
import { AttendedTransferService } from './pbx/attended-transfer.js';
import { acceptReplacement } from './pbx/replacement.js';
import { channelToneZone } from './playback/channel-tone-zone.js';
import { PlaybackManager } from './playback/playback-manager.js';
import { type CdrService, installCdr } from './cdr/install-cdr.js';
import { installDialplanLanguage } from './pbx/install-dialplan-language.js';
import { installMixMonitor } from './pbx/apps/mixmonitor/install-mixmonitor.js';
import type { MixMonitorService } from './pbx/apps/mixmonitor/mixmonitor-service.js';
import { installConfBridge } from './pbx/apps/confbridge/install-confbridge.js';
import { readConfBridgeConfig } from './pbx/apps/confbridge/confbridge-config.js';
import type { ConfBridgeService } from './pbx/apps/confbridge/confbridge-service.js';
import { installVoicemail } from './pbx/apps/voicemail/install-voicemail.js';
import { readVoicemailConfig, VOICEMAIL_CONFIG_FILE } from './pbx/apps/voicemail/voicemail-config.js';
import type { VoicemailService } from './pbx/apps/voicemail/voicemail-service.js';
import { MemoryVoicemailStore } from './pbx/apps/voicemail/voicemail-store.js';
import { installQueues } from './pbx/apps/queue/install-queues.js';
import { readQueuesConfig } from './pbx/apps/queue/queue-config.js';
import type { QueueService } from './pbx/apps/queue/queue-service.js';
import { MemoryQueueStore } from './pbx/apps/queue/queue-store.js';
import { SoundIndex } from './sounds/sound-index.js';
import { SystemStatus } from './system.js';
import { type Logger, silentLogger } from './util/logger.js';
import { type Clock, systemClock } from './util/time.js';
import type { ChannelFlowControl } from './channels/channel-flow.js';
import type { ChannelMediaControl } from './channels/channel-media-control.js';
import { createChannelServices } from './channels/channel-services.js';
import type { ChannelVariableAccess } from './channels/variable-access.js';
import type { OriginateService } from './originate/originate-service.js';
import type { SnoopService } from './snoop/snoop-service.js';
import type { ExternalMediaService } from './originate/external-media.js';
import { LocalChannelDriver } from './local/local-channel.js';
import type { ApplicationJournalStore, Store } from './store/types.js';
import { loadAriConfig, loadDialplanConfig, loadMusicOnHoldConfig, loadWebSocketChannelConfig } from './config/load-config.js';
import { EndpointRegistry } from './endpoints/endpoint-registry.js';
import { TextMessageService } from './endpoints/text-messages.js';
import { DeviceStateRegistry } from './device-states/device-state-registry.js';
import { MAILBOX_MODULE, MailboxRegistry } from './mailboxes/mailbox-registry.js';
import { ModuleRegistry } from './modules/module-registry.js';
import { defineBuiltinModules } from './modules/builtin-modules.js';
import { LogChannelRegistry } from './logging/log-channel-registry.js';
import { readLoggerConfig } from './logging/logger-config.js';
import { DynamicConfig } from './dynamic-config/dynamic-config.js';
import { GlobalVariables } from './dynamic-config/global-variables.js';
import { SipObjects } from './dynamic-config/sip-objects.js';
import { ReferService } from './endpoints/refers.js';
import { CallBroadcasts } from './apps/call-broadcast.js';
import { BROADCAST_APPLICATION_NAMES, createBroadcastApplication } from './pbx/app-broadcast.js';
import { EventSources } from './user-events/event-sources.js';
import { SubscriptionService } from './user-events/subscriptions.js';
import { UserEventService } from './user-events/user-events.js';
import { BridgeRegistry } from './bridges/bridge-registry.js';
import { BridgeMusic } from './bridges/bridge-music.js';
import { RecordingManager } from './recordings/recording-manager.js';
import { StoredRecordings } from './recordings/stored-recordings.js';
import { ToneResolver } from './playback/tone-resolver.js';

/** Q.850 "unallocated number": the dialled extension does not exist. */
const CAUSE_UNALLOCATED = 1;

export interface CoreOptions {
  config: SwitchboardConfig;
  media: MediaEngine;
  logger?: Logger;
  clock?: Clock;
  /** Device states, mailboxes, dynamic configuration and global variables persist here. */
  store?: Store;
  /** Where file log channels live (`<data dir>/log`); without it there are no log channels. */
  logDirectory?: string;
  /** Recording formats the media engine can write; wav, ulaw, alaw, sln and g722 when absent. */
  recordingFormats?: readonly string[];
  /** The wall clock of time conditions (GotoIfTime, timed includes, STRFTIME); default: the system's. */
  dialplanClock?: () => Date;
  /** Runs externalMedia's WebSocket and AudioSocket streams; without it they answer 501. */
  mediaStreams?: MediaStreamGateway;
}

/**
 * The object model in one place: what the api package calls and what channel drivers report to.
 * It constructs no driver and no engine; the server hands those in.
 */
export class SwitchboardCore implements ChannelDriverHost {
  readonly config: SwitchboardConfig;
  readonly bus: EventBus;
  readonly channels: ChannelRegistry;
  readonly applications: ApplicationRegistry;
  readonly playbacks: PlaybackManager;
  readonly bridges: BridgeRegistry;
  readonly recordings: RecordingManager;
  readonly sounds: SoundIndex;
  readonly system: SystemStatus;
  /** The other nodes of a cluster and who owns what (absent on a node of its own). */
  readonly cluster: ClusterView | undefined;
  /** The applications' event journals the nodes of a cluster share (absent on a node of its own). */
  readonly applicationJournal: ApplicationJournalStore | undefined;
  /** Channels of other nodes joining this node's bridges (absent on a node of its own). */
  readonly clusterMedia: ClusterMediaLegs | undefined;
  readonly dialplanRunner: DialplanRunner;
  readonly globals: Map<string, string>;
  readonly media: MediaEngine;
  readonly endpoints: EndpointRegistry;
  readonly textMessages: TextMessageService;
  /** REFER outside a call, sent by the driver of the technology. */
  readonly refers = new ReferService();
  readonly deviceStates: DeviceStateRegistry;
  readonly mailboxes: MailboxRegistry;
  readonly modules: ModuleRegistry;
  /** Undefined when the server was started without a log directory. */
  readonly logChannels: LogChannelRegistry | undefined;
  readonly dynamicConfig: DynamicConfig;
  /** Channels offered to several applications, first claim wins (AppBroadcast, POST /events/claim). */
  readonly broadcasts: CallBroadcasts;
  /** The SIP objects in force (pjsip.conf and dynamic configuration); the SIP driver follows it. */
  readonly sipObjects: SipObjects;
  readonly globalVariables: GlobalVariables;
  readonly eventSources: EventSources;
  readonly subscriptions: SubscriptionService;
  readonly userEvents: UserEventService;
  /** Mute, hold, music on hold, silence, ringback and DTMF of channels; media notifications → channel events. */
  readonly channelMedia: ChannelMediaControl;
  readonly channelVariables: ChannelVariableAccess;
  /** continue, move, redirect. */
  readonly channelFlow: ChannelFlowControl;
  /** originate, create, dial. */
  readonly originator: OriginateService;
  readonly snoops: SnoopService;
  readonly externalMedia: ExternalMediaService;
  /** Redirect and blind transfer of live channels to a dialplan location (the manager's actions). */
  readonly dialplanRedirect: DialplanRedirect;
  /** The manager's Atxfer: consultation with a dialplan target, then the target replaces the transferer. */
  readonly attendedTransfers: AttendedTransferService;
  /** Call detail records (cdr/): the engine and its batched writer. */
  readonly cdr: CdrService;
  /** MixMonitor/StopMixMonitor recordings of channels. */
  readonly mixMonitors: MixMonitorService;
  /** Conferences (ConfBridge) from confbridge.conf. */
  readonly conferences: ConfBridgeService;
  /** Voicemail (VoiceMail, VoiceMailMain) from voicemail.conf. */
  readonly voicemail: VoicemailService;
  /** Call queues (Queue and the member applications) from queues.conf. */
  readonly queues: QueueService;
  readonly #drivers = new Map<string, ChannelDriver>();
  #refusingNewCalls = false;
  readonly #log: Logger;
  readonly #ariReloadListeners = new Set<() => void>();
  readonly #bridgeMusic: BridgeMusic;
  /** Far-end transfer requests nothing else serves (made when first needed). */
  #transfers: ChannelTransferService | undefined;
  readonly #clock: Clock;
  #dialplan: Dialplan;
  readonly #running = new Set<Promise<void>>();
  readonly #dialplanOptions: DialplanOptions;

  constructor(options: CoreOptions) {
    this.#clock = options.clock ?? systemClock;
    const log = options.logger ?? silentLogger;
    this.#log = log;
    this.config = options.config;
    this.media = options.media;
    this.bus = new EventBus(log.child({ module: 'switchboard:core:bus' }));
    this.channels = new ChannelRegistry(this.bus, log.child({ module: 'switchboard:core:channel' }));
    // Before the applications' router subscribes to the bus: an object's directory row is queued
    // before any event naming it is sent to another node (cluster/object-ownership.ts).
    const clusterConfig = options.config.general.cluster;
    const directory = options.store?.clusterDirectory;
    this.cluster =
      clusterConfig && directory
        ? new ObjectOwnership(
            clusterConfig,
            options.config.general.systemName,
            directory,
            this.bus,
            log.child({ module: 'switchboard:core:cluster' }),
          )
        : undefined;
    this.applications = new ApplicationRegistry(this.bus, log.child({ module: 'switchboard:core:applications' }));
    if (options.store?.applicationClaims) this.applications.shareNamesThrough(options.store.applicationClaims);
    if (this.cluster && options.store?.applicationSubscriptions) {
      this.applications.shareSubscriptionsThrough(options.store.applicationSubscriptions, this.cluster.nodeName);
    }
    this.applicationJournal = this.cluster ? options.store?.applicationJournal : undefined;
    if (this.applicationJournal) {
      this.applications.shareJournalThrough(this.applicationJournal, () => ({
        windowMs: this.config.ari.resumeWindowSeconds * 1000,
        maxEvents: this.config.ari.resumeMaxEvents,
      }));
    }
    this.sounds = new SoundIndex(
      options.config.general.soundDirs,
      options.config.general.defaultLanguage,
      log.child({ module: 'switchboard:core:sounds' }),
    );
    this.recordings = new RecordingManager({
      bus: this.bus,
      media: options.media,
      stored: new StoredRecordings(options.config.general.recordingDir),
      formats: options.recordingFormats,
      log: log.child({ module: 'switchboard:core:recordings' }),
      clock: options.clock ?? systemClock,
    });
    this.playbacks = new PlaybackManager({
      bus: this.bus,
      media: options.media,
      sounds: this.sounds,
      log: log.child({ module: 'switchboard:core:playback' }),
      clock: options.clock ?? systemClock,
      tones: new ToneResolver(options.config.indications),
      recordingFile: (name) => this.recordings.stored.playableFile(name),
      toneZoneOf: (channel) => channelToneZone(channel, this.config.sip.endpoints),
    });
    const bridgeMusic = new BridgeMusic({
      config: options.config.musicOnHold,
      confDir: options.config.confDir,
      media: options.media,
      log: log.child({ module: 'switchboard:core:moh' }),
    });
    this.#bridgeMusic = bridgeMusic;
    this.bridges = new BridgeRegistry({
      bus: this.bus,
      media: options.media,
      applications: this.applications,
      channels: this.channels,
      music: bridgeMusic,
      log: log.child({ module: 'switchboard:core:bridges' }),
    });
    const ownEntry = clusterConfig?.nodes.find((n) => n.name === options.config.general.systemName);
    this.clusterMedia =
      this.cluster && ownEntry
        ? new ClusterMediaLegs({
            nodeName: ownEntry.name,
            address: new URL(ownEntry.ari).hostname,
            peers: this.cluster.peers,
            channels: this.channels,
            bridges: this.bridges,
            applications: this.applications,
            media: options.media,
            bus: this.bus,
            log: log.child({ module: 'switchboard:core:cluster' }),
          })
        : undefined;
    watchWorkerFailures({
      media: options.media,
      channels: this.channels,
      bridges: this.bridges,
      log: log.child({ module: 'switchboard:core:media' }),
    });
    this.system = new SystemStatus(() => this.config);
    this.globals = new Map(Object.entries(options.config.dialplan.globals));
    this.#dialplanOptions = options.dialplanClock ? { now: options.dialplanClock } : {};
    this.#dialplan = new Dialplan(options.config.dialplan, this.#dialplanOptions);
    this.dialplanRunner = new DialplanRunner({
      dialplan: () => this.#dialplan,
      text: { expand, splitArgs },
      applications: this.applications,
      playbacks: this.playbacks,
      globals: this.globals,
      log: log.child({ module: 'switchboard:core:dialplan' }),
    });
    this.broadcasts = new CallBroadcasts(this.bus, this.applications);
    for (const name of BROADCAST_APPLICATION_NAMES)
      this.dialplanRunner.registerApplication(name, createBroadcastApplication(this.broadcasts));
    const channelServices = createChannelServices({
      config: () => this.config,
      bus: this.bus,
      media: this.media,
      channels: this.channels,
      applications: this.applications,
      dialplanRunner: this.dialplanRunner,
      globals: this.globals,
      clock: options.clock ?? systemClock,
      log,
      driverFor: (technology) => this.driverFor(technology),
      track: (work) => this.#track(work),
      offerTransfer: (channel, request) => this.#offerTransfer(channel, request),
      ...(options.mediaStreams !== undefined ? { mediaStreams: options.mediaStreams } : {}),
    });
    this.channelMedia = channelServices.channelMedia;
    this.channelVariables = channelServices.channelVariables;
    this.channelFlow = channelServices.channelFlow;
    this.originator = channelServices.originator;
    this.snoops = channelServices.snoops;
    this.externalMedia = channelServices.externalMedia;
    this.attendedTransfers = new AttendedTransferService({
      bus: this.bus,
      bridges: this.bridges,
      originator: this.originator,
      log: log.child({ module: 'switchboard:core:atxfer' }),
    });
    this.dialplanRedirect = new DialplanRedirect({
      bus: this.bus,
      applications: this.applications,
      bridges: this.bridges,
      dialplanRunner: this.dialplanRunner,
      track: (work) => this.#track(work),
    });
    // Local is part of the object model, not a network technology: core provides it itself.
    this.registerDriver(new LocalChannelDriver(this, this.media, log.child({ module: 'switchboard:core:local' })));
    const store = options.store;
    this.endpoints = new EndpointRegistry(this.bus, this.channels);
    this.endpoints.publishChannelChangesWhen((technology, resource) => this.applications.wantsEndpoint(technology, resource));
    for (const endpoint of options.config.sip.endpoints) this.endpoints.add('SIP', endpoint.name);
    this.textMessages = new TextMessageService(this.bus, this.endpoints);
    this.deviceStates = new DeviceStateRegistry({
      bus: this.bus,
      channels: this.channels,
      endpoints: this.endpoints,
      store: store?.deviceStates,
    });
    if (this.cluster && clusterConfig && store?.nodeLiveness) {
      watchNodeFailures({
        liveness: store.nodeLiveness,
        nodeName: this.cluster.nodeName,
        timeoutMs: clusterConfig.nodeTimeoutMs,
        legs: this.clusterMedia,
        deviceStates: this.deviceStates,
        log: log.child({ module: 'switchboard:core:cluster' }),
      });
    }
    this.modules = new ModuleRegistry(log.child({ module: 'switchboard:core:modules' }));
    this.mailboxes = new MailboxRegistry({
      store: store?.mailboxes,
      enabled: () => this.modules.isLoaded(MAILBOX_MODULE),
      log: log.child({ module: 'switchboard:core:mailboxes' }),
    });
    this.logChannels =
      options.logDirectory === undefined
        ? undefined
        : new LogChannelRegistry(options.logDirectory, log.child({ module: 'switchboard:core:logging' }));
    this.#applyLoggerConfig();
    this.dynamicConfig = new DynamicConfig({
      store: store?.configObjects,
      sip: () => this.config.sip,
      log: log.child({ module: 'switchboard:core:config' }),
    });
    this.dynamicConfig.onChange(({ configClass, objectType, id, fields }) => {
      if (configClass !== 'res_pjsip' || objectType !== 'endpoint') return;
      if (fields) this.endpoints.add('SIP', id);
      else this.endpoints.remove('SIP', id);
    });
    this.sipObjects = new SipObjects({
      confDir: this.config.confDir,
      dynamicConfig: this.dynamicConfig,
      log: log.child({ module: 'switchboard:core:config' }),
      fileConfig: () => this.config.sip,
      setFileConfig: (sip) => this.#replaceFileSipConfig(sip),
    });
    this.globalVariables = new GlobalVariables(this.bus, store?.globals, this.globals);
    this.eventSources = new EventSources(this.channels, this.endpoints);
    this.eventSources.setBridgeLookup((id) => this.bridges.get(id)?.snapshot());
    this.subscriptions = new SubscriptionService(this.applications, this.eventSources, this.cluster);
    this.userEvents = new UserEventService(this.bus, this.applications, this.eventSources);
    installDialplanLanguage({
      runner: this.dialplanRunner,
      bus: this.bus,
      media: this.media,
      channelMedia: this.channelMedia,
      recordings: this.recordings,
      channels: this.channels,
      endpointDeviceState: (name) => this.deviceStates.endpointDeviceState(name)?.state,
      hintDevices: (context, exten) => this.hintDevices(context, exten),
      ...(store?.astdb ? { astdb: store.astdb } : {}),
      ...(options.dialplanClock ? { now: options.dialplanClock } : {}),
      textMessages: this.textMessages,
      bridges: this.bridges,
      endpoints: () => this.config.sip.endpoints,
      defaultLanguage: options.config.general.defaultLanguage,
      log: log.child({ module: 'switchboard:core:dialplan' }),
    });
    this.cdr = installCdr({
      bus: this.bus,
      runner: this.dialplanRunner,
      confDir: options.config.confDir,
      store: store?.cdr,
      logDirectory: options.logDirectory,
      endpoints: () => this.config.sip.endpoints,
      log: log.child({ module: 'switchboard:core:cdr' }),
    });
    this.mixMonitors = installMixMonitor({
      runner: this.dialplanRunner,
      bus: this.bus,
      media: this.media,
      recordings: this.recordings,
      isBridged: (channelId) => this.bridges.bridgeOf(channelId) !== undefined,
      log: log.child({ module: 'switchboard:core:mixmonitor' }),
    });
    const confBridgeConfig = readConfBridgeConfig(options.config.confDir, log.child({ module: 'switchboard:core:confbridge' }));
    this.conferences = installConfBridge({
      runner: this.dialplanRunner,
      bus: this.bus,
      bridges: this.bridges,
      playbacks: this.playbacks,
      media: this.media,
      recordings: this.recordings,
      moh: {
        start: (channel, mohClass) => this.channelMedia.startMoh(channel, mohClass),
        stop: (channel) => this.channelMedia.stopMoh(channel),
      },
      config: () => confBridgeConfig,
      defaultLanguage: options.config.general.defaultLanguage,
      log: log.child({ module: 'switchboard:core:confbridge' }),
    });
    const voicemailLog = log.child({ module: 'switchboard:core:voicemail' });
    const voicemailConfig = readVoicemailConfig(options.config.confDir, voicemailLog);
    this.voicemail = installVoicemail({
      runner: this.dialplanRunner,
      config: () => voicemailConfig,
      store: store?.voicemail ?? new MemoryVoicemailStore(),
      mailboxes: this.mailboxes,
      bus: this.bus,
      recordingRoot: this.recordings.stored.root,
      configFile: resolve(options.config.confDir, VOICEMAIL_CONFIG_FILE),
      log: voicemailLog,
    });
    const queueLog = log.child({ module: 'switchboard:core:queue' });
    const queuesConfig = readQueuesConfig(options.config.confDir, queueLog);
    this.queues = installQueues({
      runner: this.dialplanRunner,
      config: () => queuesConfig,
      store: store?.queues ?? new MemoryQueueStore(),
      bus: this.bus,
      deviceState: (device) => this.dialplanRunner.pbx.deviceState?.(device) ?? 'UNKNOWN',
      ...(options.logDirectory === undefined ? {} : { logFile: join(options.logDirectory, 'queue_log') }),
      log: queueLog,
    });
    const logChannels = this.logChannels;
    defineBuiltinModules(this.modules, {
      applicationCount: () => this.applications.list().length,
      channelCount: (technology) => this.channels.list().filter((c) => technology === undefined || c.technology === technology).length,
      mailboxListenerCount: () => this.mailboxes.listenerCount,
      reloadDialplan: () => this.reloadDialplan(),
      reloadAri: () => this.#reloadAri(),
      reloadMusicOnHold: () => this.#reloadMusicOnHold(),
      reloadWebSocketChannel: () => {
        this.config.websocketChannel = loadWebSocketChannelConfig(this.config.confDir, this.#log);
        this.system.lastReloadAt = new Date();
      },
      reloadSip: async () => {
        await this.sipObjects.reloadFile();
      },
      ...(logChannels ? { reloadLogger: () => this.#applyLoggerConfig() } : {}),
      mailboxesLoaded: () => this.mailboxes.announceAll(),
    });
  }

  /** Reads logger.conf into the log channels (startup and `logger reload`). */
  #applyLoggerConfig(): void {
    if (!this.logChannels) return;
    const loggerConfig = readLoggerConfig(this.config.confDir);
    for (const problem of loggerConfig.problems) this.#log.warn({ problem }, 'logger.conf option ignored');
    this.logChannels.applyConfig(loggerConfig.files, loggerConfig.rotateStrategy);
  }

  /**
   * Loads what the store keeps (global variables set through the API, endpoints created through
   * dynamic configuration). The server awaits it once after construction, before serving.
   */
  async restore(): Promise<void> {
    await this.globalVariables.restore();
    await this.voicemail.publishAll();
    for (const object of await this.dynamicConfig.stored('res_pjsip', 'endpoint')) this.endpoints.add('SIP', object.id);
  }

  /** The dialplan in force (after the last reload), as configured. */
  get dialplan(): DialplanConfig {
    return this.#dialplan.config;
  }

  /**
   * Reports unknown applications and functions of the dialplan with file and line; the server
   * calls it once every driver has registered its applications (Dial), and reload calls it again.
   */
  checkDialplan(): number {
    return this.dialplanRunner.checkAndReport();
  }

  /** The devices of the dialplan hint for `exten` seen from `context` (what busy lamps follow), if any. */
  hintDevices(context: string, exten: string): readonly string[] | undefined {
    return this.#dialplan.hintDevices(context, exten);
  }

  /**
   * Re-reads extensions.conf and swaps the dialplan; channels already running keep the steps they
   * are on and continue in the new dialplan. A file that cannot be parsed leaves the old one.
   */
  /** pjsip.conf was reread: its endpoints are listed, the ones it dropped are not (stored ones stay). */
  #replaceFileSipConfig(sip: SipConfig): void {
    const before = new Set(this.config.sip.endpoints.map((e) => e.name));
    this.config.sip = sip;
    for (const endpoint of sip.endpoints) if (!before.delete(endpoint.name)) this.endpoints.add('SIP', endpoint.name);
    for (const gone of before) this.endpoints.remove('SIP', gone);
  }

  /** musiconhold.conf again: its classes apply to music on hold started from now on. */
  #reloadMusicOnHold(): void {
    const next = loadMusicOnHoldConfig(this.config.confDir, this.#log);
    this.config.musicOnHold = next;
    this.#bridgeMusic.useConfig(next);
    this.system.lastReloadAt = new Date();
  }

  /**
   * Called after ari.conf was read again (`module reload res_ari`), with the new configuration in
   * force: the API follows its outbound WebSocket connections. Returns the unsubscribe function.
   */
  onAriReloaded(listener: () => void): () => void {
    this.#ariReloadListeners.add(listener);
    return () => this.#ariReloadListeners.delete(listener);
  }

  /**
   * ari.conf again: users (passwords, read_only, dialect) apply to the next request or connection,
   * channelvars to channels created from now on, outbound WebSockets at once (their listeners);
   * `enabled` and the HTTP listener change at restart.
   */
  #reloadAri(): void {
    const next = loadAriConfig(this.config.confDir, this.#log);
    const ari = this.config.ari;
    ari.outboundWebsockets = next.outboundWebsockets;
    ari.users = next.users;
    ari.dialect = next.dialect;
    ari.allowedOrigins = next.allowedOrigins;
    ari.websocketWriteTimeoutMs = next.websocketWriteTimeoutMs;
    // In place: channel services hold this list.
    ari.channelVars.splice(0, ari.channelVars.length, ...next.channelVars);
    this.system.lastReloadAt = new Date();
    for (const listener of this.#ariReloadListeners) {
      try {
        listener();
      } catch (err) {
        this.#log.error({ err }, 'an ari.conf reload listener failed');
      }
    }
  }

  reloadDialplan(): void {
    const dialplan = loadDialplanConfig(this.config.confDir, this.#log);
    this.#dialplan = new Dialplan(dialplan, this.#dialplanOptions);
    for (const [name, value] of Object.entries(dialplan.globals)) this.globals.set(name, value);
    this.system.lastReloadAt = new Date();
    this.#log.info({ contexts: dialplan.contexts.length }, 'dialplan reloaded');
    this.dialplanRunner.checkAndReport();
  }

  #track(work: Promise<void>): void {
    const guarded = work.catch((err: unknown) => this.#log.error({ err }, 'channel work failed'));
    this.#running.add(guarded);
    void guarded.finally(() => this.#running.delete(guarded));
  }

  registerDriver(driver: ChannelDriver): void {
    for (const name of [driver.technology, ...driver.aliases]) this.#drivers.set(name.toUpperCase(), driver);
  }

  driverFor(technology: string): ChannelDriver | undefined {
    return this.#drivers.get(technology.toUpperCase());
  }

  /**
   * `core stop gracefully`: from now on a new inbound call is refused (the driver answers it 503,
   * SIP) while the calls in progress go on.
   */
  refuseNewCalls(): void {
    this.#refusingNewCalls = true;
  }

  get refusingNewCalls(): boolean {
    return this.#refusingNewCalls;
  }

  acceptInbound(call: InboundCall): ChannelTechnologyEvents {
    if (this.#refusingNewCalls) throw new CoreError('unavailable', 'the server is stopping: no new calls');
    const { channel, events } = this.#createInbound(call);
    this.#startDialplan(channel, call.context, call.exten);
    return events;
  }

  acceptReplacement(call: InboundCall, replaced: ChannelTechnology): ReplacementCall {
    return acceptReplacement(
      {
        channels: this.channels,
        applications: this.applications,
        bridges: this.bridges,
        dialplanRunner: this.dialplanRunner,
        log: this.#log,
        createInbound: (inbound) => this.#createInbound(inbound),
      },
      call,
      replaced,
    );
  }

  #createInbound(call: InboundCall): { channel: Channel; events: ChannelTechnologyEvents } {
    const channel = this.channels.create({
      id: call.id,
      name: call.name,
      technology: call.technology,
      endpoint: call.endpoint,
      direction: 'inbound',
      state: 'Ring',
      caller: call.caller,
      language: call.language ?? this.config.general.defaultLanguage,
      dialplan: { context: call.context, exten: call.exten, priority: 1 },
      tech: call.tech,
      snapshotVariables: this.config.ari.channelVars,
    });
    const events: ChannelTechnologyEvents = {
      answered: () => channel.setState('Up'),
      ringing: () => channel.setState('Ringing'),
      held: (onHold) => this.channelMedia.remoteHold(channel, onHold),
      dtmf: (digit, durationMs) => this.channelMedia.remoteDtmf(channel, digit, durationMs),
      hungUp: (cause) => channel.remoteHangup(cause),
      transferRequested: (request) => this.#offerTransfer(channel, request),
    };
    return { channel, events };
  }

  #offerTransfer(channel: Channel, request: TransferRequestInfo): TransferDecision {
    this.#transfers ??= new ChannelTransferService({
      bus: this.bus,
      bridges: this.bridges,
      channels: this.channels,
      applications: this.applications,
      dialplanRunner: this.dialplanRunner,
      driverFor: (technology) => this.driverFor(technology),
      snapshotVariables: () => this.config.ari.channelVars,
      clock: this.#clock,
      log: this.#log.child({ module: 'switchboard:core:transfer' }),
    });
    return this.#transfers.requested(channel, request);
  }

  #startDialplan(channel: Channel, context: string, exten: string): void {
    if (!this.#dialplan.findPriority(context, exten, 1)) {
      this.#log.info({ channel: channel.name, context, exten }, 'no such extension');
      void channel.hangup(CAUSE_UNALLOCATED);
      return;
    }
    const run = this.dialplanRunner.run(channel, { context, exten, priority: 1 });
    this.#running.add(run);
    void run.finally(() => this.#running.delete(run));
  }

  /** Hangs up every channel and waits for their dialplans to end. */
  async shutdown(): Promise<void> {
    await Promise.allSettled(this.channels.list().map((c) => c.hangup(CAUSE_NORMAL_CLEARING)));
    await Promise.allSettled([...this.#running]);
    await this.cdr.flush();
    this.logChannels?.close();
  }
}
