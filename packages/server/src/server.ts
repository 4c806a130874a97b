import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import { createApiServer, type ReadinessReport } from '@switchboard/api';
import {
  type LogSinkRelay,
  type Logger,
  type MediaEngine as MediaEngineSurface,
  SwitchboardCore,
  loadConfig,
  openConfiguredStore,
} from '@switchboard/core';
import { loadManagerConfig, ManagerServer } from '@switchboard/manager';
import { MediaEngine, MediaStreamGateway, supportedRecordingFormats } from '@switchboard/media';
import { clusterNonceSecret, loadOrCreateDtlsIdentity, SipDriver } from '@switchboard/signalling';
import { Registry } from 'prom-client';
import { type ConsoleCommands, createConsoleCommands } from './console/index.js';
import { CONTROL_SOCKET_NAME } from './console/control-protocol.js';
import { ControlSocketServer } from './console/control-socket.js';
import { watchEventLoop } from './event-loop-watch.js';
import { applyHighPriority } from './high-priority.js';
import type { LogRouter } from './logging/log-router.js';
import { SipTrace } from './logging/sip-trace.js';
import { logCallProgress, Verbosity } from './logging/verbose-calls.js';
import { registerManagerMetrics } from './metrics/manager-metrics.js';
import { createServerMetrics, type ServerMetrics } from './metrics/metrics.js';
import { readPrometheusConfig } from './metrics/prometheus-config.js';
import { timedStore } from './metrics/store-metrics.js';
import { endpointStatusFor, registerDial, registerPage, registerSipServices, sipServicesFor } from './sip-wiring.js';

export interface ListeningAddress {
  service: 'http' | 'sip' | 'control' | 'manager';
  protocol: string;
  address: string;
  port: number;
}

export interface RunningServer {
  core: SwitchboardCore;
  /** Undefined when manager.conf does not enable it; its `counters` feed the metrics. */
  manager: ManagerServer | undefined;
  addresses: ListeningAddress[];
  /**
   * The console commands (`core show channels`, `pjsip show endpoints`, …) as one registry:
   * `run(line)` resolves to the text the original prints, `complete(partial)` lists completions.
   * The control socket uses it; hand it to any other surface that runs console commands.
   */
  consoleCommands: ConsoleCommands;
  metrics: ServerMetrics;
  /** Resolves when a console `core stop` asked the process to end. */
  stopRequested: Promise<'now' | 'gracefully'>;
  /** Hangs up live calls, closes sockets, flushes the store. Safe to call twice. */
  stop(): Promise<void>;
}

/** One per spare core, at least one: the main thread keeps a core for signalling and the API. */
export function defaultMediaWorkers(): number {
  return Math.max(1, availableParallelism() - 1);
}

/** How long a readiness probe waits for the media workers to answer. */
const WORKER_PROBE_MS = 1000;

/**
 * The composition root: the only place that constructs concrete engines and drivers and hands
 * them to the object model.
 */
export async function startServer(options: {
  confDir: string;
  dataDir: string;
  logger: Logger;
  /** Receives every log line for the log channels of `system/logging`, once the core exists. */
  logSink?: LogSinkRelay;
  /** Routes log lines to the console, the log channels and remote consoles (main.ts). */
  logRouter?: LogRouter;
  /** Initial `core set verbose` level. */
  verbose?: number;
  /** `-p`: realtime priority whatever switchboard.conf says. */
  highPriority?: boolean;
  /** The Unix control socket in the data directory (default on). */
  controlSocket?: boolean;
}): Promise<RunningServer> {
  const log = options.logger;
  // Watch the loop from the start: a stall while starting delays the first SIP answers too.
  const cleanups: (() => Promise<void> | void)[] = [watchEventLoop(log.child({ module: 'switchboard:loop' }))];
  const config = loadConfig(resolve(options.confDir), log.child({ module: 'switchboard:config' }));
  const prometheus = readPrometheusConfig(resolve(options.confDir));
  const dataDir = resolve(options.dataDir);
  const registry = new Registry();
  const rawStore = await openConfiguredStore(config.general.store, dataDir, log.child({ module: 'switchboard:store' }));
  const store = timedStore(rawStore, registry);
  cleanups.push(() => store.close());
  const stopAll = async () => {
    for (const cleanup of cleanups.splice(0).reverse()) {
      try {
        await cleanup();
      } catch (err) {
        log.error({ err }, 'shutdown step failed');
      }
    }
  };
  let requestStop: (mode: 'now' | 'gracefully') => void = () => {};
  const stopRequested = new Promise<'now' | 'gracefully'>((resolveStop) => {
    requestStop = resolveStop;
  });
  try {
    // Before the media workers start: they inherit the policy of the thread that starts them.
    if (options.highPriority === true || config.general.highPriority) applyHighPriority(log);
    const media = new MediaEngine({
      rtpStart: config.rtp.rtpStart,
      rtpEnd: config.rtp.rtpEnd,
      nativeSockets: config.rtp.nativeSockets,
      workers: config.general.mediaWorkers > 0 ? config.general.mediaWorkers : defaultMediaWorkers(),
      logger: log.child({ module: 'switchboard:media' }),
    });
    await media.start();
    cleanups.push(() => media.close());

    const engine: MediaEngineSurface = media;
    const logDirectory = join(dataDir, 'log');
    const mediaStreams = new MediaStreamGateway();
    cleanups.push(() => mediaStreams.shutdown());
    const core = new SwitchboardCore({
      config,
      media: engine,
      mediaStreams,
      store,
      logger: log,
      recordingFormats: supportedRecordingFormats(),
      logDirectory,
    });
    await core.restore();
    if (options.logSink) options.logSink.target = core.logChannels;
    const router = options.logRouter;
    const applyLoggerConfig = () => {
      if (!router) return;
      router.channels = core.logChannels;
      const levels = core.logChannels?.consoleLevels();
      if (levels) router.consoleLevels = levels;
    };
    applyLoggerConfig();
    const coreShutdown = () => core.shutdown();
    cleanups.push(coreShutdown);

    const verbosity = new Verbosity(options.verbose ?? 0);
    cleanups.push(logCallProgress(core.bus, verbosity, log.child({ module: 'switchboard:verbose' })));

    let sip: SipDriver | undefined;
    const metrics = createServerMetrics({
      registry,
      core,
      media,
      store,
      sipRegistrations: () => sip?.registrations() ?? [],
    });
    cleanups.push(() => metrics.stop());
    let manager: ManagerServer | undefined;
    registerManagerMetrics(registry, () => manager);

    const readiness = async (): Promise<ReadinessReport> => {
      const checks: Record<string, boolean> = {};
      checks.transports = sip !== undefined && sip.listening().length === config.sip.transports.length;
      try {
        await store.globals.get('readiness-probe');
        checks.store = true;
      } catch {
        checks.store = false;
      }
      try {
        const workers = await Promise.race([
          media.getWorkerStats(),
          new Promise<never>((_, reject) => setTimeout(() => reject(new Error('timeout')), WORKER_PROBE_MS).unref()),
        ]);
        checks.media_workers = workers.length > 0;
      } catch {
        checks.media_workers = false;
      }
      return { ready: Object.values(checks).every(Boolean), checks };
    };

    const addresses: ListeningAddress[] = [];
    if (config.http.enabled && config.ari.enabled) {
      const api = createApiServer(core, {
        logger: log.child({ module: 'switchboard:api' }),
        onRequestDone: (done) => metrics.requestDone(done),
        operator: {
          readiness,
          recentCdrs: (limit) => store.cdr.recent(limit),
          channelCodec: (channelId) => {
            const legId = core.channels.get(channelId)?.tech.mediaLegId;
            return legId === undefined ? undefined : media.legCodec(legId);
          },
          contacts: async () => {
            const now = Date.now();
            return (await store.contacts.all())
              .filter((c) => c.expiresAt > now)
              .map((c) => ({
                aor: c.aor,
                uri: c.uri,
                endpoint: c.endpoint ?? '',
                expires_in: Math.round((c.expiresAt - now) / 1000),
                user_agent: c.userAgent ?? '',
              }));
          },
          ...(prometheus.enabled
            ? { metrics: { path: prometheus.uri, render: () => metrics.render(), ...(prometheus.user ? { user: prometheus.user } : {}) } }
            : {}),
        },
      });
      const bound = await api.listen(config.http.bindAddress, config.http.bindPort);
      cleanups.push(() => api.close());
      addresses.push({ service: 'http', protocol: 'tcp', address: bound.address, port: bound.port });
    }

    // pjsip.conf and the SIP objects created through dynamic configuration, kept in step from now on.
    sip = new SipDriver({
      config: await core.sipObjects.effective(),
      host: core,
      media: engine,
      contactStore: store.contacts,
      // The nodes of a cluster share the nonce secret: a challenge from one node is answered on another.
      ...(config.general.cluster ? { digest: { sharedNonceSecret: clusterNonceSecret(config.general.cluster.secret) } } : {}),
      // Kept in the data directory: a browser that pinned our fingerprint sees the same one after a restart.
      dtlsCertificate: await loadOrCreateDtlsIdentity(join(dataDir, 'dtls')),
      endpointStatus: endpointStatusFor(core),
      ...sipServicesFor(core),
      logger: log.child({ module: 'switchboard:signalling' }),
    });
    const sipDriver = sip;
    await sipDriver.start();
    core.registerDriver(sipDriver);
    registerDial(core);
    registerPage(core);
    // Every application is registered now: report what the dialplan uses but the server lacks.
    core.checkDialplan();
    // Drivers close after the core has hung up every call, so the BYEs still go out.
    cleanups.splice(cleanups.indexOf(coreShutdown), 0, () => sipDriver.close());
    cleanups.push(registerSipServices(core, sipDriver));
    cleanups.push(core.sipObjects.onChange((objects) => sipDriver.applyConfig(objects)));
    for (const l of sipDriver.listening()) addresses.push({ service: 'sip', protocol: l.protocol, address: l.address, port: l.port });

    const knownUsers = new Set([...config.sip.endpoints.map((e) => e.name), ...config.sip.auths.map((a) => a.username)]);
    if (router) router.knownUser = (name) => knownUsers.has(name);

    const sipTrace = new SipTrace(log.child({ module: 'switchboard:signalling:trace' }));
    cleanups.push(() => sipTrace.disable());
    const controlSocketPath = join(dataDir, CONTROL_SOCKET_NAME);
    const consoleCommands = createConsoleCommands({
      core,
      sip: {
        listening: () => sipDriver.listening(),
        registrations: () => sipDriver.registrations(),
        contacts: () => store.contacts.all(),
      },
      sipTrace,
      verbosity,
      recentCdrs: (limit) => store.cdr.recent(limit),
      callsProcessed: () => metrics.inboundCalls(),
      paths: { conf: config.confDir, data: dataDir, log: logDirectory, controlSocket: controlSocketPath },
      stop: (mode) => {
        if (mode === 'now') {
          // After the console's answer has gone out.
          setTimeout(() => requestStop('now'), 100);
          return;
        }
        core.refuseNewCalls();
        const whenIdle = () => {
          if (core.channels.list().length > 0) return;
          unsubscribe();
          requestStop('gracefully');
        };
        const unsubscribe = core.bus.subscribe((event) => {
          if (event.type === 'ChannelDestroyed') setImmediate(whenIdle);
        });
        whenIdle();
      },
      reloadLogger: async () => {
        await core.modules.reload('logger');
        applyLoggerConfig();
      },
    });

    if (options.controlSocket !== false) {
      const control = new ControlSocketServer({
        path: controlSocketPath,
        commands: consoleCommands,
        logger: log.child({ module: 'switchboard:console' }),
      });
      await control.listen();
      cleanups.push(() => control.close());
      if (router) {
        router.remote = (text) => control.broadcastLog(text);
        cleanups.push(() => {
          router.remote = undefined;
        });
      }
      addresses.push({ service: 'control', protocol: 'unix', address: controlSocketPath, port: 0 });
    }

    const managerConfig = loadManagerConfig(resolve(options.confDir), log.child({ module: 'switchboard:manager' }));
    if (managerConfig.enabled) {
      manager = new ManagerServer({
        core,
        config: managerConfig,
        confDir: resolve(options.confDir),
        store,
        commands: consoleCommands,
        logger: log.child({ module: 'switchboard:manager' }),
      });
      const running = manager;
      // Sessions end before the core hangs up the calls at shutdown (cleanups run in reverse).
      cleanups.push(() => running.close());
      for (const bound of await manager.listen()) addresses.push({ service: 'manager', ...bound });
    }

    for (const a of addresses) log.info({ ...a }, `listening: ${a.service} ${a.protocol} ${a.address}:${a.port}`);
    return { core, manager, addresses, consoleCommands, metrics, stopRequested, stop: stopAll };
  } catch (err) {
    await stopAll();
    throw err;
  }
}
