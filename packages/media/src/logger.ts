/**
 * The logging surface the engine needs. pino's `Logger` (and core's `Logger`) satisfy it, so the
 * server passes its own logger in; workers forward their lines to it through the protocol.
 */
export interface MediaLogger {
  debug(obj: object | string, msg?: string): void;
  info(obj: object | string, msg?: string): void;
  warn(obj: object | string, msg?: string): void;
  error(obj: object | string, msg?: string): void;
}

export type LogLevel = 'debug' | 'info' | 'warn' | 'error';

const noop = (): void => {};

export const silentMediaLogger: MediaLogger = { debug: noop, info: noop, warn: noop, error: noop };

/** A logger that adds fixed fields to every line, for loggers that have no `child()`. */
export function scopedLogger(logger: MediaLogger, bindings: Record<string, unknown>): MediaLogger {
  const write =
    (level: LogLevel) =>
    (obj: object | string, msg?: string): void => {
      if (typeof obj === 'string') logger[level]({ ...bindings }, obj);
      else logger[level]({ ...bindings, ...obj }, msg);
    };
  return { debug: write('debug'), info: write('info'), warn: write('warn'), error: write('error') };
}
