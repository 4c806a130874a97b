/**
 * The header blocks the original repeats across events and action responses: a channel's state
 * (`Channel`, `ChannelState`, … `Linkedid`, optionally with a prefix such as `Dest`) and a bridge's
 * (`BridgeUniqueid`, …).
 */
import { type BridgeSnapshot, CHANNEL_STATES, type ChannelSnapshot } from '@switchboard/core';
import type { PermissionClass } from './permissions.js';
import type { Field } from './wire.js';

/** What the original shows for an empty caller id or name. */
const UNKNOWN = '<unknown>';

export interface ManagerEvent {
  name: string;
  /** Read classes that receive it (a reader of any one of them does). */
  classes: readonly PermissionClass[];
  fields: Field[];
}

/** The numeric state of the original (`ChannelState: 6` for Up). */
export function channelStateCode(state: ChannelSnapshot['state']): number {
  const index = CHANNEL_STATES.indexOf(state);
  return index < 0 || state === 'Unknown' ? 10 : index;
}

/** `linkedid` is the id of the call's first channel; `channelFields` takes it from the caller. */
export function channelFields(channel: ChannelSnapshot, linkedId: string = channel.id, prefix = ''): Field[] {
  const p = (name: string) => `${prefix}${name}`;
  return [
    [p('Channel'), channel.name],
    [p('ChannelState'), String(channelStateCode(channel.state))],
    [p('ChannelStateDesc'), channel.state],
    [p('CallerIDNum'), channel.caller.number || UNKNOWN],
    [p('CallerIDName'), channel.caller.name || UNKNOWN],
    [p('ConnectedLineNum'), channel.connected.number || UNKNOWN],
    [p('ConnectedLineName'), channel.connected.name || UNKNOWN],
    [p('Language'), channel.language],
    [p('AccountCode'), channel.accountcode],
    [p('Context'), channel.dialplan.context],
    [p('Exten'), channel.dialplan.exten],
    [p('Priority'), String(channel.dialplan.priority)],
    [p('Uniqueid'), channel.id],
    [p('Linkedid'), linkedId],
  ];
}

export function bridgeFields(bridge: BridgeSnapshot, prefix = ''): Field[] {
  const p = (name: string) => `${prefix}${name}`;
  const fields: Field[] = [
    [p('BridgeUniqueid'), bridge.id],
    [p('BridgeType'), bridge.bridge_type],
    [p('BridgeTechnology'), bridge.technology],
    [p('BridgeCreator'), bridge.creator || UNKNOWN],
    [p('BridgeName'), bridge.name || UNKNOWN],
    [p('BridgeNumChannels'), String(bridge.channels.length)],
    [p('BridgeVideoSourceMode'), bridge.video_mode ?? 'none'],
  ];
  if (bridge.video_source_id) fields.push([p('BridgeVideoSource'), bridge.video_source_id]);
  return fields;
}

/** `HH:MM:SS` as CoreShowChannel's Duration. */
export function clockDuration(ms: number): string {
  const total = Math.max(0, Math.floor(ms / 1000));
  const two = (n: number) => String(n).padStart(2, '0');
  return `${two(Math.floor(total / 3600))}:${two(Math.floor((total % 3600) / 60))}:${two(total % 60)}`;
}

/** An event on the wire: `Event`, `Privilege`, the optional `Timestamp`, then its fields. */
export function formatEventFields(event: ManagerEvent, options: { timestamp?: boolean; actionId?: string } = {}): Field[] {
  const fields: Field[] = [
    ['Event', event.name],
    ['Privilege', [...event.classes, 'all'].join(',')],
  ];
  if (options.actionId !== undefined) fields.push(['ActionID', options.actionId]);
  if (options.timestamp) fields.push(['Timestamp', (Date.now() / 1000).toFixed(6)]);
  return [...fields, ...event.fields];
}
