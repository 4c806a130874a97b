/**
 * Domain events of the core bus → the manager events of the original, with its names and fields.
 * Both control surfaces see the same calls because both read the same bus. The translator keeps
 * one piece of state: each channel's linked id (the id of the first channel of its call), learnt
 * from Dial events, so the legs of one call share a `Linkedid`.
 */
import type { BridgeSnapshot, ChannelSnapshot, DomainEvent } from '@switchboard/core';
import { bridgeFields, channelFields, type ManagerEvent } from './fields.js';
import { translateOfficeEvent } from './office-event-map.js';
import type { Field } from './wire.js';

/** Dial statuses that end a dial attempt (DialEnd); the others are progress (DialState). */
const PROGRESS_STATUSES = new Set(['RINGING', 'PROGRESS', 'PROCEEDING']);

const DEST_TYPES: Record<string, string> = {
  bridge: 'Bridge',
  application: 'App',
  link: 'Link',
  threeway: 'Threeway',
  fail: 'Fail',
};

/**
 * How many ended channels keep their linked id: events sent after a hangup still name the channel
 * (AgentComplete's Dest… block names a member who hung up first), and memory stays bounded.
 */
const ENDED_CHANNELS_REMEMBERED = 1000;

export class EventTranslator {
  readonly #linked = new Map<string, string>();
  /** Ended channels with a linked id, oldest first. */
  readonly #ended: string[] = [];

  linkedId(channelId: string): string {
    return this.#linked.get(channelId) ?? channelId;
  }

  #channel(channel: ChannelSnapshot, prefix = ''): Field[] {
    return channelFields(channel, this.linkedId(channel.id), prefix);
  }

  translate(event: DomainEvent): ManagerEvent[] {
    const call = (name: string, fields: Field[]): ManagerEvent => ({ name, classes: ['call'], fields });
    switch (event.type) {
      case 'ChannelCreated':
        return [call('Newchannel', this.#channel(event.channel))];
      case 'ChannelStateChange':
        return [call('Newstate', this.#channel(event.channel))];
      case 'ChannelDialplan':
        return [
          {
            name: 'Newexten',
            classes: ['dialplan'],
            fields: [
              ...this.#channel(event.channel),
              ['Extension', event.channel.dialplan.exten],
              ['Application', event.dialplan_app],
              ['AppData', event.dialplan_app_data],
            ],
          },
        ];
      case 'ChannelVarset':
        return [
          {
            name: 'VarSet',
            classes: ['dialplan'],
            fields: [...(event.channel ? this.#channel(event.channel) : []), ['Variable', event.variable], ['Value', event.value]],
          },
        ];
      case 'ChannelHangupRequest':
        return [
          call(event.soft ? 'SoftHangupRequest' : 'HangupRequest', [
            ...this.#channel(event.channel),
            ...(event.cause === undefined ? [] : ([['Cause', String(event.cause)]] as Field[])),
          ]),
        ];
      case 'ChannelDestroyed': {
        const fields = this.#channel(event.channel);
        this.#forgetLater(event.channel.id);
        return [call('Hangup', [...fields, ['Cause', String(event.cause)], ['Cause-txt', event.cause_txt]])];
      }
      case 'ChannelDtmfReceived': {
        const base = this.#channel(event.channel);
        return [
          { name: 'DTMFBegin', classes: ['dtmf'], fields: [...base, ['Digit', event.digit], ['Direction', 'Received']] },
          {
            name: 'DTMFEnd',
            classes: ['dtmf'],
            fields: [...base, ['Digit', event.digit], ['DurationMs', String(event.duration_ms)], ['Direction', 'Received']],
          },
        ];
      }
      case 'ChannelHold':
        return [
          call('Hold', [...this.#channel(event.channel), ...(event.musicclass ? ([['MusicClass', event.musicclass]] as Field[]) : [])]),
        ];
      case 'ChannelUnhold':
        return [call('Unhold', this.#channel(event.channel))];
      case 'ChannelConnectedLine':
        return [call('NewConnectedLine', this.#channel(event.channel))];
      case 'ChannelCallerId':
        return [
          call('NewCallerid', [
            ...this.#channel(event.channel),
            ['CID-CallingPres', `${event.caller_presentation} (${event.caller_presentation_txt})`],
          ]),
        ];
      case 'ChannelUserevent':
        return this.#userEvent(event);
      case 'Dial':
        return [this.#dial(event)];
      case 'BridgeCreated':
        return [call('BridgeCreate', bridgeFields(event.bridge))];
      case 'BridgeDestroyed':
        return [call('BridgeDestroy', bridgeFields(event.bridge))];
      case 'ChannelEnteredBridge':
        return [call('BridgeEnter', [...bridgeFields(event.bridge), ...this.#channel(event.channel)])];
      case 'ChannelLeftBridge':
        return [call('BridgeLeave', [...bridgeFields(event.bridge), ...this.#channel(event.channel)])];
      case 'BridgeMerged':
        return [call('BridgeMerge', [...bridgeFields(event.bridge, 'To'), ...bridgeFields(event.bridge_from, 'From')])];
      case 'BridgeBlindTransfer':
        return [
          call('BlindTransfer', [
            ['Result', event.result],
            ...this.#channel(event.channel, 'Transferer'),
            ...(event.transferee ? this.#channel(event.transferee, 'Transferee') : []),
            ...(event.bridge ? bridgeFields(event.bridge) : []),
            ['IsExternal', event.is_external ? 'Yes' : 'No'],
            ['Context', event.context],
            ['Extension', event.exten],
          ]),
        ];
      case 'BridgeAttendedTransfer':
        return [this.#attendedTransfer(event)];
      case 'DeviceStateChanged':
        return [
          call('DeviceStateChange', [
            ['Device', event.device_state.name],
            ['State', event.device_state.state],
          ]),
        ];
      case 'PeerStatusChange':
        return [
          {
            name: 'PeerStatus',
            classes: ['system'],
            fields: [
              ['ChannelType', 'PJSIP'],
              ['Peer', `PJSIP/${event.endpoint.resource}`],
              ['PeerStatus', event.peer.peer_status],
              ...optional('Cause', event.peer.cause),
              ...optional('Address', event.peer.address),
              ...optional('Port', event.peer.port),
              ...optional('Time', event.peer.time),
            ],
          },
        ];
      case 'ContactStatusChange':
        return [
          {
            name: 'ContactStatus',
            classes: ['system'],
            fields: [
              ['URI', event.contact_info.uri],
              ['ContactStatus', event.contact_info.contact_status],
              ['AOR', event.contact_info.aor],
              ['EndpointName', event.endpoint.resource],
              ...optional('RoundtripUsec', event.contact_info.roundtrip_usec),
            ],
          },
        ];
      default:
        return translateOfficeEvent(event, (channel, prefix) => this.#channel(channel, prefix)) ?? [];
    }
  }

  #forgetLater(channelId: string): void {
    if (!this.#linked.has(channelId)) return;
    this.#ended.push(channelId);
    if (this.#ended.length > ENDED_CHANNELS_REMEMBERED) {
      const oldest = this.#ended.shift();
      if (oldest !== undefined) this.#linked.delete(oldest);
    }
  }

  /** SPEC §4.2: a user event reaches the manager when a channel is attached to it. */
  #userEvent(event: Extract<DomainEvent, { type: 'ChannelUserevent' }>): ManagerEvent[] {
    if (!event.channel) return [];
    const fields: Field[] = [...this.#channel(event.channel), ['UserEvent', event.eventname]];
    if (event.bridge) fields.push(...bridgeFields(event.bridge));
    for (const [name, value] of Object.entries(event.userevent)) {
      if (name === 'eventname') continue;
      fields.push([name, typeof value === 'string' ? value : JSON.stringify(value)]);
    }
    return [{ name: 'UserEvent', classes: ['user'], fields }];
  }

  #dial(event: Extract<DomainEvent, { type: 'Dial' }>): ManagerEvent {
    if (event.caller) this.#linked.set(event.peer.id, this.linkedId(event.caller.id));
    const fields: Field[] = [...(event.caller ? this.#channel(event.caller) : []), ...this.#channel(event.peer, 'Dest')];
    if (event.dialstatus === '') {
      return { name: 'DialBegin', classes: ['call'], fields: [...fields, ['DialString', event.dialstring ?? '']] };
    }
    if (PROGRESS_STATUSES.has(event.dialstatus)) {
      return { name: 'DialState', classes: ['call'], fields: [...fields, ['DialStatus', event.dialstatus]] };
    }
    return {
      name: 'DialEnd',
      classes: ['call'],
      fields: [...fields, ...optional('Forward', event.forward), ['DialStatus', event.dialstatus]],
    };
  }

  #attendedTransfer(event: Extract<DomainEvent, { type: 'BridgeAttendedTransfer' }>): ManagerEvent {
    const bridge = (b: BridgeSnapshot | undefined, prefix: string) => (b ? bridgeFields(b, prefix) : []);
    const fields: Field[] = [
      ['Result', event.result],
      ...this.#channel(event.transferer_first_leg, 'OrigTransferer'),
      ...bridge(event.transferer_first_leg_bridge, 'Orig'),
      ...this.#channel(event.transferer_second_leg, 'SecondTransferer'),
      ...bridge(event.transferer_second_leg_bridge, 'Second'),
      ['DestType', DEST_TYPES[event.destination_type] ?? 'Fail'],
    ];
    if (event.destination_bridge) fields.push(['DestBridgeUniqueid', event.destination_bridge]);
    if (event.destination_application) fields.push(['DestApp', event.destination_application]);
    if (event.destination_link_first_leg) fields.push(...this.#channel(event.destination_link_first_leg, 'LocalOne'));
    if (event.destination_link_second_leg) fields.push(...this.#channel(event.destination_link_second_leg, 'LocalTwo'));
    if (event.destination_threeway_channel) fields.push(...this.#channel(event.destination_threeway_channel, 'DestTransferer'));
    if (event.destination_threeway_bridge) fields.push(...bridgeFields(event.destination_threeway_bridge, 'Dest'));
    if (event.transferee) fields.push(...this.#channel(event.transferee, 'Transferee'));
    if (event.transfer_target) fields.push(...this.#channel(event.transfer_target, 'TransferTarget'));
    fields.push(['IsExternal', event.is_external ? 'Yes' : 'No']);
    return { name: 'AttendedTransfer', classes: ['call'], fields };
  }
}

function optional(name: string, value: string | undefined): Field[] {
  return value === undefined || value === '' ? [] : [[name, value]];
}
