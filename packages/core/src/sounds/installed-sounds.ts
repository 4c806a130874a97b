/**
 * The prompts shipped with the installation (`<install>/sounds`), found from this module's own
 * location, so that a conf/ copied elsewhere (where `sounds = ../sounds` points nowhere) still
 * plays them. They are searched after the configured directories, which win for the same prompt.
 */
import { existsSync, statSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** packages/core/dist/sounds/ → the repository (installation) root. */
export const INSTALLED_SOUNDS_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', '..', 'sounds');

function isDirectory(path: string): boolean {
  return existsSync(path) && statSync(path).isDirectory();
}

/** The configured sound directories followed by the installation's, when it exists and is not listed. */
export function withInstalledSounds(dirs: readonly string[]): string[] {
  const out = [...dirs];
  if (isDirectory(INSTALLED_SOUNDS_DIR) && !out.some((dir) => resolve(dir) === INSTALLED_SOUNDS_DIR)) out.push(INSTALLED_SOUNDS_DIR);
  return out;
}

/**
 * A music-on-hold directory that does not exist but names `…/sounds/moh/<class>` falls back to
 * the installation's class of that name.
 */
export function installedMohFallback(directory: string): string {
  if (isDirectory(directory)) return directory;
  const parent = dirname(directory);
  if (basename(parent) !== 'moh') return directory;
  const installed = join(INSTALLED_SOUNDS_DIR, 'moh', basename(directory));
  return isDirectory(installed) ? installed : directory;
}
