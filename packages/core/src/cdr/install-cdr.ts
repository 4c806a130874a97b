/**
 * Call detail records in a running core: reads cdr.conf, builds the engine and the batched
 * writer (SQLite `cdr` table, and `<log dir>/cdr-csv/Master.csv` when `[csv]` is configured),
 * and adds CDR(), NoCDR() and ResetCDR() to the dialplan. Listeners (the manager interface) get
 * each record as it is finished.
 */
import { join } from 'node:path';
import type { SipEndpointConfig } from '../config/types.js';
import type { EventBus } from '../events/event-bus.js';
import type { DialplanRunner } from '../pbx/dialplan-runner.js';
import type { CdrRecord, CdrStore } from '../store/types.js';
import type { Logger } from '../util/logger.js';
import { readCdrConfig } from './cdr-config.js';
import { CdrEngine } from './cdr-engine.js';
import { CdrWriter } from './cdr-writer.js';

export interface CdrService {
  engine: CdrEngine;
  /** Calls `listener` with each finished record, as it is queued for writing (the manager's Cdr event); returns the unsubscribe. */
  onRecord(listener: (record: CdrRecord) => void): () => void;
  /** Writes every finished record still queued (shutdown). */
  flush(): Promise<void>;
}

export function installCdr(deps: {
  bus: EventBus;
  runner: DialplanRunner;
  confDir: string;
  store: CdrStore | undefined;
  logDirectory: string | undefined;
  endpoints: () => readonly SipEndpointConfig[];
  log: Logger;
}): CdrService {
  const config = readCdrConfig(deps.confDir, deps.log);
  const writer = new CdrWriter({
    config,
    store: deps.store,
    csvPath: deps.logDirectory === undefined ? undefined : join(deps.logDirectory, 'cdr-csv', 'Master.csv'),
    log: deps.log,
  });
  const listeners = new Set<(record: CdrRecord) => void>();
  const engine = new CdrEngine({
    bus: deps.bus,
    config,
    accountCodeOf: (technology, endpoint) =>
      /^(pj)?sip$/i.test(technology) ? (deps.endpoints().find((e) => e.name === endpoint)?.accountCode ?? '') : '',
    dialplanDone: (channelId) => deps.runner.whenDone(channelId),
    write: (record) => {
      writer.add(record);
      for (const listener of listeners) {
        try {
          listener(record);
        } catch (err) {
          deps.log.error({ err }, 'call detail record listener failed');
        }
      }
    },
  });
  deps.runner.registerFunction('CDR', engine.cdrFunction);
  deps.runner.registerApplication('NoCDR', engine.noCdr);
  deps.runner.registerApplication('ResetCDR', engine.resetCdr);
  if (config.enabled) deps.log.info({ csv: config.csv !== undefined, unanswered: config.unanswered }, 'call detail records enabled');
  return {
    engine,
    onRecord: (listener) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    flush: async () => {
      await engine.settled();
      await writer.flush();
    },
  };
}
