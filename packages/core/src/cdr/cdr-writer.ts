/**
 * Writes finished CDRs off the call path: records queue in memory and go to SQLite in one
 * transaction (and to Master.csv in one append) when `size` are waiting or `time` seconds after
 * the first, and at shutdown. With `batch = no` each record is written as it finishes, still
 * asynchronously. A failed write is logged with the records it lost, never thrown at a call.
 */
import { appendFile, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import type { CdrRecord, CdrStore } from '../store/types.js';
import type { Logger } from '../util/logger.js';
import type { CdrConfig } from './cdr-config.js';
import { masterCsvLine } from './master-csv.js';

export class CdrWriter {
  readonly #config: CdrConfig;
  readonly #store: CdrStore | undefined;
  readonly #csvPath: string | undefined;
  readonly #log: Logger;
  #queue: CdrRecord[] = [];
  #timer: NodeJS.Timeout | undefined;
  #writing: Promise<void> = Promise.resolve();

  constructor(options: { config: CdrConfig; store: CdrStore | undefined; csvPath: string | undefined; log: Logger }) {
    this.#config = options.config;
    this.#store = options.store;
    this.#csvPath = options.config.csv ? options.csvPath : undefined;
    this.#log = options.log;
  }

  add(record: CdrRecord): void {
    this.#queue.push(record);
    const limit = this.#config.batch ? this.#config.batchSize : 1;
    if (this.#queue.length >= limit) {
      void this.flush();
      return;
    }
    if (this.#timer === undefined) {
      this.#timer = setTimeout(() => void this.flush(), this.#config.batchSeconds * 1000);
      this.#timer.unref();
    }
  }

  /** Writes everything queued; resolves when it is on disk. */
  flush(): Promise<void> {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    const records = this.#queue;
    this.#queue = [];
    if (records.length === 0) return this.#writing;
    this.#writing = this.#writing.then(() => this.#write(records));
    return this.#writing;
  }

  async #write(records: CdrRecord[]): Promise<void> {
    if (this.#store !== undefined) {
      try {
        if (this.#store.insertMany) await this.#store.insertMany(records);
        else for (const record of records) await this.#store.insert(record);
      } catch (err) {
        this.#log.error({ err, lost: records.map((r) => r.uniqueid) }, 'CDRs could not be stored');
      }
    }
    const csv = this.#config.csv;
    if (this.#csvPath !== undefined && csv !== undefined) {
      try {
        await mkdir(dirname(this.#csvPath), { recursive: true });
        await appendFile(this.#csvPath, records.map((r) => masterCsvLine(r, csv)).join(''));
      } catch (err) {
        this.#log.error({ err, path: this.#csvPath }, 'Master.csv could not be written');
      }
    }
  }
}
