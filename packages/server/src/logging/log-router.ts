/**
 * Where every log record goes. pino writes JSON lines into `LogRouter.write`; the router reads the
 * level once and hands the line to:
 *
 *   standard output   when logger.conf's `console =>` levels take it (pretty and coloured on a
 *                     terminal through pino-pretty, JSON lines otherwise or with --json);
 *   log channels      the files of logger.conf and of the API, by their level lists (JSON lines);
 *                     a security event also goes to `security` channels as a fail2ban line;
 *   remote consoles   attached `switchboard -r` sessions, as plain text.
 *
 *      pino ──► LogRouter.write ──┬─► stdout (console levels)
 *                                 ├─► LogSink (core's log channels)
 *                                 └─► remote consoles
 */
import { type LogLevelName, type LogSink, levelOfPino } from '@switchboard/core';
import { prettyFactory } from 'pino-pretty';
import { formatSecurityLine, isSecurityRecord, logTimestamp } from './security-log.js';

/** Asterisk's default when logger.conf has no `console` line. */
export const DEFAULT_CONSOLE_LEVELS: readonly LogLevelName[] = ['notice', 'warning', 'error', 'verbose'];

export interface LogRouterOptions {
  /** Pretty coloured lines instead of JSON. */
  pretty: boolean;
  /** Writes to standard output (tests pass a collector). */
  out?: (text: string) => void;
}

const LEVEL_WORD: Record<LogLevelName, string> = {
  debug: 'DEBUG',
  verbose: 'VERBOSE',
  notice: 'NOTICE',
  warning: 'WARNING',
  error: 'ERROR',
  dtmf: 'DTMF',
  fax: 'FAX',
  security: 'SECURITY',
};

export class LogRouter {
  /** Core's log channels, once the core exists. */
  channels: LogSink | undefined;
  /** Levels shown on standard output; replaced at startup and on `logger reload`. */
  consoleLevels: ReadonlySet<LogLevelName> = new Set(DEFAULT_CONSOLE_LEVELS);
  /** Levels shown on standard output whatever logger.conf says (SWITCHBOARD_LOG_LEVEL=debug). */
  readonly alwaysOnConsole = new Set<LogLevelName>();
  /** Attached remote consoles. */
  remote: ((text: string) => void) | undefined;
  /** Tells whether a From user names one of our endpoints (security lines). */
  knownUser: (name: string) => boolean = () => true;
  readonly #out: (text: string) => void;
  readonly #pretty: ((record: unknown) => string) | undefined;

  constructor(options: LogRouterOptions) {
    this.#out = options.out ?? ((text) => process.stdout.write(text));
    this.#pretty = options.pretty
      ? prettyFactory({
          colorize: true,
          translateTime: 'SYS:yyyy-mm-dd HH:MM:ss.l',
          ignore: 'pid,hostname,name,module,verbose',
          // One line per record, the module first as the original's `file.c:` prefix.
          messageFormat: (log, messageKey) => `${typeof log.module === 'string' ? `${log.module}: ` : ''}${String(log[messageKey] ?? '')}`,
          singleLine: true,
        })
      : undefined;
  }

  /** pino's destination interface. */
  write(chunk: string): void {
    const line = chunk.endsWith('\n') ? chunk : `${chunk}\n`;
    let record: Record<string, unknown> = {};
    try {
      const parsed: unknown = JSON.parse(line);
      if (typeof parsed === 'object' && parsed !== null) record = parsed as Record<string, unknown>;
    } catch {
      // Not JSON: treated as a notice below.
    }
    const level: LogLevelName =
      typeof record.verbose === 'number' ? 'verbose' : typeof record.level === 'number' ? levelOfPino(record.level) : 'notice';
    if (this.consoleLevels.has(level) || this.alwaysOnConsole.has(level)) this.#out(this.#pretty ? this.#pretty(record) : line);
    this.channels?.write(level, line);
    if (isSecurityRecord(record)) {
      const security = formatSecurityLine(record, this.knownUser);
      if (security !== undefined) {
        this.channels?.write('security', security);
        if (this.consoleLevels.has('security') && !this.consoleLevels.has(level)) this.#out(security);
      }
    }
    if (this.remote && (level === 'verbose' || level === 'notice' || level === 'warning' || level === 'error')) {
      this.remote(plainLine(record, level));
    }
  }
}

/** `[2026-11-24 03:50:00] NOTICE[4242] switchboard:api: control API listening` — or the verbose `    -- …` form. */
export function plainLine(record: Record<string, unknown>, level: LogLevelName): string {
  const msg = typeof record.msg === 'string' ? record.msg : '';
  if (level === 'verbose') return `    -- ${msg}`;
  const time = typeof record.time === 'number' ? new Date(record.time) : new Date();
  const module = typeof record.module === 'string' ? record.module : typeof record.name === 'string' ? record.name : 'switchboard';
  const pid = typeof record.pid === 'number' ? record.pid : process.pid;
  return `${logTimestamp(time)} ${LEVEL_WORD[level]}[${pid}] ${module}: ${msg}`;
}
