import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ChannelSnapshot, DomainEvent, TimedDomainEvent } from '@switchboard/core';
import { CdrEvents } from './cdr-events.js';

function channel(id: string, name: string, state: ChannelSnapshot['state']): ChannelSnapshot {
  return {
    id,
    protocol_id: '',
    name,
    state,
    caller: { name: 'Alice', number: '1001' },
    connected: { name: '', number: '' },
    accountcode: '',
    dialplan: { context: 'from-internal', exten: '200', priority: 1, app_name: '', app_data: '' },
    creationtime: '',
    language: 'en',
  };
}

const at = (event: DomainEvent, second: number): TimedDomainEvent => ({
  ...event,
  timestamp: new Date(Date.UTC(2025, 2, 17, 8, 0, second)),
});
const field = (fields: readonly (readonly [string, string])[] | undefined, name: string) => fields?.find(([n]) => n === name)?.[1];

describe('Cdr events', () => {
  it('makes one record per call from the caller: answer, dialled channel, last application, billable seconds', () => {
    const cdrs = new CdrEvents();
    const linked = (id: string) => (id === 'b' ? 'a' : id);
    const a = channel('a', 'SIP/alice-1', 'Ring');
    const b = channel('b', 'SIP/bob-2', 'Down');
    const feed = (event: DomainEvent, second: number) => cdrs.observe(at(event, second), linked);
    feed({ type: 'ChannelCreated', channel: a }, 0);
    feed({ type: 'ChannelDialplan', channel: a, dialplan_app: 'Dial', dialplan_app_data: 'SIP/bob,30' }, 1);
    feed({ type: 'ChannelCreated', channel: b }, 1);
    feed({ type: 'Dial', caller: a, peer: b, dialstatus: '' }, 1);
    feed({ type: 'ChannelStateChange', channel: { ...a, state: 'Up' } }, 5);
    assert.deepEqual(
      feed({ type: 'ChannelDestroyed', channel: b, cause: 16, cause_txt: 'Normal Clearing' }, 65),
      [],
      'the dialled leg has no record',
    );
    const [cdr] = feed({ type: 'ChannelDestroyed', channel: a, cause: 16, cause_txt: 'Normal Clearing' }, 65);
    assert.equal(cdr?.name, 'Cdr');
    assert.deepEqual(cdr?.classes, ['cdr']);
    assert.equal(field(cdr?.fields, 'Source'), '1001');
    assert.equal(field(cdr?.fields, 'CallerID'), '"Alice" <1001>');
    assert.equal(field(cdr?.fields, 'Destination'), '200');
    assert.equal(field(cdr?.fields, 'DestinationChannel'), 'SIP/bob-2');
    assert.equal(field(cdr?.fields, 'LastApplication'), 'Dial');
    assert.equal(field(cdr?.fields, 'LastData'), 'SIP/bob,30');
    assert.equal(field(cdr?.fields, 'StartTime'), '2025-03-17 08:00:00');
    assert.equal(field(cdr?.fields, 'AnswerTime'), '2025-03-17 08:00:05');
    assert.equal(field(cdr?.fields, 'Duration'), '65');
    assert.equal(field(cdr?.fields, 'BillableSeconds'), '60');
    assert.equal(field(cdr?.fields, 'Disposition'), 'ANSWERED');
  });

  it('gives an unanswered call the disposition of its cause', () => {
    const cdrs = new CdrEvents();
    const c = channel('c', 'SIP/carol-3', 'Ring');
    cdrs.observe(at({ type: 'ChannelCreated', channel: c }, 0), (id) => id);
    const [busy] = cdrs.observe(at({ type: 'ChannelDestroyed', channel: c, cause: 17, cause_txt: 'User busy' }, 3), (id) => id);
    assert.equal(field(busy?.fields, 'Disposition'), 'BUSY');
    assert.equal(field(busy?.fields, 'AnswerTime'), '');
    assert.equal(field(busy?.fields, 'BillableSeconds'), '0');
  });
});
