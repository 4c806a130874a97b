/**
 * ari.conf `type = outbound_websocket` sections: connections Switchboard opens to an application
 * (the reference's ARI outbound WebSockets; the connection options carry the names of its
 * websocket_client.conf, written here in the same section).
 *
 *   [bots]
 *   type = outbound_websocket
 *   apps = bot1,bot2              ; applications served by the connection
 *   uri = wss://bots.example:8765/ari
 *   protocols = ari
 *   connection_type = persistent  ; or per_call_config: opened when a channel enters one of the
 *                                 ; apps, closed when the last such channel leaves
 *   username = ... / password = ...  ; HTTP Basic credentials sent to the application
 *   local_ari_user = switchboard  ; who REST-over-WebSocket requests on it run as
 *   subscribe_all = no
 *   connection_timeout = 500      ; ms
 *   reconnect_interval = 500      ; ms
 *   reconnect_attempts = 4        ; per_call_config: attempts before the call fails
 *   tls_enabled = no              ; wss:// also turns it on
 *   ca_list_file = /path/ca.pem
 *   verify_server_cert = yes
 *   verify_server_hostname = yes
 */
import { ConfigError } from '../errors.js';
import type { Logger } from '../util/logger.js';
import type { IniSection } from './ini.js';
import { applyOptions } from './option-table.js';
import type { OutboundWebsocketConfig } from './types.js';
import { invalid, parseBool, parseInteger, splitList } from './values.js';

export function readOutboundWebsocket(section: IniSection, log: Logger): OutboundWebsocketConfig {
  const config: OutboundWebsocketConfig = {
    name: section.name,
    apps: [],
    uri: '',
    protocols: ['ari'],
    connectionType: 'persistent',
    localAriUser: '',
    subscribeAll: false,
    connectionTimeoutMs: 500,
    reconnectIntervalMs: 500,
    reconnectAttempts: 4,
    tlsEnabled: false,
    verifyServerCert: true,
    verifyServerHostname: true,
  };
  applyOptions({
    section,
    log,
    ignore: ['type', 'websocket_client_id'],
    handlers: {
      apps: (o) => {
        config.apps = splitList(o.value);
      },
      uri: (o) => {
        if (!/^wss?:\/\/[^/\s]+/.test(o.value.trim())) throw invalid(o, 'expected a ws:// or wss:// URI');
        config.uri = o.value.trim();
      },
      protocols: (o) => {
        config.protocols = splitList(o.value);
      },
      connection_type: (o) => {
        const value = o.value.trim().toLowerCase();
        if (value !== 'persistent' && value !== 'per_call_config') throw invalid(o, 'expected persistent or per_call_config');
        config.connectionType = value;
      },
      username: (o) => {
        config.username = o.value;
      },
      password: (o) => {
        config.password = o.value;
      },
      local_ari_user: (o) => {
        config.localAriUser = o.value.trim();
      },
      subscribe_all: (o) => {
        config.subscribeAll = parseBool(o);
      },
      connection_timeout: (o) => {
        config.connectionTimeoutMs = parseInteger(o, 1, 600_000);
      },
      reconnect_interval: (o) => {
        config.reconnectIntervalMs = parseInteger(o, 1, 600_000);
      },
      reconnect_attempts: (o) => {
        config.reconnectAttempts = parseInteger(o, 0, 1_000_000);
      },
      tls_enabled: (o) => {
        config.tlsEnabled = parseBool(o);
      },
      ca_list_file: (o) => {
        config.caListFile = o.value.trim();
      },
      verify_server_cert: (o) => {
        config.verifyServerCert = parseBool(o);
      },
      verify_server_hostname: (o) => {
        config.verifyServerHostname = parseBool(o);
      },
    },
  });
  if (config.uri === '') throw new ConfigError(section.file, section.line, `outbound_websocket '${config.name}' has no uri`);
  if (config.apps.length === 0) throw new ConfigError(section.file, section.line, `outbound_websocket '${config.name}' serves no apps`);
  if (config.uri.startsWith('wss://')) config.tlsEnabled = true;
  return config;
}
