/**
 * logger.conf `[logfiles]`: `name => levels` lines, each a log channel (`console` is standard
 * output, anything else a file in the log directory). Read at startup and when the logger module
 * is reloaded.
 */
import { resolve } from 'node:path';
import { readIniFile } from '../config/ini-file.js';
import type { IniFileSource } from '../config/ini.js';
import { diskFileSource } from '../config/ini-file.js';

export const LOGGER_CONFIG_FILE = 'logger.conf';

export interface LogFileEntry {
  name: string;
  configuration: string;
  file: string;
  line: number;
}

export function readLogFiles(confDir: string, source: IniFileSource = diskFileSource): LogFileEntry[] {
  const doc = readIniFile(resolve(confDir, LOGGER_CONFIG_FILE), source);
  const section = doc?.sections.find((s) => s.name.toLowerCase() === 'logfiles');
  return (section?.options ?? []).map((o) => ({ name: o.rawKey, configuration: o.value, file: o.file, line: o.line }));
}
