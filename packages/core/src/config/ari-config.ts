/**
 * ari.conf: the control API.
 *
 *   [general]   enabled, channelvars (comma list), allowed_origins (comma list),
 *               websocket_write_timeout (milliseconds, as in Asterisk),
 *               resume_window (seconds), resume_max_events (events per application)
 *   [name]      type = user, password, password_format = plain|crypt, read_only
 *   [name]      type = outbound_websocket (outbound-websocket-config.ts)
 *
 * Defaults (also when the file is missing): enabled = yes, no channel variables, no extra origins,
 * websocket_write_timeout = 100 ms, resume_window = 60 s, resume_max_events = 10000, and no users (so no client can authenticate until one is added).
 */
import { ConfigError } from '../errors.js';
import type { Logger } from '../util/logger.js';
import { type IniDocument, type IniSection, lastOption } from './ini.js';
import { applyOptions, warnUnsupportedSection } from './option-table.js';
import { readOutboundWebsocket } from './outbound-websocket-config.js';
import type { AriConfig, AriUser } from './types.js';
import { invalid, parseBool, parseInteger, splitList } from './values.js';

export function defaultAriConfig(): AriConfig {
  return {
    enabled: true,
    channelVars: [],
    allowedOrigins: [],
    users: [],
    websocketWriteTimeoutMs: 100,
    resumeWindowSeconds: 60,
    resumeMaxEvents: 10_000,
    outboundWebsockets: [],
  };
}

export function readAriConfig(doc: IniDocument | undefined, log: Logger): AriConfig {
  const config = defaultAriConfig();
  if (!doc) return config;
  for (const section of doc.sections) {
    if (section.isTemplate) continue;
    const type = lastOption(section, 'type');
    if (section.name === 'general' && !type) {
      readGeneral(section, config, log);
    } else if (!type) {
      warnUnsupportedSection(log, section);
    } else if (type.value.toLowerCase() === 'outbound_websocket') {
      const connection = readOutboundWebsocket(section, log);
      if (config.outboundWebsockets.some((c) => c.name === connection.name)) {
        throw new ConfigError(section.file, section.line, `outbound_websocket '${connection.name}' is defined twice`);
      }
      config.outboundWebsockets.push(connection);
    } else if (type.value.toLowerCase() === 'user') {
      const user = readUser(section, log);
      if (config.users.some((u) => u.name === user.name)) {
        throw new ConfigError(section.file, section.line, `user '${user.name}' is defined twice`);
      }
      config.users.push(user);
    } else {
      throw invalid(type, 'unknown type; ari.conf sections are [general], type = user or type = outbound_websocket');
    }
  }
  return config;
}

function readGeneral(section: IniSection, config: AriConfig, log: Logger): void {
  applyOptions({
    section,
    log,
    handlers: {
      enabled: (o) => {
        config.enabled = parseBool(o);
      },
      channelvars: (o) => {
        config.channelVars = splitList(o.value);
      },
      allowed_origins: (o) => {
        config.allowedOrigins = splitList(o.value);
      },
      websocket_write_timeout: (o) => {
        config.websocketWriteTimeoutMs = parseInteger(o, 1, 3_600_000);
      },
      resume_window: (o) => {
        config.resumeWindowSeconds = parseInteger(o, 0, 86_400);
      },
      resume_max_events: (o) => {
        config.resumeMaxEvents = parseInteger(o, 1, 1_000_000);
      },
    },
  });
}

function readUser(section: IniSection, log: Logger): AriUser {
  const user: AriUser = { name: section.name, password: '', passwordFormat: 'plain', readOnly: false };
  applyOptions({
    section,
    log,
    ignore: ['type'],
    handlers: {
      password: (o) => {
        user.password = o.value;
      },
      password_format: (o) => {
        const format = o.value.trim().toLowerCase();
        if (format !== 'plain' && format !== 'crypt') throw invalid(o, 'expected plain or crypt');
        user.passwordFormat = format;
      },
      read_only: (o) => {
        user.readOnly = parseBool(o);
      },
    },
  });
  // An empty password would let anyone in under this name.
  if (user.password === '') throw new ConfigError(section.file, section.line, `user '${user.name}' has no password`);
  return user;
}
