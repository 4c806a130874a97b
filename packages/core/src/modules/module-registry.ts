/**
 * The server's subsystems shown as modules (SPEC §4.3, reference system.md): each has a name, a
 * description, a use count and a support level, and says whether it can really be unloaded,
 * loaded again or reloaded. Errors follow the reference [7-a]: an unknown or unloaded module is
 * 404 for get/unload/reload, a load that cannot happen is 409, a missing capability is 409.
 */
import { conflict, notFound } from '../errors.js';
import type { Logger } from '../util/logger.js';

export type ModuleSupportLevel = 'core' | 'extended' | 'deprecated' | 'unknown';
export type ModuleStatus = 'Running' | 'Not Running';

export interface ModuleSnapshot {
  name: string;
  description: string;
  use_count: number;
  status: ModuleStatus;
  support_level: ModuleSupportLevel;
}

export interface ModuleDefinition {
  name: string;
  description: string;
  supportLevel: ModuleSupportLevel;
  /** How many users hold the module now (channels, applications, subscribers). */
  useCount?: () => number;
  /** Present when the module can be unloaded at run time and loaded again. */
  unload?: () => void | Promise<void>;
  load?: () => void | Promise<void>;
  /** Present when the module can re-read its configuration. */
  reload?: () => void | Promise<void>;
}

/** Clients written for the reference name modules as files (`res_pjsip.so`). */
const moduleKey = (name: string) => (name.endsWith('.so') ? name.slice(0, -3) : name);

export class ModuleRegistry {
  readonly #modules = new Map<string, { definition: ModuleDefinition; loaded: boolean }>();
  readonly #log: Logger;

  constructor(log: Logger) {
    this.#log = log;
  }

  define(definition: ModuleDefinition, loaded = true): void {
    this.#modules.set(moduleKey(definition.name), { definition, loaded });
  }

  isLoaded(name: string): boolean {
    return this.#modules.get(moduleKey(name))?.loaded ?? false;
  }

  /** The loaded modules, as the reference lists them. */
  list(): ModuleSnapshot[] {
    return [...this.#modules.values()].filter((m) => m.loaded).map((m) => snapshot(m.definition, m.loaded));
  }

  get(name: string): ModuleSnapshot {
    const entry = this.#loaded(name);
    return snapshot(entry.definition, entry.loaded);
  }

  async load(name: string): Promise<void> {
    const entry = this.#modules.get(moduleKey(name));
    if (!entry) throw conflict(`Module ${name} could not be loaded: no such module`);
    if (entry.loaded) throw conflict(`Module ${name} is already loaded`);
    if (!entry.definition.load) throw conflict(`Module ${name} cannot be loaded at run time`);
    await entry.definition.load();
    entry.loaded = true;
    this.#log.info({ module: entry.definition.name }, 'module loaded');
  }

  async unload(name: string): Promise<void> {
    const entry = this.#loaded(name);
    if (!entry.definition.unload) throw conflict(`Module ${entry.definition.name} cannot be unloaded`);
    await entry.definition.unload();
    entry.loaded = false;
    this.#log.info({ module: entry.definition.name }, 'module unloaded');
  }

  async reload(name: string): Promise<void> {
    const entry = this.#loaded(name);
    if (!entry.definition.reload) throw conflict(`Module ${entry.definition.name} does not support reload`);
    await entry.definition.reload();
    this.#log.info({ module: entry.definition.name }, 'module reloaded');
  }

  #loaded(name: string) {
    const entry = this.#modules.get(moduleKey(name));
    if (!entry?.loaded) throw notFound(`Module ${name} is not loaded`);
    return entry;
  }
}

function snapshot(definition: ModuleDefinition, loaded: boolean): ModuleSnapshot {
  return {
    name: definition.name,
    description: definition.description,
    use_count: definition.useCount?.() ?? 0,
    status: loaded ? 'Running' : 'Not Running',
    support_level: definition.supportLevel,
  };
}
