/**
 * The office features' events of the core bus (queues, conferences) → the original's manager
 * events: the queue family (class agent) and the ConfBridge family (class call), with the
 * original's names and fields. Core's voicemail message events have no counterpart in the
 * original's manager; a mailbox change reaches clients as MessageWaiting (manager-server.ts).
 */
import type { ChannelSnapshot, DomainEvent } from '@switchboard/core';
import { bridgeFields, type ManagerEvent } from './fields.js';
import type { Field } from './wire.js';

type ChannelFieldsOf = (channel: ChannelSnapshot, prefix?: string) => Field[];
type QueueMemberSnapshot = Extract<DomainEvent, { type: 'QueueMemberAdded' }>['member'];
type AgentEvent = Extract<DomainEvent, { type: 'AgentCalled' | 'AgentConnect' | 'AgentComplete' | 'AgentRingNoAnswer' }>;
type ConferenceUserEvent = Extract<DomainEvent, { type: 'ConfbridgeJoin' | 'ConfbridgeLeave' | 'ConfbridgeMute' | 'ConfbridgeTalking' }>;

const yesNo = (value: boolean): string => (value ? 'Yes' : 'No');

/** The member block of QueueMember* events and of QueueStatus's QueueMember items. */
export function queueMemberFields(queue: string, member: QueueMemberSnapshot): Field[] {
  return [
    ['Queue', queue],
    ['MemberName', member.name],
    ['Interface', member.interface],
    ['StateInterface', member.state_interface],
    ['Membership', member.membership],
    ['Penalty', String(member.penalty)],
    ['CallsTaken', String(member.calls_taken)],
    ['LastCall', String(member.last_call)],
    ['LastPause', String(member.last_pause)],
    ['LoginTime', String(member.login_time)],
    ['InCall', member.in_call ? '1' : '0'],
    ['Status', String(member.status)],
    ['Paused', member.paused ? '1' : '0'],
    ['PausedReason', member.paused_reason],
    ['Ringinuse', member.ringinuse ? '1' : '0'],
    ['Wrapuptime', String(member.wrapup_time)],
  ];
}

/** The manager events of an office event; undefined when the event is not one of them. */
export function translateOfficeEvent(event: DomainEvent, channel: ChannelFieldsOf): ManagerEvent[] | undefined {
  /** The caller's block, the member's channel as the Dest… block, then the queue and member. */
  const agentFields = (e: AgentEvent): Field[] => [
    ...channel(e.channel),
    ...channel(e.member_channel, 'Dest'),
    ['Queue', e.queue],
    ['MemberName', e.member],
    ['Interface', e.interface],
  ];
  /** A conference user's events: the conference, its bridge, then the user's channel. */
  const conferenceUserFields = (e: ConferenceUserEvent): Field[] => [
    ['Conference', e.conference],
    ...bridgeFields(e.bridge),
    ...channel(e.channel),
  ];
  const agent = (name: string, fields: Field[]): ManagerEvent[] => [{ name, classes: ['agent'], fields }];
  const call = (name: string, fields: Field[]): ManagerEvent[] => [{ name, classes: ['call'], fields }];
  switch (event.type) {
    case 'QueueCallerJoin':
      return agent(event.type, [
        ...channel(event.channel),
        ['Queue', event.queue],
        ['Position', String(event.position)],
        ['Count', String(event.count)],
      ]);
    case 'QueueCallerLeave':
      // The original's order differs from QueueCallerJoin's here.
      return agent(event.type, [
        ...channel(event.channel),
        ['Queue', event.queue],
        ['Count', String(event.count)],
        ['Position', String(event.position)],
      ]);
    case 'QueueCallerAbandon':
      return agent(event.type, [
        ...channel(event.channel),
        ['Queue', event.queue],
        ['Position', String(event.position)],
        ['OriginalPosition', String(event.original_position)],
        ['HoldTime', String(event.hold_time)],
      ]);
    case 'AgentCalled':
      return agent(event.type, agentFields(event));
    case 'AgentConnect':
      return agent(event.type, [...agentFields(event), ['HoldTime', String(event.hold_time)], ['RingTime', String(event.ring_time)]]);
    case 'AgentComplete':
      return agent(event.type, [
        ...agentFields(event),
        ['HoldTime', String(event.hold_time)],
        ['TalkTime', String(event.talk_time)],
        ['Reason', event.reason],
      ]);
    case 'AgentRingNoAnswer':
      return agent(event.type, [...agentFields(event), ['RingTime', String(event.ring_time)]]);
    case 'QueueMemberAdded':
    case 'QueueMemberRemoved':
    case 'QueueMemberStatus':
      return agent(event.type, queueMemberFields(event.queue, event.member));
    case 'QueueMemberPause':
      return agent(event.type, [...queueMemberFields(event.queue, event.member), ['Reason', event.reason]]);
    case 'ConfbridgeStart':
    case 'ConfbridgeEnd':
      return call(event.type, [['Conference', event.conference], ...bridgeFields(event.bridge)]);
    case 'ConfbridgeJoin':
      return call(event.type, [...conferenceUserFields(event), ['Admin', yesNo(event.admin)], ['Muted', yesNo(event.muted)]]);
    case 'ConfbridgeLeave':
      return call(event.type, [...conferenceUserFields(event), ['Admin', yesNo(event.admin)]]);
    case 'ConfbridgeMute':
      // The original has two events, ConfbridgeMute and ConfbridgeUnmute.
      return call(event.muted ? 'ConfbridgeMute' : 'ConfbridgeUnmute', [...conferenceUserFields(event), ['Admin', yesNo(event.admin)]]);
    case 'ConfbridgeTalking':
      return call(event.type, [
        ...conferenceUserFields(event),
        ['TalkingStatus', event.talking ? 'on' : 'off'],
        ['Admin', yesNo(event.admin)],
      ]);
    case 'ConfbridgeRecord':
      // The original names no file in these events (ConfBridge's console and ConfbridgeStartRecord do).
      return call(event.recording_state === 'started' ? 'ConfbridgeRecord' : 'ConfbridgeStopRecord', [
        ['Conference', event.conference],
        ...bridgeFields(event.bridge),
      ]);
    case 'ConfbridgeLock':
      // Switchboard's own: the original raises no event when a conference is locked or unlocked.
      return call(event.locked ? 'ConfbridgeLock' : 'ConfbridgeUnlock', [['Conference', event.conference], ...bridgeFields(event.bridge)]);
    case 'VoicemailMessageStored':
    case 'VoicemailMessageRemoved':
    case 'VoicemailMessageMoved':
    case 'MessageWaiting':
      return [];
    default:
      return undefined;
  }
}
