/**
 * Which files a music-on-hold class plays: the class's directory from musiconhold.conf
 * (`mode = files`), else `moh/<class>/` under the sound directories. The resolver is read on every
 * start so that a reloaded configuration takes effect for the next music.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { MusicOnHoldConfig } from '../config/types.js';

/** Absolute paths of the WAV files of a class, in play order; empty when the class has none. */
export type MohClassResolver = (mohClass: string) => string[];

/** The class played when none is named (musiconhold.conf `[default]`). */
export const DEFAULT_MOH_CLASS = 'default';

export function configuredMohResolver(
  musicOnHold: () => MusicOnHoldConfig | undefined,
  soundDirs: () => readonly string[],
): MohClassResolver {
  return (mohClass) => {
    // A class name is a section name, never a path.
    if (mohClass.length === 0 || /[/\\]|^\.\.?$/.test(mohClass)) return [];
    const configured = musicOnHold()?.classes[mohClass];
    if (configured) {
      const files = wavFiles(configured.directory);
      return configured.sort === 'random' ? shuffled(files) : files;
    }
    for (const root of soundDirs()) {
      const files = wavFiles(join(root, 'moh', mohClass));
      if (files.length > 0) return files;
    }
    return [];
  };
}

function wavFiles(dir: string): string[] {
  if (!existsSync(dir) || !statSync(dir).isDirectory()) return [];
  return readdirSync(dir)
    .filter((name) => name.toLowerCase().endsWith('.wav'))
    .sort()
    .map((name) => join(dir, name));
}

function shuffled<T>(items: T[]): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [copy[i], copy[j]] = [copy[j] as T, copy[i] as T];
  }
  return copy;
}
