/**
 * http.conf [general]: the built-in HTTP server that serves the control API.
 *
 * Defaults (also when the file is missing): enabled = yes, bindaddr = 127.0.0.1, bindport = 8088,
 * prefix = none. Unlike Asterisk (where the server is off unless enabled), the API is the point of
 * this server, so it is on by default and bound to loopback until an operator opens it.
 * `prefix` is normalised to '' or '/name' (no trailing slash), so routes are `${prefix}/ari/...`.
 *
 * Connection limits (Asterisk's names where it has the option, defaults in DEFAULT_HTTP_LIMITS):
 *   sessionlimit = 500                 connections at once
 *   sessionlimit_per_address = 50      connections at once from one address
 *   session_keep_alive = 15000         ms a connection may idle between requests
 *   session_inactivity = 30000         ms without any traffic before a connection (not an events
 *                                      WebSocket, which has its own pings) is closed
 *   header_timeout = 10000             ms to receive a request's headers
 *   request_timeout = 30000            ms to receive a whole request, body included
 */
import type { Logger } from '../util/logger.js';
import type { IniDocument } from './ini.js';
import { applyOptions, warnUnsupportedSection } from './option-table.js';
import type { HttpConfig, HttpLimits } from './types.js';
import { invalid, parseBool, parseHost, parseInteger, parsePort } from './values.js';

export const DEFAULT_HTTP_LIMITS: Readonly<HttpLimits> = Object.freeze({
  maxConnections: 500,
  maxConnectionsPerAddress: 50,
  keepAliveTimeoutMs: 15_000,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  inactivityTimeoutMs: 30_000,
});

export function defaultHttpConfig(): HttpConfig {
  return { enabled: true, bindAddress: '127.0.0.1', bindPort: 8088, prefix: '', limits: { ...DEFAULT_HTTP_LIMITS } };
}

export function readHttpConfig(doc: IniDocument | undefined, log: Logger): HttpConfig {
  const config = defaultHttpConfig();
  const limits = config.limits as HttpLimits;
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
        sessionlimit: (o) => {
          limits.maxConnections = parseInteger(o, 1, 1_000_000);
        },
        sessionlimit_per_address: (o) => {
          limits.maxConnectionsPerAddress = parseInteger(o, 1, 1_000_000);
        },
        session_keep_alive: (o) => {
          limits.keepAliveTimeoutMs = parseInteger(o, 1, 3_600_000);
        },
        session_inactivity: (o) => {
          limits.inactivityTimeoutMs = parseInteger(o, 1, 3_600_000);
        },
        header_timeout: (o) => {
          limits.headersTimeoutMs = parseInteger(o, 1, 3_600_000);
        },
        request_timeout: (o) => {
          limits.requestTimeoutMs = parseInteger(o, 1, 3_600_000);
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
