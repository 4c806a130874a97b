import { readdirSync, statSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import { notFound } from '../errors.js';
import type { SoundSnapshot } from '../model/snapshots.js';
import type { Logger } from '../util/logger.js';

const MUSIC_ON_HOLD_DIR = 'moh';

/** File extensions we recognise as sounds, and the format name each one stands for. */
const FORMAT_BY_EXTENSION: Record<string, string> = {
  '.wav': 'wav',
  '.ulaw': 'ulaw',
  '.alaw': 'alaw',
  '.gsm': 'gsm',
  '.g722': 'g722',
  '.sln': 'slin',
  '.sln16': 'slin16',
};

/** Formats the media engine can play today, in preference order. */
const PLAYABLE_FORMATS = ['wav'];

const MAX_SCAN_DEPTH = 6;

interface SoundFile {
  language: string;
  format: string;
  path: string;
}

/**
 * An index of every sound directory: `<dir>/<language>/<id>.<ext>`, ids may contain `/`
 * (`digits/1`). Earlier directories win when the same id, language and format exist twice.
 */
export class SoundIndex {
  readonly #sounds = new Map<string, SoundFile[]>();
  readonly #dirs: readonly string[];
  readonly #defaultLanguage: string;
  readonly #log: Logger;

  constructor(dirs: readonly string[], defaultLanguage: string, log: Logger) {
    this.#dirs = dirs;
    this.#defaultLanguage = defaultLanguage;
    this.#log = log;
    this.rescan();
  }

  rescan(): void {
    this.#sounds.clear();
    for (const dir of this.#dirs) {
      let languages: string[];
      try {
        // `moh/` holds music-on-hold classes (musiconhold.conf), not a language of prompts.
        languages = readdirSync(dir).filter((name) => name !== MUSIC_ON_HOLD_DIR && isDirectory(join(dir, name)));
      } catch (err) {
        this.#log.warn({ dir, err: (err as Error).message }, 'sound directory not readable');
        continue;
      }
      let prompts = 0;
      for (const language of languages) prompts += this.#scan(join(dir, language), join(dir, language), language, 0);
      this.#log.info({ directory: dir, languages, prompts }, 'sound directory');
    }
    this.#log.info({ sounds: this.#sounds.size, dirs: this.#dirs }, 'sounds indexed');
  }

  /** Indexes one language tree; returns how many sound files it holds. */
  #scan(root: string, dir: string, language: string, depth: number): number {
    if (depth > MAX_SCAN_DEPTH) return 0;
    let count = 0;
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (isDirectory(path)) {
        count += this.#scan(root, path, language, depth + 1);
        continue;
      }
      const format = FORMAT_BY_EXTENSION[extname(name).toLowerCase()];
      if (!format) continue;
      count++;
      const id = relative(root, path).slice(0, -extname(name).length).split(sep).join('/');
      const files = this.#sounds.get(id) ?? [];
      if (!files.some((f) => f.language === language && f.format === format)) files.push({ language, format, path });
      this.#sounds.set(id, files);
    }
    return count;
  }

  list(filter: { lang?: string; format?: string } = {}): SoundSnapshot[] {
    const found: SoundSnapshot[] = [];
    for (const [id, files] of this.#sounds) {
      const matching = files.filter(
        (f) => (filter.lang === undefined || f.language === filter.lang) && (filter.format === undefined || f.format === filter.format),
      );
      if (matching.length > 0) found.push(toSnapshot(id, files));
    }
    return found.sort((a, b) => a.id.localeCompare(b.id));
  }

  get(id: string): SoundSnapshot {
    const files = this.#sounds.get(id);
    if (!files) throw notFound('Sound not found');
    return toSnapshot(id, files);
  }

  /**
   * The file to play for a sound in a language: that language first, then the default language,
   * then any language; within one language, the formats the engine plays, in preference order.
   */
  resolve(id: string, language: string): string | undefined {
    const files = this.#sounds.get(id);
    if (!files) return undefined;
    for (const lang of [language, this.#defaultLanguage]) {
      for (const format of PLAYABLE_FORMATS) {
        const file = files.find((f) => f.language === lang && f.format === format);
        if (file) return file.path;
      }
    }
    return files.find((f) => PLAYABLE_FORMATS.includes(f.format))?.path;
  }
}

function toSnapshot(id: string, files: SoundFile[]): SoundSnapshot {
  return { id, formats: files.map((f) => ({ language: f.language, format: f.format })) };
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
