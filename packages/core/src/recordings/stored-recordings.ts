/**
 * Stored recordings: the finished files under the recording directory (SPEC §4.7). A recording's
 * name is its path relative to that directory without the extension; the extension is its format.
 * Names reach the disk only through recordingFile() (recording-paths.ts).
 */
import { constants, copyFileSync, existsSync, mkdirSync, readdirSync, realpathSync, statSync, unlinkSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { conflict, notFound } from '../errors.js';
import type { StoredRecordingSnapshot } from '../model/snapshots.js';
import { recordingFile, resolvesWithin } from './recording-paths.js';

/** Extensions we show as recordings: what the media engine writes and what operators keep beside it. */
export const STORED_RECORDING_FORMATS = ['wav', 'ulaw', 'alaw', 'sln', 'g722', 'ogg', 'mp3', 'gsm', 'sln16', 'wav16'] as const;

export interface StoredRecordingFile {
  name: string;
  format: string;
  path: string;
}

export class StoredRecordings {
  readonly root: string;

  constructor(root: string) {
    this.root = resolve(root);
  }

  /** Every stored recording, sub-directories included; one entry per name (its first format). */
  list(): StoredRecordingSnapshot[] {
    const found = new Map<string, StoredRecordingSnapshot>();
    for (const file of this.#walk(this.root)) {
      const rel = relative(this.root, file).split(sep).join('/');
      const dot = rel.lastIndexOf('.');
      if (dot <= 0 || rel.lastIndexOf('/') > dot) continue;
      const format = rel.slice(dot + 1);
      if (!isStoredFormat(format)) continue;
      const name = rel.slice(0, dot);
      if (!found.has(name)) found.set(name, { name, format });
    }
    return [...found.values()].sort((a, b) => a.name.localeCompare(b.name));
  }

  /** The file of a stored recording, or undefined; a name that would escape is simply not found. */
  find(name: string): StoredRecordingFile | undefined {
    for (const format of STORED_RECORDING_FORMATS) {
      const path = recordingFile(this.root, name, format, 'not_found');
      if (existsSync(path) && statSync(path).isFile()) return { name, format, path };
    }
    return undefined;
  }

  require(name: string): StoredRecordingFile {
    const file = this.find(name);
    if (!file) throw notFound('Recording not found');
    return file;
  }

  get(name: string): StoredRecordingSnapshot {
    const { format } = this.require(name);
    return { name, format };
  }

  /** Removes every format of the recording. */
  delete(name: string): void {
    this.require(name);
    for (const format of STORED_RECORDING_FORMATS) {
      const path = recordingFile(this.root, name, format, 'not_found');
      if (existsSync(path)) unlinkSync(path);
    }
  }

  /** Copies to another name in the same directory tree; a taken destination is a conflict. */
  copy(name: string, destination: string): StoredRecordingSnapshot {
    const source = this.require(name);
    const target = recordingFile(this.root, destination, source.format, 'invalid_argument');
    if (this.find(destination)) throw conflict('A recording with the same name already exists on the system');
    mkdirSync(dirname(target), { recursive: true });
    copyFileSync(source.path, target, constants.COPYFILE_EXCL);
    return { name: destination, format: source.format };
  }

  /** Whether `<name>.<format>` exists (the name is already checked by the caller's recordingFile). */
  exists(name: string, format: string): boolean {
    return existsSync(recordingFile(this.root, name, format));
  }

  /** A WAV file that a `recording:` URI can play, or undefined. */
  playableFile(name: string): string | undefined {
    try {
      const path = recordingFile(this.root, name, 'wav', 'not_found');
      return existsSync(path) ? path : undefined;
    } catch {
      return undefined;
    }
  }

  *#walk(dir: string, seen = new Set<string>()): Generator<string> {
    if (!existsSync(dir)) return;
    // A directory symlink pointing back up the tree would otherwise be walked forever.
    const real = realpathSync(dir);
    if (seen.has(real)) return;
    seen.add(real);
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (entry.name.startsWith('.')) continue;
      const path = join(dir, entry.name);
      // A symlink is followed only when it stays inside the recording directory.
      if (entry.isSymbolicLink() && !resolvesWithin(this.root, path)) continue;
      const stat = statSync(path, { throwIfNoEntry: false });
      if (stat?.isDirectory()) yield* this.#walk(path, seen);
      else if (stat?.isFile()) yield path;
    }
  }
}

export function isStoredFormat(format: string): boolean {
  return (STORED_RECORDING_FORMATS as readonly string[]).includes(format);
}

/** Content-Type of a stored file, as the reference builds it: `audio/<extension>`. */
export function recordingContentType(format: string): string {
  return isStoredFormat(format) ? `audio/${format}` : `binary/${format}`;
}
