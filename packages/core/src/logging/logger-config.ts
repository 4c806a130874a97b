/**
 * logger.conf `[logfiles]`: `name => levels` lines, each a log channel (`console` is standard
 * output, anything else a file in the log directory). Read at startup and when the logger module
 * is reloaded.
 */
import { resolve } from 'node:path';
import { readIniFile } from '../config/ini-file.js';
import type { IniFileSource } from '../config/ini.js';
import { diskFileSource } from '../config/ini-file.js';
import { isRotateStrategy, type RotateStrategy } from './rotate-strategy.js';

export const LOGGER_CONFIG_FILE = 'logger.conf';

export interface LogFileEntry {
  name: string;
  configuration: string;
  file: string;
  line: number;
}

export function readLogFiles(confDir: string, source: IniFileSource = diskFileSource): LogFileEntry[] {
  return readLoggerConfig(confDir, source).files;
}

export interface LoggerConfig {
  files: LogFileEntry[];
  /** `[general] rotatestrategy`; an unknown value falls back to the default (and is reported in `problems`). */
  rotateStrategy: RotateStrategy;
  problems: string[];
}

/** The whole of logger.conf: `[logfiles]` and the `[general]` options we implement. */
export function readLoggerConfig(confDir: string, source: IniFileSource = diskFileSource): LoggerConfig {
  const doc = readIniFile(resolve(confDir, LOGGER_CONFIG_FILE), source);
  const section = (name: string) => doc?.sections.find((s) => s.name.toLowerCase() === name);
  const files = (section('logfiles')?.options ?? []).map((o) => ({ name: o.rawKey, configuration: o.value, file: o.file, line: o.line }));
  const problems: string[] = [];
  let rotateStrategy: RotateStrategy = 'sequential';
  for (const option of section('general')?.options ?? []) {
    if (option.rawKey.toLowerCase() !== 'rotatestrategy') continue;
    const value = option.value.trim().toLowerCase();
    if (isRotateStrategy(value)) rotateStrategy = value;
    else problems.push(`${option.file}:${option.line}: unknown rotatestrategy '${option.value}'`);
  }
  return { files, rotateStrategy, problems };
}
