import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { BridgeSnapshot, ChannelSnapshot } from '@switchboard/core';
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
    assert.equal(t.linkedId('1.2'), '1.1', 'still known just after the hangup, for events that follow it');
    for (let i = 0; i < 1000; i++) {
      const other = channel(`9.${i}`, `SIP/other-${i}`);
      t.translate({ type: 'Dial', caller, peer: other, dialstatus: '' });
      t.translate({ type: 'ChannelDestroyed', channel: other, cause: 16, cause_txt: 'Normal Clearing' });
    }
    assert.equal(t.linkedId('1.2'), '1.2', 'forgotten once a thousand more channels have ended');
    assert.equal(t.linkedId('9.999'), '1.1');
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
  it('maps the agent events of a queue call with the original names, class agent, the caller block and the member as Dest…', () => {
    const t = new EventTranslator();
    const caller = channel('2.1', 'SIP/carol-00000003', 'Up');
    const memberChannel = channel('2.2', 'SIP/alice-00000004', 'Ringing');
    const base = { queue: 'support', channel: caller, member_channel: memberChannel, member: 'Alice', interface: 'SIP/alice' };
    const names = (fields: readonly (readonly [string, string])[]) => fields.map(([n]) => n);
    const [called] = t.translate({ type: 'AgentCalled', ...base });
    assert.deepEqual([called?.name, called?.classes], ['AgentCalled', ['agent']]);
    // The original's order: the caller's block, the member channel's Dest block, Queue, MemberName, Interface.
    assert.deepEqual(names(called?.fields ?? []), [
      ...['Channel', 'ChannelState', 'ChannelStateDesc', 'CallerIDNum', 'CallerIDName', 'ConnectedLineNum', 'ConnectedLineName'],
      ...['Language', 'AccountCode', 'Context', 'Exten', 'Priority', 'Uniqueid', 'Linkedid'],
      ...['DestChannel', 'DestChannelState', 'DestChannelStateDesc', 'DestCallerIDNum', 'DestCallerIDName', 'DestConnectedLineNum'],
      ...['DestConnectedLineName', 'DestLanguage', 'DestAccountCode', 'DestContext', 'DestExten', 'DestPriority', 'DestUniqueid'],
      ...['DestLinkedid', 'Queue', 'MemberName', 'Interface'],
    ]);
    assert.deepEqual(
      ['DestChannel', 'DestChannelStateDesc', 'DestUniqueid', 'MemberName'].map((n) => field(called?.fields ?? [], n)),
      ['SIP/alice-00000004', 'Ringing', '2.2', 'Alice'],
    );
    const [connect] = t.translate({ type: 'AgentConnect', ...base, hold_time: 4, ring_time: 2 });
    assert.deepEqual(
      ['Channel', 'DestChannel', 'Queue', 'Interface', 'HoldTime', 'RingTime'].map((n) => field(connect?.fields ?? [], n)),
      ['SIP/carol-00000003', 'SIP/alice-00000004', 'support', 'SIP/alice', '4', '2'],
    );
    const [complete] = t.translate({ type: 'AgentComplete', ...base, hold_time: 4, talk_time: 30, reason: 'agent' });
    assert.deepEqual(names(complete?.fields ?? []).slice(-6), ['Queue', 'MemberName', 'Interface', 'HoldTime', 'TalkTime', 'Reason']);
    assert.deepEqual(
      ['HoldTime', 'TalkTime', 'Reason'].map((n) => field(complete?.fields ?? [], n)),
      ['4', '30', 'agent'],
    );
    const [noAnswer] = t.translate({ type: 'AgentRingNoAnswer', ...base, ring_time: 15 });
    assert.deepEqual(
      [field(noAnswer?.fields ?? [], 'DestChannel'), field(noAnswer?.fields ?? [], 'RingTime')],
      ['SIP/alice-00000004', '15'],
    );
    // The mailbox change already reaches clients as MessageWaiting from core's mailboxes.
    assert.deepEqual(t.translate({ type: 'MessageWaiting', mailbox: '1001', context: 'default', new_messages: 1, old_messages: 0 }), []);
  });

  it('maps the ConfBridge events with the conference, the bridge block, the user block and Admin as the original', () => {
    const t = new EventTranslator();
    const user = channel('3.1', 'SIP/dave-00000005', 'Up');
    const bridge: BridgeSnapshot = {
      id: 'b-1',
      technology: 'softmix',
      bridge_type: 'mixing',
      bridge_class: 'confbridge',
      creator: 'ConfBridge',
      name: 'office',
      channels: ['3.1'],
      creationtime: '2025-01-01T00:00:00.000+0000',
    };
    const names = (fields: readonly (readonly [string, string])[]) => fields.map(([n]) => n);
    const bridgeBlock = [
      ...['BridgeUniqueid', 'BridgeType', 'BridgeTechnology', 'BridgeCreator', 'BridgeName', 'BridgeNumChannels'],
      'BridgeVideoSourceMode',
    ];
    const [mute] = t.translate({ type: 'ConfbridgeMute', conference: 'office', bridge, channel: user, admin: true, muted: true });
    assert.deepEqual(names(mute?.fields ?? []).slice(0, 9), ['Conference', ...bridgeBlock, 'Channel']);
    assert.deepEqual([mute?.name, mute?.classes, field(mute?.fields ?? [], 'Admin')], ['ConfbridgeMute', ['call'], 'Yes']);
    const [unmute] = t.translate({ type: 'ConfbridgeMute', conference: 'office', bridge, channel: user, admin: false, muted: false });
    assert.deepEqual([unmute?.name, field(unmute?.fields ?? [], 'Admin')], ['ConfbridgeUnmute', 'No']);
    const [talking] = t.translate({ type: 'ConfbridgeTalking', conference: 'office', bridge, channel: user, admin: false, talking: true });
    assert.deepEqual(names(talking?.fields ?? []).slice(-2), ['TalkingStatus', 'Admin']);
    assert.equal(field(talking?.fields ?? [], 'TalkingStatus'), 'on');
    const [leave] = t.translate({ type: 'ConfbridgeLeave', conference: 'office', bridge, channel: user, admin: false });
    assert.equal(field(leave?.fields ?? [], 'Admin'), 'No');
    const recording = { conference: 'office', bridge, recording_name: 'confbridge/office-1' };
    const [record] = t.translate({ type: 'ConfbridgeRecord', ...recording, recording_state: 'started' });
    const [stop] = t.translate({ type: 'ConfbridgeRecord', ...recording, recording_state: 'stopped' });
    assert.deepEqual([record?.name, stop?.name], ['ConfbridgeRecord', 'ConfbridgeStopRecord']);
    assert.deepEqual(names(stop?.fields ?? []), ['Conference', ...bridgeBlock]);
    const [lock] = t.translate({ type: 'ConfbridgeLock', conference: 'office', bridge, locked: true });
    const [unlock] = t.translate({ type: 'ConfbridgeLock', conference: 'office', bridge, locked: false });
    assert.deepEqual([lock?.name, unlock?.name, field(lock?.fields ?? [], 'Conference')], ['ConfbridgeLock', 'ConfbridgeUnlock', 'office']);
  });
});
