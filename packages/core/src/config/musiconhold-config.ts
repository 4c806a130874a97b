/**
 * musiconhold.conf: music-on-hold classes. Each section is a class:
 *
 *   [default]
 *   mode = files            only `files` is implemented: the WAV files of a directory, in turn
 *   directory = ../sounds/moh   relative directories resolve against the conf directory
 *   sort = alpha            `alpha` (default) or `random` order of the files
 *
 * Defaults (also when the file is missing): one class `default` playing <confDir>/../sounds/moh/default
 * (the `moh/<class>/` layout under the sound directory that channel music on hold also knows).
 * A class in a mode we do not implement is skipped with a warning, like any unsupported option.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { installedMohFallback } from '../sounds/installed-sounds.js';
import type { Logger } from '../util/logger.js';
import type { IniDocument } from './ini.js';
import { applyOptions, warnUnsupported } from './option-table.js';
import type { MusicOnHoldClass, MusicOnHoldConfig } from './types.js';
import { invalid, requireNonEmpty } from './values.js';

/** The class played when a request names none. */
export const DEFAULT_MUSIC_CLASS = 'default';

export function defaultMusicOnHoldConfig(confDir: string): MusicOnHoldConfig {
  const directory = resolve(confDir, '..', 'sounds', 'moh', DEFAULT_MUSIC_CLASS);
  return { classes: { [DEFAULT_MUSIC_CLASS]: { name: DEFAULT_MUSIC_CLASS, directory, sort: 'alpha' } } };
}

/** The WAV files of a class in play order (alphabetical, or shuffled for `sort = random`). */
export function musicOnHoldFiles(mohClass: MusicOnHoldClass): string[] {
  const directory = installedMohFallback(mohClass.directory);
  if (!existsSync(directory) || !statSync(directory).isDirectory()) return [];
  const files = readdirSync(directory)
    .filter((f) => f.toLowerCase().endsWith('.wav'))
    .sort()
    .map((f) => join(directory, f));
  if (mohClass.sort === 'random') {
    for (let i = files.length - 1; i > 0; i--) {
      const j = Math.floor(Math.random() * (i + 1));
      [files[i], files[j]] = [files[j], files[i]];
    }
  }
  return files;
}

/** Class name → files, for whatever plays music on hold (bridges, channels); unknown classes have none. */
export function musicOnHoldClassFiles(config: MusicOnHoldConfig): (mohClass: string) => string[] {
  return (name) => {
    const found = Object.hasOwn(config.classes, name) ? config.classes[name] : undefined;
    return found ? musicOnHoldFiles(found) : [];
  };
}

export function readMusicOnHoldConfig(doc: IniDocument | undefined, confDir: string, log: Logger): MusicOnHoldConfig {
  if (!doc) return defaultMusicOnHoldConfig(confDir);
  const config: MusicOnHoldConfig = { classes: {} };
  for (const section of doc.sections) {
    if (section.isTemplate || section.name === 'general') continue;
    const moh: MusicOnHoldClass = { name: section.name, directory: '', sort: 'alpha' };
    let mode = 'files';
    applyOptions({
      section,
      log,
      handlers: {
        mode: (o) => {
          mode = o.value.trim().toLowerCase();
        },
        directory: (o) => {
          moh.directory = resolve(confDir, requireNonEmpty(o));
        },
        sort: (o) => {
          const value = o.value.trim().toLowerCase();
          if (value === 'alpha' || value === 'random') moh.sort = value;
          else if (value === 'randstart') moh.sort = 'random';
          else throw invalid(o, "sort must be 'alpha' or 'random'");
        },
      },
    });
    if (mode !== 'files') {
      const where = section.options.find((o) => o.key === 'mode');
      if (where) warnUnsupported(log, { ...where, rawKey: `mode=${mode}` }, section.name);
      continue;
    }
    if (moh.directory === '') {
      log.warn({ file: section.file, line: section.line }, `musiconhold class [${section.name}] has no directory; skipped`);
      continue;
    }
    config.classes[section.name] = moh;
  }
  return config;
}
