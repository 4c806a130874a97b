/**
 * switchboard.conf: server-wide options.
 *
 *   [options]      systemname, entityid, defaultlanguage, mediaworkers, highpriority
 *   [directories]  sounds (comma list, searched in order), recordings
 *   [store]        backend (sqlite | postgres), url (store-config.ts)
 *   [cluster]      secret, node = <name>, <api root> (cluster-config.ts)
 *
 * Defaults (also when the file is missing): systemname = the host name, entityid = derived from the
 * machine (see entity-id.ts), defaultlanguage = en, mediaworkers = 0 (one per spare core), highpriority = no,
 * sounds = <confDir>/../sounds, recordings = <confDir>/../recordings. Relative directories resolve
 * against the conf directory.
 */
import { withInstalledSounds } from '../sounds/installed-sounds.js';
import { hostname } from 'node:os';
import { resolve } from 'node:path';
import { ConfigError } from '../errors.js';
import type { Logger } from '../util/logger.js';
import { deriveEntityId, ENTITY_ID_PATTERN } from './entity-id.js';
import type { IniDocument } from './ini.js';
import { applyOptions, warnUnsupportedSection } from './option-table.js';
import { readStoreConfig } from './store-config.js';
import { readClusterConfig } from './cluster-config.js';
import type { GeneralConfig } from './types.js';
import { invalid, parseBool, parseInteger, requireNonEmpty, splitList } from './values.js';

export function defaultGeneralConfig(confDir: string): GeneralConfig {
  return {
    entityId: deriveEntityId(),
    systemName: hostname(),
    defaultLanguage: 'en',
    soundDirs: withInstalledSounds([resolve(confDir, '..', 'sounds')]),
    recordingDir: resolve(confDir, '..', 'recordings'),
    mediaWorkers: 0,
    highPriority: false,
    store: { backend: 'sqlite' },
  };
}

export function readGeneralConfig(doc: IniDocument | undefined, confDir: string, log: Logger): GeneralConfig {
  const config = defaultGeneralConfig(confDir);
  if (!doc) return config;
  for (const section of doc.sections) {
    if (section.isTemplate) continue;
    if (section.name === 'options') {
      applyOptions({
        section,
        log,
        handlers: {
          systemname: (o) => {
            config.systemName = requireNonEmpty(o);
          },
          entityid: (o) => {
            const id = o.value.trim().toLowerCase();
            if (!ENTITY_ID_PATTERN.test(id)) throw invalid(o, 'expected a MAC-style id such as 00:11:22:33:44:55');
            config.entityId = id;
          },
          defaultlanguage: (o) => {
            config.defaultLanguage = requireNonEmpty(o);
          },
          mediaworkers: (o) => {
            config.mediaWorkers = parseInteger(o, 0, 256);
          },
          highpriority: (o) => {
            config.highPriority = parseBool(o);
          },
        },
      });
    } else if (section.name === 'directories') {
      applyOptions({
        section,
        log,
        handlers: {
          sounds: (o) => {
            const dirs = splitList(o.value);
            if (dirs.length === 0) throw invalid(o, 'expected one or more directories');
            config.soundDirs = dirs.map((d) => resolve(confDir, d));
          },
          recordings: (o) => {
            config.recordingDir = resolve(confDir, requireNonEmpty(o));
          },
        },
      });
    } else if (section.name === 'store') {
      config.store = readStoreConfig(section, log);
    } else if (section.name === 'cluster') {
      config.cluster = readClusterConfig(section, log);
    } else {
      warnUnsupportedSection(log, section);
    }
  }
  if (config.cluster && config.store.backend !== 'postgres') {
    throw new ConfigError(doc.file, undefined, '[cluster] needs [store] backend = postgres (the nodes share it)');
  }
  // The installation's prompts are searched last, so a conf/ copied elsewhere still plays them.
  config.soundDirs = withInstalledSounds(config.soundDirs);
  return config;
}
