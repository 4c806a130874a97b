/**
 * The `Cdr` event (class cdr): each call detail record of core's CDR engine (cdr.conf) as the
 * original's cdr_manager sends it, when the record is finished: after the caller's hangup and its
 * `h` extension, so `Set(CDR(userfield)=…)` there is included. A channel dialled by another is
 * part of its caller's record; NoCDR() and `unanswered = no` keep a call out, as for the stored
 * records.
 */
import type { CdrRecord } from '@switchboard/core';
import type { ManagerEvent } from './fields.js';

/** `2025-03-17 08:32:35` in UTC, as the original writes CDR times. */
function cdrTime(date: Date | undefined): string {
  return date === undefined ? '' : date.toISOString().slice(0, 19).replace('T', ' ');
}

export function cdrEvent(record: CdrRecord): ManagerEvent {
  return {
    name: 'Cdr',
    classes: ['cdr'],
    fields: [
      ['AccountCode', record.accountcode],
      ['Source', record.src],
      ['Destination', record.dst],
      ['DestinationContext', record.dcontext],
      ['CallerID', record.clid ?? record.src],
      ['Channel', record.channel],
      ['DestinationChannel', record.dstchannel],
      ['LastApplication', record.lastapp],
      ['LastData', record.lastdata],
      ['StartTime', cdrTime(record.start)],
      ['AnswerTime', cdrTime(record.answer)],
      ['EndTime', cdrTime(record.end)],
      ['Duration', String(record.duration)],
      ['BillableSeconds', String(record.billsec)],
      ['Disposition', record.disposition],
      ['AMAFlags', record.amaflags],
      ['UniqueID', record.uniqueid],
      ['LinkedID', record.linkedid],
      ['UserField', record.userfield],
    ],
  };
}
