/**
 * Which files a music-on-hold class plays on a channel: the class's directory from musiconhold.conf
 * (`mode = files`; the built-in default class when the file is absent). An unknown class plays the
 * default class, as bridges do and operators expect. The configuration is read on every start so
 * that a reload takes effect for the next music.
 */
import { DEFAULT_MUSIC_CLASS, defaultMusicOnHoldConfig, musicOnHoldFiles } from '../config/musiconhold-config.js';
import type { MusicOnHoldConfig } from '../config/types.js';

/** Absolute paths of the WAV files of a class, in play order; empty when the class has none. */
export type MohClassResolver = (mohClass: string) => string[];

/** The class played when none is named (musiconhold.conf `[default]`). */
export const DEFAULT_MOH_CLASS = DEFAULT_MUSIC_CLASS;

export function configuredMohResolver(musicOnHold: () => MusicOnHoldConfig | undefined, confDir: () => string): MohClassResolver {
  return (mohClass) => {
    const config = musicOnHold() ?? defaultMusicOnHoldConfig(confDir());
    const chosen = Object.hasOwn(config.classes, mohClass) ? config.classes[mohClass] : config.classes[DEFAULT_MUSIC_CLASS];
    return chosen ? musicOnHoldFiles(chosen) : [];
  };
}
