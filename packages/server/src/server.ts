import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';
import { createApiServer } from '@switchboard/api';
import {
  type LogSinkRelay,
  type Logger,
  type MediaEngine as MediaEngineSurface,
  SwitchboardCore,
  loadConfig,
  openStore,
} from '@switchboard/core';
import { MediaEngine, supportedRecordingFormats } from '@switchboard/media';
import { SipDriver } from '@switchboard/signalling';
import { watchEventLoop } from './event-loop-watch.js';
import { endpointStatusFor, registerDial, registerSipServices, sipServicesFor } from './sip-wiring.js';

export interface ListeningAddress {
  service: 'http' | 'sip';
  protocol: string;
  address: string;
  port: number;
}

export interface RunningServer {
  core: SwitchboardCore;
  addresses: ListeningAddress[];
  /** Hangs up live calls, closes sockets, flushes the store. Safe to call twice. */
  stop(): Promise<void>;
}

/** One per spare core, at least one: the main thread keeps a core for signalling and the API. */
export function defaultMediaWorkers(): number {
  return Math.max(1, availableParallelism() - 1);
}

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
}): Promise<RunningServer> {
  const log = options.logger;
  const config = loadConfig(resolve(options.confDir), log.child({ module: 'switchboard:config' }));
  const store = openStore(resolve(options.dataDir), log.child({ module: 'switchboard:store' }));
  const cleanups: (() => Promise<void> | void)[] = [() => store.close(), watchEventLoop(log.child({ module: 'switchboard:loop' }))];
  const stopAll = async () => {
    for (const cleanup of cleanups.splice(0).reverse()) {
      try {
        await cleanup();
      } catch (err) {
        log.error({ err }, 'shutdown step failed');
      }
    }
  };
  try {
    const media = new MediaEngine({
      rtpStart: config.rtp.rtpStart,
      rtpEnd: config.rtp.rtpEnd,
      workers: config.general.mediaWorkers > 0 ? config.general.mediaWorkers : defaultMediaWorkers(),
      logger: log.child({ module: 'switchboard:media' }),
    });
    await media.start();
    cleanups.push(() => media.close());

    const engine: MediaEngineSurface = media;
    const core = new SwitchboardCore({
      config,
      media: engine,
      store,
      logger: log,
      recordingFormats: supportedRecordingFormats(),
      logDirectory: join(resolve(options.dataDir), 'log'),
    });
    await core.restore();
    if (options.logSink) options.logSink.target = core.logChannels;
    cleanups.push(() => core.shutdown());

    const addresses: ListeningAddress[] = [];
    if (config.http.enabled && config.ari.enabled) {
      const api = createApiServer(core, { logger: log.child({ module: 'switchboard:api' }) });
      const bound = await api.listen(config.http.bindAddress, config.http.bindPort);
      cleanups.push(() => api.close());
      addresses.push({ service: 'http', protocol: 'tcp', address: bound.address, port: bound.port });
    }

    const sip = new SipDriver({
      config: config.sip,
      host: core,
      media: engine,
      contactStore: store.contacts,
      endpointStatus: endpointStatusFor(core),
      ...sipServicesFor(core),
      logger: log.child({ module: 'switchboard:signalling' }),
    });
    await sip.start();
    core.registerDriver(sip);
    registerDial(core);
    // Every application is registered now: report what the dialplan uses but the server lacks.
    core.checkDialplan();
    // Drivers close after the core has hung up every call, so the BYEs still go out.
    cleanups.splice(cleanups.length - 1, 0, () => sip.close());
    cleanups.push(registerSipServices(core, sip));
    for (const l of sip.listening()) addresses.push({ service: 'sip', protocol: l.protocol, address: l.address, port: l.port });

    for (const a of addresses) log.info({ ...a }, `listening: ${a.service} ${a.protocol} ${a.address}:${a.port}`);
    return { core, addresses, stop: stopAll };
  } catch (err) {
    await stopAll();
    throw err;
  }
}
