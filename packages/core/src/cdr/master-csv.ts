/**
 * Master.csv lines in the original's column order:
 *
 *   accountcode, src, dst, dcontext, clid, channel, dstchannel, lastapp, lastdata, start, answer,
 *   end, duration, billsec, disposition, amaflags[, uniqueid][, userfield]
 *
 * Text fields are quoted (a `"` inside doubled), duration and billsec are bare numbers, and times
 * are `YYYY-MM-DD HH:MM:SS` in local time, or UTC with `usegmtime`.
 */
import type { CdrRecord } from '../store/types.js';

export interface CsvOptions {
  useGmtime: boolean;
  logUniqueId: boolean;
  logUserField: boolean;
}

function quote(text: string): string {
  return `"${text.replace(/"/g, '""')}"`;
}

const pad = (n: number) => String(n).padStart(2, '0');

export function csvTime(date: Date | undefined, gmt: boolean): string {
  if (date === undefined) return '';
  return gmt
    ? `${date.getUTCFullYear()}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())} ${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())}`
    : `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}

export function masterCsvLine(record: CdrRecord, options: CsvOptions): string {
  const fields = [
    quote(record.accountcode),
    quote(record.src),
    quote(record.dst),
    quote(record.dcontext),
    quote(record.clid ?? ''),
    quote(record.channel),
    quote(record.dstchannel),
    quote(record.lastapp),
    quote(record.lastdata),
    quote(csvTime(record.start, options.useGmtime)),
    quote(csvTime(record.answer, options.useGmtime)),
    quote(csvTime(record.end, options.useGmtime)),
    String(Math.round(record.duration)),
    String(Math.round(record.billsec)),
    quote(record.disposition),
    quote(record.amaflags),
  ];
  if (options.logUniqueId) fields.push(quote(record.uniqueid));
  if (options.logUserField) fields.push(quote(record.userfield));
  return `${fields.join(',')}\n`;
}
