/**
 * cdr.conf, with the original's option names:
 *
 *   [general]  enable (yes), unanswered (no: an unanswered call that rang nobody is not kept),
 *              batch (yes: records are written together, off the call path), size (100 records),
 *              time (1 s: the longest a record waits; the original's default is 300)
 *   [csv]      present: Master.csv is written under <data>/log/cdr-csv/; usegmtime (no),
 *              loguniqueid (no), loguserfield (no)
 *
 * A missing file means the defaults: records in SQLite only.
 */
import { resolve } from 'node:path';
import type { Logger } from '../util/logger.js';
import { readIniFile } from '../config/ini-file.js';
import { applyOptions, warnUnsupportedSection } from '../config/option-table.js';
import { parseBool, parseInteger } from '../config/values.js';

export const CDR_CONFIG_FILE = 'cdr.conf';

export interface CdrConfig {
  enabled: boolean;
  unanswered: boolean;
  batch: boolean;
  batchSize: number;
  batchSeconds: number;
  csv?: { useGmtime: boolean; logUniqueId: boolean; logUserField: boolean };
}

export function defaultCdrConfig(): CdrConfig {
  return { enabled: true, unanswered: false, batch: true, batchSize: 100, batchSeconds: 1 };
}

export function readCdrConfig(confDir: string, log: Logger): CdrConfig {
  const config = defaultCdrConfig();
  const doc = readIniFile(resolve(confDir, CDR_CONFIG_FILE));
  if (doc === undefined) return config;
  for (const section of doc.sections) {
    const name = section.name.toLowerCase();
    if (name === 'general') {
      applyOptions({
        section,
        log,
        handlers: {
          enable: (o) => {
            config.enabled = parseBool(o);
          },
          unanswered: (o) => {
            config.unanswered = parseBool(o);
          },
          batch: (o) => {
            config.batch = parseBool(o);
          },
          size: (o) => {
            config.batchSize = parseInteger(o, 1, 10_000);
          },
          time: (o) => {
            config.batchSeconds = parseInteger(o, 1, 3600);
          },
        },
      });
    } else if (name === 'csv') {
      const csv = { useGmtime: false, logUniqueId: false, logUserField: false };
      applyOptions({
        section,
        log,
        handlers: {
          usegmtime: (o) => {
            csv.useGmtime = parseBool(o);
          },
          loguniqueid: (o) => {
            csv.logUniqueId = parseBool(o);
          },
          loguserfield: (o) => {
            csv.logUserField = parseBool(o);
          },
        },
      });
      config.csv = csv;
    } else {
      warnUnsupportedSection(log, section);
    }
  }
  return config;
}
