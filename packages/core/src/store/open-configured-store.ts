/**
 * Opens the store switchboard.conf [store] names: SQLite in the data directory (the default) or
 * a shared PostgreSQL database.
 */
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import type { StoreConfig } from '../config/types.js';
import type { Logger } from '../util/logger.js';
import { openPostgresStore } from './postgres/postgres-store.js';
import { openStore } from './sqlite-store.js';
import type { Store } from './types.js';

export async function openConfiguredStore(config: StoreConfig, dataDir: string, log: Logger): Promise<Store> {
  if (config.backend === 'sqlite') return openStore(dataDir, log);
  // The data directory still holds the node's own files (control socket, logs), so it must exist.
  mkdirSync(resolve(dataDir), { recursive: true });
  return openPostgresStore(config.url, log);
}
