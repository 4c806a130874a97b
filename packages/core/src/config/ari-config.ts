/**
 * ari.conf: the control API.
 *
 *   [general]   enabled, channelvars (comma list), allowed_origins (comma list),
 *               websocket_write_timeout (milliseconds, as in Asterisk), auth_max_failures,
 *               auth_failure_window, auth_block_time, auth_max_global_failures (failed REST and
 *               events logins; see auth-limit-options.ts),
 *               resume_window (seconds), resume_max_events (events per application),
 *               dialect = switchboard|asterisk (the naming API users are served in)
 *   [name]      type = user, password, password_format = plain|crypt, read_only, dialect,
 *               acl = <names in acl.conf>, permit = <address range>, deny = <address range>
 *               (Asterisk's per-user ACL: a login from an address the rules refuse is a failed
 *               login; the named lists' rules come first, then the section's own, in order)
 *   [name]      type = outbound_websocket (outbound-websocket-config.ts)
 *
 * Defaults (also when the file is missing): enabled = yes, no channel variables, no extra origins,
 * websocket_write_timeout = 100 ms, resume_window = 60 s, resume_max_events = 10000,
 * dialect = switchboard, and no users (so no client can authenticate until one is added).
 */
import { ConfigError } from '../errors.js';
import type { Logger } from '../util/logger.js';
import { type IniDocument, type IniOption, type IniSection, lastOption } from './ini.js';
import type { AclRule } from '../security/address-acl.js';
import type { AuthFailureLimits } from '../security/auth-failure-limiter.js';
import { aclRuleHandlers, type NamedAcls, namedAclRules } from './acl-config.js';
import { authLimitHandlers } from './auth-limit-options.js';
import { applyOptions, warnUnsupportedSection } from './option-table.js';
import { readOutboundWebsocket } from './outbound-websocket-config.js';
import type { ApiDialect, AriConfig, AriUser } from './types.js';
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
    dialect: 'switchboard',
  };
}

export function readAriConfig(doc: IniDocument | undefined, log: Logger, acls: NamedAcls = new Map()): AriConfig {
  const config = defaultAriConfig();
  if (!doc) return config;
  // A user without its own `dialect` takes [general]'s, wherever [general] sits in the file.
  const ownDialect = new Map<AriUser, ApiDialect>();
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
      const user = readUser(section, log, acls, ownDialect);
      if (config.users.some((u) => u.name === user.name)) {
        throw new ConfigError(section.file, section.line, `user '${user.name}' is defined twice`);
      }
      config.users.push(user);
    } else {
      throw invalid(type, 'unknown type; ari.conf sections are [general], type = user or type = outbound_websocket');
    }
  }
  for (const user of config.users) user.dialect = ownDialect.get(user) ?? config.dialect;
  return config;
}

function readGeneral(section: IniSection, config: AriConfig, log: Logger): void {
  const loginLimits: Partial<AuthFailureLimits> = config.loginLimits ?? {};
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
      ...authLimitHandlers(loginLimits),
      dialect: (o) => {
        config.dialect = parseDialect(o);
      },
    },
  });
  if (Object.keys(loginLimits).length > 0) config.loginLimits = loginLimits;
}

function readUser(section: IniSection, log: Logger, acls: NamedAcls, ownDialect: Map<AriUser, ApiDialect>): AriUser {
  const user: AriUser = { name: section.name, password: '', passwordFormat: 'plain', readOnly: false, dialect: 'switchboard' };
  const named: AclRule[] = [];
  const own: AclRule[] = [];
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
      acl: (o) => {
        named.push(...namedAclRules(o, acls, section));
      },
      ...aclRuleHandlers(own),
      dialect: (o) => {
        ownDialect.set(user, parseDialect(o));
      },
    },
  });
  if (named.length + own.length > 0) user.acl = [...named, ...own];
  // An empty password would let anyone in under this name.
  if (user.password === '') throw new ConfigError(section.file, section.line, `user '${user.name}' has no password`);
  return user;
}

const DIALECTS: readonly ApiDialect[] = ['switchboard', 'asterisk'];

function parseDialect(option: IniOption): ApiDialect {
  const value = option.value.trim().toLowerCase();
  const dialect = DIALECTS.find((d) => d === value);
  if (!dialect) throw invalid(option, `expected ${DIALECTS.join(' or ')}`);
  return dialect;
}
