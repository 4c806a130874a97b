/**
 * prometheus.conf, with the original's option names (res_prometheus):
 *
 *   [general]
 *   enabled = yes            ; /metrics is served (default yes)
 *   uri = metrics            ; the path under http.conf's prefix
 *   auth_username = scraper  ; both set: Basic authentication with this user alone
 *   auth_password = secret
 *
 * Without the file the endpoint is on, at /metrics, without credentials (it binds where the API
 * binds: 127.0.0.1 by default).
 */
import { join } from 'node:path';
import { ConfigError, readIniFile } from '@switchboard/core';

export interface PrometheusConfig {
  enabled: boolean;
  uri: string;
  user?: { name: string; password: string };
}

export function readPrometheusConfig(confDir: string): PrometheusConfig {
  const doc = readIniFile(join(confDir, 'prometheus.conf'));
  const general = doc?.sections.find((s) => s.name.toLowerCase() === 'general');
  const option = (key: string) => general?.options.find((o) => o.key === key);
  const enabledOption = option('enabled');
  const enabled = enabledOption === undefined ? true : /^(yes|true|on|1)$/i.test(enabledOption.value.trim());
  const uri = (option('uri')?.value.trim() ?? 'metrics').replace(/^\/+|\/+$/g, '');
  if (!/^[A-Za-z0-9._~/-]+$/.test(uri)) {
    const o = option('uri');
    throw new ConfigError(o?.file ?? 'prometheus.conf', o?.line, `uri '${uri}' is not a plain path`);
  }
  const name = option('auth_username')?.value.trim() ?? '';
  const password = option('auth_password')?.value.trim() ?? '';
  return { enabled, uri, ...(name !== '' && password !== '' ? { user: { name, password } } : {}) };
}
