import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { CdrRecord } from '@switchboard/core';
import { cdrEvent } from './cdr-events.js';

const field = (fields: readonly (readonly [string, string])[], name: string) => fields.find(([n]) => n === name)?.[1];

describe('Cdr event', () => {
  it("carries a record of core's CDR engine with the original's names, order and UTC times", () => {
    const record: CdrRecord = {
      start: new Date(Date.UTC(2025, 2, 17, 8, 0, 0)),
      answer: new Date(Date.UTC(2025, 2, 17, 8, 0, 5)),
      end: new Date(Date.UTC(2025, 2, 17, 8, 1, 5)),
      duration: 65,
      billsec: 60,
      src: '1001',
      dst: '200',
      dcontext: 'from-internal',
      clid: '"Alice" <1001>',
      channel: 'SIP/alice-1',
      dstchannel: 'SIP/bob-2',
      lastapp: 'Dial',
      lastdata: 'SIP/bob,30',
      disposition: 'ANSWERED',
      amaflags: 'DOCUMENTATION',
      accountcode: 'sales',
      uniqueid: 'a',
      linkedid: 'a',
      userfield: 'vip',
    };
    const event = cdrEvent(record);
    assert.deepEqual([event.name, event.classes], ['Cdr', ['cdr']]);
    assert.deepEqual(
      event.fields.map(([name]) => name),
      [
        ...['AccountCode', 'Source', 'Destination', 'DestinationContext', 'CallerID', 'Channel', 'DestinationChannel'],
        ...['LastApplication', 'LastData', 'StartTime', 'AnswerTime', 'EndTime', 'Duration', 'BillableSeconds', 'Disposition'],
        ...['AMAFlags', 'UniqueID', 'LinkedID', 'UserField'],
      ],
    );
    assert.equal(field(event.fields, 'CallerID'), '"Alice" <1001>');
    assert.equal(field(event.fields, 'StartTime'), '2025-03-17 08:00:00');
    assert.equal(field(event.fields, 'AnswerTime'), '2025-03-17 08:00:05');
    assert.equal(field(event.fields, 'Duration'), '65');
    assert.equal(field(event.fields, 'BillableSeconds'), '60');
    assert.equal(field(event.fields, 'UserField'), 'vip');
  });

  it('leaves the answer time empty for an unanswered call', () => {
    const end = new Date(Date.UTC(2025, 2, 17, 8, 0, 3));
    const event = cdrEvent({
      start: new Date(Date.UTC(2025, 2, 17, 8, 0, 0)),
      end,
      duration: 3,
      billsec: 0,
      src: '1001',
      dst: '200',
      dcontext: 'from-internal',
      channel: 'SIP/carol-3',
      dstchannel: 'SIP/bob-4',
      lastapp: 'Dial',
      lastdata: 'SIP/bob',
      disposition: 'BUSY',
      amaflags: 'DOCUMENTATION',
      accountcode: '',
      uniqueid: 'c',
      linkedid: 'c',
      userfield: '',
    });
    assert.deepEqual(
      ['Disposition', 'AnswerTime', 'BillableSeconds', 'CallerID'].map((n) => field(event.fields, n)),
      ['BUSY', '', '0', '1001'],
    );
  });
});
