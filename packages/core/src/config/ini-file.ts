/** Reads INI files from disk: the production file source for `parseIni`. */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { type IniDocument, type IniFileSource, parseIni } from './ini.js';

export const diskFileSource: IniFileSource = {
  readFile(path) {
    if (!existsSync(path) || !statSync(path).isFile()) return undefined;
    return readFileSync(path, 'utf8');
  },
  listDir(dir) {
    if (!existsSync(dir) || !statSync(dir).isDirectory()) return undefined;
    return readdirSync(dir);
  },
};

/** Parses a file from disk, or returns undefined when it does not exist (callers then use defaults). */
export function readIniFile(path: string, source: IniFileSource = diskFileSource): IniDocument | undefined {
  const text = source.readFile(path);
  if (text === undefined) return undefined;
  return parseIni(text, path, { source });
}
