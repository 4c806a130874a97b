/** Test doubles for the config and dialplan tests: a logger that records what it was told. */
import type { Logger } from '../util/logger.js';

export interface LogEntry {
  level: 'trace' | 'debug' | 'info' | 'warn' | 'error';
  obj: object | string;
  msg: string | undefined;
}

export interface RecordingLogger extends Logger {
  readonly entries: LogEntry[];
  /** Messages logged at `warn`. */
  warnings(): string[];
}

export function recordingLogger(entries: LogEntry[] = []): RecordingLogger {
  const record = (level: LogEntry['level']) => (obj: object | string, msg?: string) => {
    entries.push({ level, obj, msg });
  };
  return {
    entries,
    trace: record('trace'),
    debug: record('debug'),
    info: record('info'),
    warn: record('warn'),
    error: record('error'),
    child: () => recordingLogger(entries),
    warnings: () => entries.filter((e) => e.level === 'warn').map((e) => e.msg ?? String(e.obj)),
  };
}

/** An in-memory file source for parseIni/loadConfig: absolute path → text. */
export function memoryFiles(files: Record<string, string>) {
  return {
    readFile: (path: string) => files[path],
    listDir: (dir: string) => {
      const prefix = dir.endsWith('/') ? dir : `${dir}/`;
      const names = Object.keys(files)
        .filter((p) => p.startsWith(prefix) && !p.slice(prefix.length).includes('/'))
        .map((p) => p.slice(prefix.length));
      return names.length > 0 ? names : undefined;
    },
  };
}
