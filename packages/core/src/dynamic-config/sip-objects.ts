/**
 * The SIP objects in force: pjsip.conf's, plus the endpoints, aors, auths and identifies created
 * through dynamic configuration (kept in the store). The SIP driver runs on this merged set and
 * is told of every change: an object PUT through the API registers, is dialled and sends messages
 * at once, and again after a restart; `module reload res_pjsip` rereads pjsip.conf the same way.
 *
 * Stored objects are read by the same pjsip.conf reader as the file, as sections of their own, so
 * an object reads the same whichever way it was written. A stored object that cannot be used (a
 * reference to an auth that does not exist yet, a name pjsip.conf now defines) is left out with a
 * warning and comes in once it can be used.
 */
import { resolve } from 'node:path';
import { ConfigError } from '../errors.js';
import type { IniDocument, IniSection } from '../config/ini.js';
import { readIniFile } from '../config/ini-file.js';
import { readSipConfig } from '../config/pjsip-config.js';
import type { SipConfig } from '../config/types.js';
import type { ConfigObjectRecord } from '../store/types.js';
import type { Logger } from '../util/logger.js';
import type { DynamicConfig } from './dynamic-config.js';

/** The `file` of the sections made from stored objects (how a problem in one is told apart). */
export const DYNAMIC_CONFIG_SOURCE = 'dynamic configuration';
const SIP_CLASS = 'res_pjsip';
const SIP_OBJECT_TYPES = ['endpoint', 'aor', 'auth', 'identify'] as const;

export type SipConfigListener = (config: SipConfig) => void;

export interface SipObjectsOptions {
  readonly confDir: string;
  readonly dynamicConfig: Pick<DynamicConfig, 'stored' | 'onChange'>;
  readonly log: Logger;
  /** pjsip.conf as last read. */
  readonly fileConfig: () => SipConfig;
  /** Called with pjsip.conf as just reread (the rest of core keeps reading file objects from it). */
  readonly setFileConfig: (config: SipConfig) => void;
}

export class SipObjects {
  readonly #options: SipObjectsOptions;
  readonly #listeners = new Set<SipConfigListener>();
  /** pjsip.conf's sections as last read, for merging with stored objects. */
  #fileDoc: IniDocument | undefined;
  #fileDocRead = false;

  constructor(options: SipObjectsOptions) {
    this.#options = options;
    options.dynamicConfig.onChange(({ configClass }) => {
      if (configClass === SIP_CLASS) void this.#announce();
    });
  }

  onChange(listener: SipConfigListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** pjsip.conf's objects and the usable stored ones. */
  async effective(): Promise<SipConfig> {
    const stored: ConfigObjectRecord[] = [];
    for (const type of SIP_OBJECT_TYPES) stored.push(...(await this.#options.dynamicConfig.stored(SIP_CLASS, type)));
    const fileSections = this.#fileSections();
    let dynamic = stored.map(sectionOf);
    // Each round drops the stored object the reader refused; bounded by their number.
    const rounds = dynamic.length;
    for (let round = 0; round <= rounds; round++) {
      try {
        return readSipConfig(
          { file: this.#pjsipPath(), sections: [...fileSections, ...dynamic] },
          this.#options.confDir,
          this.#options.log,
        );
      } catch (err) {
        if (!(err instanceof ConfigError) || err.file !== DYNAMIC_CONFIG_SOURCE) throw err;
        const refused = dynamic.find((s) => s.line === err.line);
        if (!refused) throw err;
        this.#options.log.warn({ object: refused.name, reason: err.message }, 'stored SIP object left out until it can be used');
        dynamic = dynamic.filter((s) => s !== refused);
      }
    }
    return this.#options.fileConfig();
  }

  /**
   * Rereads pjsip.conf (module reload res_pjsip). A file that cannot be used throws ConfigError and
   * changes nothing; otherwise the new objects are in force for new requests, and calls in progress
   * keep the objects they started with. Transports and outbound registrations change at restart.
   */
  async reloadFile(): Promise<SipConfig> {
    const path = this.#pjsipPath();
    const doc = readIniFile(path);
    const fileConfig = readSipConfig(doc, this.#options.confDir, this.#options.log);
    this.#fileDoc = doc;
    this.#fileDocRead = true;
    this.#options.setFileConfig(fileConfig);
    const config = await this.effective();
    this.#tell(config);
    return config;
  }

  #pjsipPath(): string {
    return resolve(this.#options.confDir, 'pjsip.conf');
  }

  #fileSections(): IniSection[] {
    if (!this.#fileDocRead) {
      this.#fileDoc = readIniFile(this.#pjsipPath());
      this.#fileDocRead = true;
    }
    return this.#fileDoc?.sections ?? [];
  }

  async #announce(): Promise<void> {
    try {
      this.#tell(await this.effective());
    } catch (err) {
      this.#options.log.error({ err }, 'SIP objects could not be recomputed');
    }
  }

  #tell(config: SipConfig): void {
    for (const listener of this.#listeners) {
      try {
        listener(config);
      } catch (err) {
        this.#options.log.error({ err }, 'SIP configuration listener failed');
      }
    }
  }
}

let nextLine = 1;

/** A stored object as the pjsip.conf section an operator would have written; `line` tells them apart. */
function sectionOf(record: ConfigObjectRecord): IniSection {
  const line = nextLine++;
  return {
    name: record.id,
    isTemplate: false,
    templates: [],
    file: DYNAMIC_CONFIG_SOURCE,
    line,
    options: record.fields.map((field) => ({
      key: field.attribute.toLowerCase(),
      rawKey: field.attribute,
      value: field.value,
      arrow: false,
      file: DYNAMIC_CONFIG_SOURCE,
      line,
    })),
  };
}
