/**
 * Domain events of the office features (conferences, queues, voicemail). They go through the bus
 * like every other state change, but no control-API wire event is declared for them yet, so the
 * application registry routes them to no application; a manager-interface or console layer maps
 * them. Names follow the original's manager events.
 */
import type { BridgeSnapshot, ChannelSnapshot } from '../model/snapshots.js';

export type OfficeEvent =
  | { type: 'ConfbridgeStart'; conference: string; bridge: BridgeSnapshot }
  | { type: 'ConfbridgeEnd'; conference: string; bridge: BridgeSnapshot }
  | {
      type: 'ConfbridgeJoin';
      conference: string;
      bridge: BridgeSnapshot;
      channel: ChannelSnapshot;
      admin: boolean;
      marked: boolean;
      muted: boolean;
    }
  | { type: 'ConfbridgeLeave'; conference: string; bridge: BridgeSnapshot; channel: ChannelSnapshot; admin: boolean }
  | { type: 'ConfbridgeMute'; conference: string; bridge: BridgeSnapshot; channel: ChannelSnapshot; admin: boolean; muted: boolean }
  | { type: 'ConfbridgeTalking'; conference: string; bridge: BridgeSnapshot; channel: ChannelSnapshot; admin: boolean; talking: boolean }
  | {
      type: 'ConfbridgeRecord';
      conference: string;
      bridge: BridgeSnapshot;
      recording_name: string;
      recording_state: 'started' | 'stopped';
    }
  /** The conference was locked (only admins get in) or unlocked. */
  | { type: 'ConfbridgeLock'; conference: string; bridge: BridgeSnapshot; locked: boolean }
  | { type: 'QueueCallerJoin'; queue: string; channel: ChannelSnapshot; position: number; count: number }
  | { type: 'QueueCallerLeave'; queue: string; channel: ChannelSnapshot; position: number; count: number }
  | { type: 'QueueCallerAbandon'; queue: string; channel: ChannelSnapshot; position: number; original_position: number; hold_time: number }
  /** `member_channel`: the channel that rings the member (the original's Dest… block). */
  | { type: 'AgentCalled'; queue: string; channel: ChannelSnapshot; member_channel: ChannelSnapshot; member: string; interface: string }
  | {
      type: 'AgentConnect';
      queue: string;
      channel: ChannelSnapshot;
      member_channel: ChannelSnapshot;
      member: string;
      interface: string;
      hold_time: number;
      ring_time: number;
    }
  | {
      type: 'AgentComplete';
      queue: string;
      channel: ChannelSnapshot;
      member_channel: ChannelSnapshot;
      member: string;
      interface: string;
      hold_time: number;
      talk_time: number;
      reason: 'caller' | 'agent' | 'transfer';
    }
  | {
      type: 'AgentRingNoAnswer';
      queue: string;
      channel: ChannelSnapshot;
      member_channel: ChannelSnapshot;
      member: string;
      interface: string;
      ring_time: number;
    }
  | { type: 'QueueMemberAdded'; queue: string; member: QueueMemberEventSnapshot }
  | { type: 'QueueMemberRemoved'; queue: string; member: QueueMemberEventSnapshot }
  | { type: 'QueueMemberPause'; queue: string; member: QueueMemberEventSnapshot; reason: string }
  | { type: 'QueueMemberStatus'; queue: string; member: QueueMemberEventSnapshot }
  | {
      type: 'VoicemailMessageStored';
      mailbox: string;
      context: string;
      folder: string;
      message_id: string;
      duration: number;
      caller_id: string;
    }
  | { type: 'VoicemailMessageRemoved'; mailbox: string; context: string; folder: string; message_id: string }
  | { type: 'VoicemailMessageMoved'; mailbox: string; context: string; from_folder: string; to_folder: string; message_id: string }
  | { type: 'MessageWaiting'; mailbox: string; context: string; new_messages: number; old_messages: number };

/** A queue member as office events carry it. */
export interface QueueMemberEventSnapshot {
  name: string;
  interface: string;
  state_interface: string;
  membership: 'static' | 'dynamic';
  penalty: number;
  calls_taken: number;
  last_call: number;
  /** Seconds since the epoch of the last pause (0: never). */
  last_pause: number;
  /** Seconds since the epoch since which the member is in the queue. */
  login_time: number;
  in_call: boolean;
  status: number;
  paused: boolean;
  paused_reason: string;
  /** Whether the member is rung while its device is in use (the queue's ringinuse). */
  ringinuse: boolean;
  wrapup_time: number;
}

const OFFICE_EVENT_TYPES: ReadonlySet<string> = new Set<OfficeEvent['type']>([
  'ConfbridgeStart',
  'ConfbridgeEnd',
  'ConfbridgeJoin',
  'ConfbridgeLeave',
  'ConfbridgeMute',
  'ConfbridgeTalking',
  'ConfbridgeRecord',
  'ConfbridgeLock',
  'QueueCallerJoin',
  'QueueCallerLeave',
  'QueueCallerAbandon',
  'AgentCalled',
  'AgentConnect',
  'AgentComplete',
  'AgentRingNoAnswer',
  'QueueMemberAdded',
  'QueueMemberRemoved',
  'QueueMemberPause',
  'QueueMemberStatus',
  'VoicemailMessageStored',
  'VoicemailMessageRemoved',
  'VoicemailMessageMoved',
  'MessageWaiting',
]);

export function isOfficeEvent(event: { type: string }): event is OfficeEvent {
  return OFFICE_EVENT_TYPES.has(event.type);
}
