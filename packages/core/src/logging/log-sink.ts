import type { LogLevelName } from './log-levels.js';
import { levelOfPino } from './log-levels.js';

/** Where the server's logger writes each formatted line, with its level, besides its console. */
export interface LogSink {
  write(level: LogLevelName, line: string): void;
}

/**
 * A writable-like stream for pino (`pino.multistream([{ stream: process.stdout }, { level: 'trace',
 * stream: pinoStreamFor(sink) }])`): each chunk is one JSON line whose numeric `level` selects the
 * log channels that receive it. A line that is not JSON goes out as `notice`.
 */
export function pinoStreamFor(sink: LogSink): { write(chunk: string): void } {
  return {
    write(chunk: string) {
      let level: LogLevelName = 'notice';
      try {
        const parsed: unknown = JSON.parse(chunk);
        if (typeof parsed === 'object' && parsed !== null && 'level' in parsed && typeof parsed.level === 'number')
          level = levelOfPino(parsed.level);
      } catch {
        // Not a JSON record (a pretty-printed line): it still belongs in the logs, at notice.
      }
      sink.write(level, chunk.endsWith('\n') ? chunk : `${chunk}\n`);
    },
  };
}

/**
 * A sink that forwards to another one attached later: the server's logger exists before the core
 * that owns the log channels, so the logger writes here and the server sets `target` once the
 * core is built.
 */
export class LogSinkRelay implements LogSink {
  target: LogSink | undefined;

  write(level: LogLevelName, line: string): void {
    this.target?.write(level, line);
  }
}
