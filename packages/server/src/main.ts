#!/usr/bin/env node
import { ConfigError, LogSinkRelay, pinoStreamFor } from '@switchboard/core';
import { pino } from 'pino';
import { USAGE, parseArgs } from './args.js';
import { type RunningServer, startServer } from './server.js';
import { startShutdownWatchdog } from './shutdown-watchdog.js';

/** Shutdown must finish within 5 s (issue #2); the last half second is a safety margin. */
const SHUTDOWN_DEADLINE_MS = 4500;
/** Past this the watchdog thread kills the process, however busy its main loop is. */
const SHUTDOWN_HARD_DEADLINE_MS = 4800;

async function main(): Promise<void> {
  let line: ReturnType<typeof parseArgs>;
  try {
    line = parseArgs(process.argv.slice(2));
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n${USAGE}\n`);
    process.exit(2);
  }
  if (line.help) {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const level = process.env.SWITCHBOARD_LOG_LEVEL ?? 'info';
  // Log lines go to stdout and to the log channels of `system/logging` (files under <data>/log).
  const logSink = new LogSinkRelay();
  const log = pino(
    { name: 'switchboard', level },
    pino.multistream([
      { level, stream: process.stdout },
      { level, stream: pinoStreamFor(logSink) },
    ]),
  );

  let server: RunningServer;
  try {
    server = await startServer({ confDir: line.confDir, dataDir: line.dataDir, logger: log, logSink });
  } catch (err) {
    if (err instanceof ConfigError) {
      log.fatal({ file: err.file, line: err.line }, `configuration error: ${err.message}`);
      process.stderr.write(`switchboard: configuration error: ${err.message}\n`);
    } else {
      log.fatal({ err }, 'startup failed');
      process.stderr.write(`switchboard: startup failed: ${(err as Error).message}\n`);
    }
    process.exit(1);
  }
  const watchdog = startShutdownWatchdog();
  log.info('switchboard started');

  let stopping = false;
  const shutdown = (signal: string) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down');
    watchdog.arm(SHUTDOWN_HARD_DEADLINE_MS);
    const deadline = setTimeout(() => {
      log.error('shutdown took too long; exiting');
      process.exit(1);
    }, SHUTDOWN_DEADLINE_MS);
    deadline.unref();
    void server.stop().then(() => {
      log.info('stopped');
      log.flush?.();
      process.exit(0);
    });
  };
  process.on('SIGINT', () => shutdown('SIGINT'));
  process.on('SIGTERM', () => shutdown('SIGTERM'));
}

void main();
