import os from 'node:os';
import type { SwitchboardConfig } from './config/types.js';
import { formatWireDate } from './util/time.js';

export const SWITCHBOARD_VERSION = '0.1.0';

export type InfoSection = 'build' | 'system' | 'config' | 'status';
export const INFO_SECTIONS: readonly InfoSection[] = ['build', 'system', 'config', 'status'];

export interface SystemInfo {
  build?: { os: string; kernel: string; options: string; machine: string; date: string; user: string };
  system?: { version: string; entity_id: string };
  config?: {
    name: string;
    default_language: string;
    max_channels?: number;
    max_open_files?: number;
    max_load?: number;
    setid: { user: string; group: string };
  };
  status?: { startup_time: string; last_reload_time: string };
}

export interface SystemPing {
  asterisk_id: string;
  ping: 'pong';
  timestamp: string;
}

/** Server-level facts shown by the `system` resource. */
export class SystemStatus {
  readonly startedAt = new Date();
  lastReloadAt = new Date();
  readonly #config: () => SwitchboardConfig;

  constructor(config: () => SwitchboardConfig) {
    this.#config = config;
  }

  get entityId(): string {
    return this.#config().general.entityId;
  }

  /** `only` limits the sections; absent means all of them. */
  info(only: readonly InfoSection[] = INFO_SECTIONS): SystemInfo {
    const config = this.#config();
    const info: SystemInfo = {};
    if (only.includes('build')) {
      info.build = {
        os: os.type(),
        kernel: os.release(),
        options: '',
        machine: os.machine(),
        date: formatWireDate(this.startedAt),
        user: safeUsername(),
      };
    }
    if (only.includes('system')) info.system = { version: SWITCHBOARD_VERSION, entity_id: config.general.entityId };
    if (only.includes('config')) {
      // Numeric limits of 0 mean "unlimited" and are omitted (SPEC §2.9).
      info.config = {
        name: config.general.systemName,
        default_language: config.general.defaultLanguage,
        setid: { user: safeUsername(), group: String(process.getgid?.() ?? '') },
      };
    }
    if (only.includes('status')) {
      info.status = { startup_time: formatWireDate(this.startedAt), last_reload_time: formatWireDate(this.lastReloadAt) };
    }
    return info;
  }

  ping(): SystemPing {
    return { asterisk_id: this.entityId, ping: 'pong', timestamp: formatWireDate(new Date()) };
  }
}

function safeUsername(): string {
  try {
    return os.userInfo().username;
  } catch {
    return '';
  }
}
