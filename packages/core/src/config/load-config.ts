/**
 * Reads the conf directory into a SwitchboardConfig. Each file is optional; a missing one means
 * its defaults (each reader documents its own):
 *
 *   switchboard.conf  systemname = host name, entityid = derived from the machine, defaultlanguage = en,
 *                     mediaworkers = 0, sounds = <confDir>/../sounds, recordings = <confDir>/../recordings
 *   http.conf         enabled, 127.0.0.1:8088, no prefix
 *   ari.conf          enabled, no channelvars, websocket_write_timeout = 100 ms, no users
 *   pjsip.conf        no transports or endpoints (nothing listens for SIP)
 *   rtp.conf          ports 10000-20000
 *   extensions.conf   no contexts, no globals
 *   indications.conf  country = us with the US tones
 *   musiconhold.conf  class `default` playing <confDir>/../sounds/moh
 *   acl.conf          no named ACLs
 *   features.conf     the original's feature codes (blindxfer #, disconnect *, automixmon *1)
 *
 * An option we do not implement is a warning; a file that cannot be parsed, or a value that is
 * invalid for an option we do implement, throws ConfigError naming the file and line.
 */
import { resolve } from 'node:path';
import { parseDialplan } from '../dialplan/parse-extensions.js';
import { type Logger, silentLogger } from '../util/logger.js';
import { readAclConfig } from './acl-config.js';
import { readAriConfig } from './ari-config.js';
import { readFeaturesConfig } from './features-config.js';
import { readGeneralConfig } from './general-config.js';
import { readHttpConfig } from './http-config.js';
import { readIndicationsConfig } from './indications-config.js';
import { readMusicOnHoldConfig } from './musiconhold-config.js';
import type { IniFileSource } from './ini.js';
import { diskFileSource, readIniFile } from './ini-file.js';
import { readSipConfig } from './pjsip-config.js';
import { readRtpConfig } from './rtp-config.js';
import { readWebSocketChannelConfig } from './websocket-channel-config.js';
import type { AriConfig, DialplanConfig, MusicOnHoldConfig, SwitchboardConfig, WebSocketChannelConfig } from './types.js';

export const CONFIG_FILES = {
  general: 'switchboard.conf',
  http: 'http.conf',
  ari: 'ari.conf',
  sip: 'pjsip.conf',
  rtp: 'rtp.conf',
  dialplan: 'extensions.conf',
  indications: 'indications.conf',
  musicOnHold: 'musiconhold.conf',
  acl: 'acl.conf',
  features: 'features.conf',
  websocketChannel: 'chan_websocket.conf',
} as const;

export function loadConfig(confDir: string, log: Logger = silentLogger, source: IniFileSource = diskFileSource): SwitchboardConfig {
  const dir = resolve(confDir);
  const configLog = log.child({ module: 'switchboard:core:config' });
  const read = (name: string) => {
    const path = resolve(dir, name);
    const doc = readIniFile(path, source);
    if (doc) configLog.debug({ file: path }, 'read configuration file');
    else configLog.info({ file: path }, 'configuration file not found; using defaults');
    return doc;
  };

  const config: SwitchboardConfig = {
    confDir: dir,
    general: readGeneralConfig(read(CONFIG_FILES.general), dir, configLog),
    http: readHttpConfig(read(CONFIG_FILES.http), configLog),
    ari: readAriConfig(read(CONFIG_FILES.ari), configLog, readAclConfig(read(CONFIG_FILES.acl), configLog)),
    sip: readSipConfig(read(CONFIG_FILES.sip), dir, configLog),
    rtp: readRtpConfig(read(CONFIG_FILES.rtp), configLog),
    dialplan: parseDialplan(read(CONFIG_FILES.dialplan), configLog.child({ module: 'switchboard:core:dialplan' })),
    indications: readIndicationsConfig(read(CONFIG_FILES.indications), configLog),
    musicOnHold: readMusicOnHoldConfig(read(CONFIG_FILES.musicOnHold), dir, configLog),
    features: readFeaturesConfig(read(CONFIG_FILES.features), configLog),
    websocketChannel: readWebSocketChannelConfig(read(CONFIG_FILES.websocketChannel), configLog),
  };
  warnAboutMissingContexts(config, configLog);
  return config;
}

/**
 * An endpoint whose context is not in extensions.conf can still be driven by the API, so this is
 * not fatal; but its inbound calls will all fail, which an operator wants to hear at startup.
 */
function warnAboutMissingContexts(config: SwitchboardConfig, log: Logger): void {
  const contexts = new Set(config.dialplan.contexts.map((c) => c.name));
  for (const endpoint of config.sip.endpoints) {
    if (!contexts.has(endpoint.context)) {
      log.warn(
        { endpoint: endpoint.name, context: endpoint.context },
        `endpoint '${endpoint.name}' uses context '${endpoint.context}', which extensions.conf does not define`,
      );
    }
  }
}

/** Reads only extensions.conf, for a dialplan reload without touching the rest. */
/** chan_websocket.conf alone (module reload chan_websocket). */
export function loadWebSocketChannelConfig(
  confDir: string,
  log: Logger = silentLogger,
  source: IniFileSource = diskFileSource,
): WebSocketChannelConfig {
  return readWebSocketChannelConfig(
    readIniFile(resolve(confDir, CONFIG_FILES.websocketChannel), source),
    log.child({ module: 'switchboard:core:config' }),
  );
}

/** ari.conf alone (module reload res_ari). */
export function loadAriConfig(confDir: string, log: Logger = silentLogger, source: IniFileSource = diskFileSource): AriConfig {
  return readAriConfig(readIniFile(resolve(confDir, CONFIG_FILES.ari), source), log.child({ module: 'switchboard:core:config' }));
}

/** musiconhold.conf alone (module reload res_musiconhold). */
export function loadMusicOnHoldConfig(
  confDir: string,
  log: Logger = silentLogger,
  source: IniFileSource = diskFileSource,
): MusicOnHoldConfig {
  const dir = resolve(confDir);
  return readMusicOnHoldConfig(
    readIniFile(resolve(dir, CONFIG_FILES.musicOnHold), source),
    dir,
    log.child({ module: 'switchboard:core:config' }),
  );
}

export function loadDialplanConfig(confDir: string, log: Logger = silentLogger, source: IniFileSource = diskFileSource): DialplanConfig {
  const path = resolve(confDir, CONFIG_FILES.dialplan);
  return parseDialplan(readIniFile(path, source), log.child({ module: 'switchboard:core:dialplan' }));
}
