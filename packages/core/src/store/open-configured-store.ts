/**
 * Opens the store switchboard.conf [store] names: SQLite in the data directory (the default) or
 * a shared PostgreSQL database.
 */
import type { StoreConfig } from '../config/types.js';
import type { Logger } from '../util/logger.js';
import { openPostgresStore } from './postgres/postgres-store.js';
import { openStore } from './sqlite-store.js';
import type { Store } from './types.js';

export async function openConfiguredStore(config: StoreConfig, dataDir: string, log: Logger): Promise<Store> {
  return config.backend === 'postgres' ? openPostgresStore(config.url, log) : openStore(dataDir, log);
}
