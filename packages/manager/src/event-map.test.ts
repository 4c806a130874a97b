import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ChannelSnapshot } from '@switchboard/core';
import { EventTranslator } from './event-map.js';

function channel(id: string, name: string, state: ChannelSnapshot['state'] = 'Ring'): ChannelSnapshot {
  return {
    id,
    protocol_id: `${id}@host`,
    name,
    state,
    caller: { name: '', number: '1001' },
    connected: { name: '', number: '' },
    accountcode: '',
    dialplan: { context: 'default', exten: '200', priority: 2, app_name: 'Dial', app_data: 'SIP/bob' },
    creationtime: '2025-01-01T00:00:00.000+0000',
    language: 'en',
  };
}

const field = (fields: readonly (readonly [string, string])[], name: string) => fields.find(([n]) => n === name)?.[1];

describe('EventTranslator', () => {
  it('turns Dial into DialBegin, DialState and DialEnd, and links the callee to the caller', () => {
    const t = new EventTranslator();
    const caller = channel('1.1', 'SIP/alice-00000001');
    const peer = channel('1.2', 'SIP/bob-00000002', 'Down');
    const [begin] = t.translate({ type: 'Dial', caller, peer, dialstring: 'SIP/bob', dialstatus: '' });
    assert.equal(begin?.name, 'DialBegin');
    assert.equal(field(begin?.fields ?? [], 'Channel'), 'SIP/alice-00000001');
    assert.equal(field(begin?.fields ?? [], 'DestChannel'), 'SIP/bob-00000002');
    assert.equal(field(begin?.fields ?? [], 'DestLinkedid'), '1.1');
    assert.equal(field(begin?.fields ?? [], 'DialString'), 'SIP/bob');
    assert.equal(t.translate({ type: 'Dial', caller, peer, dialstatus: 'RINGING' })[0]?.name, 'DialState');
    const [end] = t.translate({ type: 'Dial', caller, peer, dialstatus: 'ANSWER' });
    assert.equal(end?.name, 'DialEnd');
    assert.equal(field(end?.fields ?? [], 'DialStatus'), 'ANSWER');
    const [hangup] = t.translate({ type: 'ChannelDestroyed', channel: peer, cause: 16, cause_txt: 'Normal Clearing' });
    assert.equal(field(hangup?.fields ?? [], 'Linkedid'), '1.1');
    assert.equal(field(hangup?.fields ?? [], 'Cause-txt'), 'Normal Clearing');
    assert.equal(t.linkedId('1.2'), '1.2', 'forgotten after the hangup');
  });

  it('sends a user event only with a channel, and a received digit as DTMFBegin and DTMFEnd', () => {
    const t = new EventTranslator();
    const c = channel('2.1', 'SIP/carol-00000003', 'Up');
    assert.deepEqual(t.translate({ type: 'ChannelUserevent', application: 'a', eventname: 'X', userevent: { eventname: 'X' } }), []);
    const [user] = t.translate({
      type: 'ChannelUserevent',
      application: 'a',
      eventname: 'X',
      userevent: { eventname: 'X', n: 2 },
      channel: c,
    });
    assert.deepEqual(user?.classes, ['user']);
    assert.equal(field(user?.fields ?? [], 'UserEvent'), 'X');
    assert.equal(field(user?.fields ?? [], 'n'), '2');
    const dtmf = t.translate({ type: 'ChannelDtmfReceived', channel: c, digit: '5', duration_ms: 120 });
    assert.deepEqual(
      dtmf.map((e) => e.name),
      ['DTMFBegin', 'DTMFEnd'],
    );
    assert.equal(field(dtmf[1]?.fields ?? [], 'DurationMs'), '120');
    assert.equal(field(dtmf[1]?.fields ?? [], 'ChannelState'), '6');
  });
  it('maps the agent events of a queue call with the original names, class agent and the caller block', () => {
    const t = new EventTranslator();
    const caller = channel('2.1', 'SIP/carol-00000003', 'Up');
    const base = { queue: 'support', channel: caller, member: 'Alice', interface: 'SIP/alice' };
    const [called] = t.translate({ type: 'AgentCalled', ...base });
    assert.deepEqual([called?.name, called?.classes, field(called?.fields ?? [], 'MemberName')], ['AgentCalled', ['agent'], 'Alice']);
    const [connect] = t.translate({ type: 'AgentConnect', ...base, hold_time: 4, ring_time: 2 });
    assert.deepEqual(
      ['Channel', 'Queue', 'Interface', 'HoldTime', 'RingTime'].map((n) => field(connect?.fields ?? [], n)),
      ['SIP/carol-00000003', 'support', 'SIP/alice', '4', '2'],
    );
    const [complete] = t.translate({ type: 'AgentComplete', ...base, talk_time: 30, reason: 'agent' });
    assert.deepEqual([field(complete?.fields ?? [], 'TalkTime'), field(complete?.fields ?? [], 'Reason')], ['30', 'agent']);
    const [noAnswer] = t.translate({ type: 'AgentRingNoAnswer', ...base, ring_time: 15 });
    assert.equal(field(noAnswer?.fields ?? [], 'RingTime'), '15');
    const [talking] = t.translate({ type: 'ConfbridgeTalking', conference: 'office', channel: caller, talking: true });
    assert.deepEqual([talking?.name, field(talking?.fields ?? [], 'TalkingStatus')], ['ConfbridgeTalking', 'on']);
    // The mailbox change already reaches clients as MessageWaiting from core's mailboxes.
    assert.deepEqual(t.translate({ type: 'MessageWaiting', mailbox: '1001', context: 'default', new_messages: 1, old_messages: 0 }), []);
  });
});
