/**
 * switchboard.conf [store]: where state that outlives a restart is kept.
 *
 *   backend = sqlite      (default) one database file in the data directory
 *   backend = postgres    a PostgreSQL database shared by the nodes of a cluster
 *   url = postgres://user:password@host:port/database    (required with postgres)
 */
import { ConfigError } from '../errors.js';
import type { IniSection } from './ini.js';
import type { StoreConfig } from './types.js';
import { invalid, requireNonEmpty } from './values.js';
import type { Logger } from '../util/logger.js';
import { applyOptions } from './option-table.js';

export function readStoreConfig(section: IniSection, log: Logger): StoreConfig {
  let backend: StoreConfig['backend'] = 'sqlite';
  let url: string | undefined;
  applyOptions({
    section,
    log,
    handlers: {
      backend: (o) => {
        const value = o.value.trim().toLowerCase();
        if (value !== 'sqlite' && value !== 'postgres') throw invalid(o, 'expected sqlite or postgres');
        backend = value;
      },
      url: (o) => {
        const value = requireNonEmpty(o);
        if (!/^postgres(ql)?:\/\//.test(value)) throw invalid(o, 'expected a postgres:// or postgresql:// URL');
        url = value;
      },
    },
  });
  if (backend === 'sqlite') return { backend };
  if (url === undefined) throw new ConfigError(section.file, section.line, '[store] backend = postgres needs url = postgres://…');
  return { backend, url };
}
