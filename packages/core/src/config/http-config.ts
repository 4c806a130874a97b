/**
 * http.conf [general]: the built-in HTTP server that serves the control API.
 *
 * Defaults (also when the file is missing): enabled = yes, bindaddr = 127.0.0.1, bindport = 8088,
 * prefix = none. Unlike Asterisk (where the server is off unless enabled), the API is the point of
 * this server, so it is on by default and bound to loopback until an operator opens it.
 * `prefix` is normalised to '' or '/name' (no trailing slash), so routes are `${prefix}/ari/...`.
 */
import type { Logger } from '../util/logger.js';
import type { IniDocument } from './ini.js';
import { applyOptions, warnUnsupportedSection } from './option-table.js';
import type { HttpConfig } from './types.js';
import { invalid, parseBool, parseHost, parsePort } from './values.js';

export function defaultHttpConfig(): HttpConfig {
  return { enabled: true, bindAddress: '127.0.0.1', bindPort: 8088, prefix: '' };
}

export function readHttpConfig(doc: IniDocument | undefined, log: Logger): HttpConfig {
  const config = defaultHttpConfig();
  if (!doc) return config;
  for (const section of doc.sections) {
    if (section.isTemplate) continue;
    if (section.name !== 'general') {
      warnUnsupportedSection(log, section);
      continue;
    }
    applyOptions({
      section,
      log,
      handlers: {
        enabled: (o) => {
          config.enabled = parseBool(o);
        },
        bindaddr: (o) => {
          config.bindAddress = parseHost(o);
        },
        bindport: (o) => {
          config.bindPort = parsePort(o);
        },
        prefix: (o) => {
          const trimmed = o.value.trim().replace(/^\/+|\/+$/g, '');
          if (!/^[A-Za-z0-9._~\-/]*$/.test(trimmed)) throw invalid(o, 'expected a URL path segment');
          config.prefix = trimmed === '' ? '' : `/${trimmed}`;
        },
      },
    });
  }
  return config;
}
