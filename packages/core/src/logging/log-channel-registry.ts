/**
 * Log channels (SPEC §4.3, reference system.md LogChannel): named destinations that receive the
 * log lines of chosen levels. A file channel is a file in the log directory, named by the channel
 * (never a path: a name that would leave the directory is refused). `console` stands for the
 * server's standard output, which the server writes itself. Rotation moves `<file>` aside by the
 * `rotatestrategy` of logger.conf (rotate-strategy.ts) and reopens a fresh file.
 */
import { closeSync, constants, lstatSync, mkdirSync, openSync, writeSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { conflict, invalidArgument, notFound } from '../errors.js';
import { resolvesWithin } from '../recordings/recording-paths.js';
import type { Logger } from '../util/logger.js';
import { type LogLevelName, parseLevels } from './log-levels.js';
import type { LogSink } from './log-sink.js';
import { type RotateStrategy, rotateFile } from './rotate-strategy.js';

export interface LogChannelSnapshot {
  channel: string;
  type: 'File' | 'Console' | 'Syslog';
  status: 'Enabled' | 'Disabled';
  /** Upper-case level names, space-separated. */
  configuration: string;
}

interface LogChannel {
  name: string;
  type: 'File' | 'Console';
  levels: ReadonlySet<LogLevelName>;
  /** Open descriptor of a file channel; undefined after a write failure until the next rotate. */
  fd: number | undefined;
  /** Came from logger.conf, so a reload of that file replaces it. */
  fromConfig: boolean;
}

/** A plain file name: letters, digits, dot, dash, underscore; not `.` or `..`. */
const CHANNEL_NAME = /^[A-Za-z0-9_][A-Za-z0-9._-]*$/;
/** Longest channel name: a file name must fit NAME_MAX (255) with the `.1` of a rotation. */
const MAX_CHANNEL_NAME_LENGTH = 200;
/**
 * Append, create, and never follow a symlink at the file itself (O_NOFOLLOW): a link planted in
 * the log directory must not turn a log channel into a write to any file the server may write.
 */
const OPEN_FLAGS = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW;
const CONSOLE = 'console';

export class LogChannelRegistry implements LogSink {
  readonly directory: string;
  readonly #channels = new Map<string, LogChannel>();
  readonly #log: Logger;
  /** logger.conf `rotatestrategy`; set by `applyConfig`. */
  rotateStrategy: RotateStrategy = 'sequential';

  constructor(directory: string, log: Logger) {
    this.directory = resolve(directory);
    this.#log = log;
  }

  list(): LogChannelSnapshot[] {
    return [...this.#channels.values()].map((c) => ({
      channel: c.type === 'File' ? join(this.directory, c.name) : c.name,
      type: c.type,
      status: c.type === 'Console' || c.fd !== undefined ? 'Enabled' : 'Disabled',
      configuration: [...c.levels].map((l) => `${l.toUpperCase()} `).join(''),
    }));
  }

  /** `configuration` is a comma-separated list of levels (400 when empty or unknown). */
  add(name: string, configuration: string, fromConfig = false): void {
    this.#checkName(name);
    const levels = parseLevels(configuration);
    if (!Array.isArray(levels)) throw invalidArgument(`Unknown log level '${levels.unknown}'`);
    if (levels.length === 0) throw invalidArgument('Log levels are required');
    if (this.#channels.has(name)) throw conflict(`Log channel ${name} already exists`);
    const channel: LogChannel = { name, type: name === CONSOLE ? 'Console' : 'File', levels: new Set(levels), fd: undefined, fromConfig };
    if (channel.type === 'File') channel.fd = this.#open(name);
    this.#channels.set(name, channel);
  }

  delete(name: string): void {
    const channel = this.#require(name);
    this.#close(channel);
    this.#channels.delete(name);
  }

  rotate(name: string): void {
    const channel = this.#require(name);
    if (channel.type !== 'File') return;
    this.#close(channel);
    rotateFile(join(this.directory, name), this.rotateStrategy);
    channel.fd = this.#open(name);
  }

  /** Rotates every file channel (`logger rotate`). */
  rotateAll(): void {
    for (const channel of this.#channels.values()) if (channel.type === 'File') this.rotate(channel.name);
  }

  /** The levels the `console` channel of logger.conf takes; undefined when there is none. */
  consoleLevels(): ReadonlySet<LogLevelName> | undefined {
    return this.#channels.get(CONSOLE)?.levels;
  }

  /** Writes one line to every channel that takes its level. */
  write(level: LogLevelName, line: string): void {
    for (const channel of this.#channels.values()) {
      if (channel.fd === undefined || !channel.levels.has(level)) continue;
      try {
        writeSync(channel.fd, line);
      } catch (err) {
        // Disable the channel rather than fail every log call; a rotate reopens it.
        this.#close(channel);
        this.#log.error({ err, channel: channel.name }, 'log channel write failed; channel disabled');
      }
    }
  }

  /**
   * Replaces the channels logger.conf declared with `entries` (startup, reload). Channels created
   * through the API stay; an unusable entry is logged and skipped, never fatal.
   */
  applyConfig(
    entries: readonly { name: string; configuration: string; file: string; line: number }[],
    rotateStrategy: RotateStrategy = 'sequential',
  ): void {
    this.rotateStrategy = rotateStrategy;
    for (const channel of [...this.#channels.values()]) {
      if (channel.fromConfig) this.delete(channel.name);
    }
    for (const entry of entries) {
      try {
        this.add(entry.name, entry.configuration, true);
      } catch (err) {
        this.#log.warn({ err, file: entry.file, line: entry.line }, `log channel '${entry.name}' ignored`);
      }
    }
  }

  /** Closes every file (server shutdown). */
  close(): void {
    for (const channel of this.#channels.values()) this.#close(channel);
  }

  #checkName(name: string): void {
    if (!CHANNEL_NAME.test(name)) throw invalidArgument('Log channel names are plain file names within the log directory');
    if (name.length > MAX_CHANNEL_NAME_LENGTH) throw invalidArgument(`Log channel names are at most ${MAX_CHANNEL_NAME_LENGTH} characters`);
  }

  #require(name: string): LogChannel {
    const channel = this.#channels.get(name);
    if (!channel) throw notFound(`Log channel ${name} does not exist`);
    return channel;
  }

  #open(name: string): number {
    mkdirSync(this.directory, { recursive: true });
    const path = join(this.directory, name);
    if (isSymlink(path) || !resolvesWithin(this.directory, path)) {
      throw invalidArgument(`Log channel ${name} is a link or leaves the log directory`);
    }
    try {
      return openSync(path, OPEN_FLAGS, 0o640);
    } catch (err) {
      // ELOOP: a link appeared between the check and the open.
      if ((err as NodeJS.ErrnoException).code === 'ELOOP') throw invalidArgument(`Log channel ${name} is a link`);
      throw err;
    }
  }

  #close(channel: LogChannel): void {
    if (channel.fd === undefined) return;
    try {
      closeSync(channel.fd);
    } finally {
      channel.fd = undefined;
    }
  }
}

function isSymlink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}
