/**
 * Models of events.json: Message → Event → one model per event kind we send (SPEC §6, reference
 * events.md). Clients such as ari-client look up the model named by each event's `type`, so the
 * table below is keyed by every type core can deliver to an application: an event kind added to
 * core without a model here does not compile.
 */
import type { ApplicationEvent, ContactInfoSnapshot, PeerSnapshot } from '@switchboard/core';
import { type ModelDecl, type ModelFor, type PropertyDecl, listOfAll } from '../types.js';
import { CONNECTION_EVENT_MODELS, CONNECTION_MODELS } from './connection-events.js';

export type WireEventType = ApplicationEvent['type'];

/** An event's own fields: the envelope (`type`, `timestamp`, `application`) belongs to Message/Event. */
type OwnFields<T extends WireEventType> = Omit<Extract<ApplicationEvent, { type: T }>, 'type' | 'timestamp' | 'application'>;

const channel = (description: string): PropertyDecl => ({ type: 'Channel', description, required: true });
const playback = (description: string): PropertyDecl => ({ type: 'Playback', description, required: true });
const bridge = (description: string): PropertyDecl => ({ type: 'Bridge', description, required: true });
const recording = (description: string): PropertyDecl => ({ type: 'LiveRecording', description, required: true });
const endpoint = (description: string): PropertyDecl => ({ type: 'Endpoint', description, required: true });

export const EVENT_MODELS: { readonly [T in WireEventType]: ModelFor<OwnFields<T>> & { readonly id: T } } = {
  AppStart: {
    id: 'AppStart',
    description: 'Notification that a channel has entered an application.',
    properties: {
      args: { type: 'List[string]', description: 'Arguments to the application', required: true },
      channel: channel('The channel that entered the application'),
      replace_channel: { type: 'Channel', description: 'The channel this one replaces, if any', required: false },
    },
  },
  AppEnd: {
    id: 'AppEnd',
    description: 'Notification that a channel has left an application.',
    properties: { channel: channel('The channel that left the application') },
  },
  CallBroadcast: {
    id: 'CallBroadcast',
    description: 'A channel is offered to applications for claiming (AppBroadcast dialplan application).',
    properties: {
      channel: channel('The channel being broadcast'),
      caller: { type: 'string', description: 'The caller number', required: false },
      called: { type: 'string', description: 'The called extension', required: false },
    },
  },
  CallClaimed: {
    id: 'CallClaimed',
    description: 'A broadcast channel was claimed.',
    properties: {
      channel: channel('The channel that was claimed'),
      winner_app: { type: 'string', description: 'The application that won the claim', required: true },
    },
  },
  ChannelToneDetected: {
    id: 'ChannelToneDetected',
    description: 'A tone set up with TONE_DETECT was detected on the channel.',
    properties: { channel: channel('The channel on which the tone was detected') },
  },
  ChannelCreated: {
    id: 'ChannelCreated',
    description: 'Notification that a channel has been created.',
    properties: { channel: channel('The new channel') },
  },
  ChannelStateChange: {
    id: 'ChannelStateChange',
    description: 'Notification of a channel state change.',
    properties: { channel: channel('The channel in its new state') },
  },
  ChannelDestroyed: {
    id: 'ChannelDestroyed',
    description: 'Notification that a channel has been destroyed.',
    properties: {
      cause: { type: 'int', description: 'Integer representation of the cause of the hangup', required: true },
      cause_txt: { type: 'string', description: 'Text representation of the cause of the hangup', required: true },
      tech_cause: { type: 'int', description: 'Technology-specific cause (the last SIP status), when there is one', required: false },
      channel: channel('The destroyed channel'),
    },
  },
  ChannelDialplan: {
    id: 'ChannelDialplan',
    description: 'Channel changed location in the dialplan.',
    properties: {
      channel: channel('The channel that changed dialplan location'),
      dialplan_app: { type: 'string', description: 'The application about to be executed', required: true },
      dialplan_app_data: { type: 'string', description: 'The data to be passed to the application', required: true },
    },
  },
  ChannelVarset: {
    id: 'ChannelVarset',
    description: 'Channel variable changed.',
    properties: {
      variable: { type: 'string', description: 'The variable that changed', required: true },
      value: { type: 'string', description: 'The new value of the variable', required: true },
      channel: { type: 'Channel', description: 'The channel on which the variable was set; absent for global variables', required: false },
    },
  },
  ChannelHangupRequest: {
    id: 'ChannelHangupRequest',
    description: 'A hangup was requested on the channel.',
    properties: {
      cause: { type: 'int', description: 'Integer representation of the cause of the hangup', required: false },
      tech_cause: { type: 'int', description: 'Technology-specific cause, when there is one', required: false },
      soft: { type: 'boolean', description: 'Whether the hangup request was a soft hangup request', required: false },
      channel: channel('The channel on which the hangup was requested'),
    },
  },
  ChannelDtmfReceived: {
    id: 'ChannelDtmfReceived',
    description: 'DTMF received on a channel (sent when the digit ends).',
    properties: {
      digit: { type: 'string', description: 'DTMF digit received (0-9, A-E, # or *)', required: true },
      duration_ms: { type: 'int', description: 'Number of milliseconds the digit was held', required: true },
      channel: channel('The channel on which the digit was received'),
    },
  },
  PlaybackStarted: {
    id: 'PlaybackStarted',
    description: 'Event showing the start of a media playback operation.',
    properties: { playback: playback('Playback control object') },
  },
  PlaybackContinuing: {
    id: 'PlaybackContinuing',
    description: 'Event showing the continuation of a media playback operation from one media URI to the next in the list.',
    properties: { playback: playback('Playback control object') },
  },
  PlaybackFinished: {
    id: 'PlaybackFinished',
    description: 'Event showing the completion of a media playback operation.',
    properties: { playback: playback('Playback control object') },
  },
  ChannelHold: {
    id: 'ChannelHold',
    description: 'A channel initiated a media hold.',
    properties: {
      channel: channel('The channel that initiated the hold event'),
      musicclass: { type: 'string', description: 'The music on hold class that the initiator requested', required: false },
    },
  },
  ChannelUnhold: {
    id: 'ChannelUnhold',
    description: 'A channel initiated a media unhold.',
    properties: { channel: channel('The channel that initiated the unhold event') },
  },
  ChannelTalkingStarted: {
    id: 'ChannelTalkingStarted',
    description: 'Talking was detected on the channel.',
    properties: { channel: channel('The channel on which talking started') },
  },
  ChannelTalkingFinished: {
    id: 'ChannelTalkingFinished',
    description: 'Talking is no longer detected on the channel.',
    properties: {
      channel: channel('The channel on which talking completed'),
      duration: { type: 'int', description: 'The length of time, in milliseconds, that talking was detected', required: true },
    },
  },
  ChannelConnectedLine: {
    id: 'ChannelConnectedLine',
    description: 'Channel connected line has changed.',
    properties: { channel: channel('The channel whose connected line has changed') },
  },
  ChannelCallerId: {
    id: 'ChannelCallerId',
    description: 'Channel changed Caller ID.',
    properties: {
      caller_presentation: { type: 'int', description: 'The integer representation of the Caller Presentation value', required: true },
      caller_presentation_txt: { type: 'string', description: 'The text representation of the Caller Presentation value', required: true },
      channel: channel('The channel that changed Caller ID'),
    },
  },
  ChannelUserevent: {
    id: 'ChannelUserevent',
    description: 'User-generated event with additional user-defined fields in the object.',
    properties: {
      eventname: { type: 'string', description: 'The name of the user event', required: true },
      channel: { type: 'Channel', description: 'A channel that is signaled with the user event', required: false },
      bridge: { type: 'Bridge', description: 'A bridge that is signaled with the user event', required: false },
      endpoint: { type: 'Endpoint', description: 'An endpoint that is signaled with the user event', required: false },
      userevent: { type: 'object', description: 'Custom Userevent data', required: true },
    },
  },
  ApplicationMoveFailed: {
    id: 'ApplicationMoveFailed',
    description: 'Notification that trying to move a channel to another application failed.',
    properties: {
      channel: channel('The channel that could not be moved'),
      destination: { type: 'string', description: 'The application the channel was to be moved to', required: true },
      args: { type: 'List[string]', description: 'Arguments to the application', required: true },
    },
  },
  Dial: {
    id: 'Dial',
    description: 'Dialing state has changed.',
    properties: {
      caller: { type: 'Channel', description: 'The calling channel', required: false },
      peer: channel('The dialed channel'),
      forward: { type: 'string', description: 'Forwarding target requested by the original dialed channel', required: false },
      forwarded: { type: 'Channel', description: 'Channel that the caller has been forwarded to', required: false },
      dialstring: { type: 'string', description: 'The dial string for calling the peer channel', required: false },
      dialstatus: { type: 'string', description: 'Current status of the dialing attempt to the peer', required: true },
    },
  },
  BridgeCreated: {
    id: 'BridgeCreated',
    description: 'Notification that a bridge has been created.',
    properties: { bridge: bridge('The new bridge') },
  },
  BridgeDestroyed: {
    id: 'BridgeDestroyed',
    description: 'Notification that a bridge has been destroyed.',
    properties: { bridge: bridge('The destroyed bridge') },
  },
  BridgeMerged: {
    id: 'BridgeMerged',
    description: 'Notification that one bridge has merged into another.',
    properties: { bridge: bridge('The surviving bridge'), bridge_from: bridge('The bridge merged into it') },
  },
  BridgeVideoSourceChanged: {
    id: 'BridgeVideoSourceChanged',
    description: 'Notification that the source of video in a bridge has changed.',
    properties: {
      bridge: bridge('The bridge with its new video source'),
      old_video_source_id: { type: 'string', description: 'The previous video source channel, if any', required: false },
    },
  },
  ChannelEnteredBridge: {
    id: 'ChannelEnteredBridge',
    description: 'Notification that a channel has entered a bridge.',
    properties: { bridge: bridge('The bridge'), channel: { type: 'Channel', description: 'The channel that entered', required: false } },
  },
  ChannelLeftBridge: {
    id: 'ChannelLeftBridge',
    description: 'Notification that a channel has left a bridge.',
    properties: { bridge: bridge('The bridge'), channel: channel('The channel that left') },
  },
  BridgeBlindTransfer: {
    id: 'BridgeBlindTransfer',
    description: 'Notification that a blind transfer has occurred.',
    properties: {
      channel: channel('The channel performing the blind transfer'),
      replace_channel: {
        type: 'Channel',
        description: 'The channel that is replacing transferer when the transferee(s) can not be transferred directly',
        required: false,
      },
      transferee: { type: 'Channel', description: 'The channel that is being transferred', required: false },
      exten: { type: 'string', description: 'The extension transferred to', required: true },
      context: { type: 'string', description: 'The context transferred to', required: true },
      result: { type: 'string', description: 'The result of the transfer attempt', required: true },
      is_external: { type: 'boolean', description: 'Whether the transfer was externally initiated or not', required: true },
      bridge: { type: 'Bridge', description: 'The bridge being transferred', required: false },
    },
  },
  BridgeAttendedTransfer: {
    id: 'BridgeAttendedTransfer',
    description: 'Notification that an attended transfer has occurred.',
    properties: {
      transferer_first_leg: channel('First leg of the transferer'),
      transferer_second_leg: channel('Second leg of the transferer'),
      replace_channel: { type: 'Channel', description: 'The channel that is replacing transferer_first_leg in the swap', required: false },
      transferee: { type: 'Channel', description: 'The channel that is being transferred', required: false },
      transfer_target: { type: 'Channel', description: 'The channel that is being transferred to', required: false },
      result: { type: 'string', description: 'The result of the transfer attempt', required: true },
      is_external: { type: 'boolean', description: 'Whether the transfer was externally initiated or not', required: true },
      transferer_first_leg_bridge: { type: 'Bridge', description: 'Bridge the transferer first leg is in', required: false },
      transferer_second_leg_bridge: { type: 'Bridge', description: 'Bridge the transferer second leg is in', required: false },
      destination_type: { type: 'string', description: 'How the transfer was accomplished', required: true },
      destination_bridge: { type: 'string', description: 'Bridge that survived the merge result', required: false },
      destination_application: { type: 'string', description: 'Application that has been transferred into', required: false },
      destination_link_first_leg: { type: 'Channel', description: 'First leg of a link transfer result', required: false },
      destination_link_second_leg: { type: 'Channel', description: 'Second leg of a link transfer result', required: false },
      destination_threeway_channel: {
        type: 'Channel',
        description: 'Transferer channel that survived the threeway result',
        required: false,
      },
      destination_threeway_bridge: { type: 'Bridge', description: 'Bridge that survived the threeway result', required: false },
    },
  },
  ChannelTransfer: {
    id: 'ChannelTransfer',
    description: 'A SIP REFER on a channel of the application, left to the application (PJSIP_TRANSFER_HANDLING ari-only).',
    properties: {
      state: { type: 'string', description: 'Progress of the transfer, when it applies', required: false },
      refer_to: { type: 'ReferTo', description: 'What the REFER asks for and the channels it concerns', required: true },
      referred_by: { type: 'ReferredBy', description: 'The channel the REFER came on and what it is connected to', required: true },
    },
  },
  RecordingStarted: {
    id: 'RecordingStarted',
    description: 'Event showing the start of a recording operation.',
    properties: { recording: recording('Recording control object') },
  },
  RecordingFinished: {
    id: 'RecordingFinished',
    description: 'Event showing the completion of a recording operation.',
    properties: { recording: recording('Recording control object') },
  },
  RecordingFailed: {
    id: 'RecordingFailed',
    description: 'Event showing failure of a recording operation.',
    properties: { recording: recording('Recording control object') },
  },
  DeviceStateChanged: {
    id: 'DeviceStateChanged',
    description: 'Notification that a device state has changed.',
    properties: { device_state: { type: 'DeviceState', description: 'Device state object', required: true } },
  },
  EndpointStateChange: {
    id: 'EndpointStateChange',
    description: 'Endpoint state changed.',
    properties: { endpoint: endpoint('The endpoint') },
  },
  ContactStatusChange: {
    id: 'ContactStatusChange',
    description: 'The state of a contact on an endpoint has changed.',
    properties: { endpoint: endpoint('The endpoint'), contact_info: { type: 'ContactInfo', description: 'The contact', required: true } },
  },
  PeerStatusChange: {
    id: 'PeerStatusChange',
    description: 'The state of a peer associated with an endpoint has changed.',
    properties: { endpoint: endpoint('The endpoint'), peer: { type: 'Peer', description: 'The peer', required: true } },
  },
  TextMessageReceived: {
    id: 'TextMessageReceived',
    description: 'A text message was received from an endpoint.',
    properties: {
      message: { type: 'TextMessage', description: 'The message', required: true },
      endpoint: { type: 'Endpoint', description: 'The endpoint that received it', required: false },
    },
  },
  ApplicationReplaced: {
    id: 'ApplicationReplaced',
    description: 'Notification that another WebSocket has taken over for an application; this one receives nothing more for it.',
    properties: {},
  },
};

export const MessageModel: ModelDecl = {
  id: 'Message',
  description: 'Base type for errors and events',
  discriminator: 'type',
  subTypes: ['MissingParams', 'Event'],
  properties: {
    type: { type: 'string', description: 'Indicates the type of this message.', required: true },
    asterisk_id: { type: 'string', description: 'The unique identifier of the system that generated this event.', required: false },
  },
};

export const MissingParamsModel: ModelDecl = {
  id: 'MissingParams',
  description: 'Error event sent when required params are missing.',
  properties: {
    params: { type: 'List[string]', description: 'A list of the missing parameters', required: true },
  },
};

export const ContactInfoModel = {
  id: 'ContactInfo',
  description: 'Detailed information about a contact on an endpoint.',
  properties: {
    uri: { type: 'string', description: 'The location of the contact.', required: true },
    contact_status: {
      type: 'string',
      description: 'The current status of the contact.',
      required: true,
      allowableValues: listOfAll<ContactInfoSnapshot['contact_status']>()([
        'Unreachable',
        'Reachable',
        'Unknown',
        'NonQualified',
        'Removed',
      ]),
    },
    aor: { type: 'string', description: 'The Address of Record this contact belongs to.', required: true },
    roundtrip_usec: { type: 'string', description: 'Current round trip time, in microseconds, for the contact.', required: false },
  },
} as const satisfies ModelFor<ContactInfoSnapshot>;

export const PeerModel = {
  id: 'Peer',
  description: 'Detailed information about a remote peer that communicates with the server.',
  properties: {
    peer_status: { type: 'string', description: 'The current state of the peer.', required: true },
    cause: { type: 'string', description: 'An optional reason associated with the change in peer_status.', required: false },
    address: { type: 'string', description: 'The IP address of the peer.', required: false },
    port: { type: 'string', description: 'The port of the peer.', required: false },
    time: { type: 'string', description: 'The last known time the peer was contacted.', required: false },
  },
} as const satisfies ModelFor<PeerSnapshot>;

export const EventModel: ModelDecl = {
  id: 'Event',
  description: 'Base type for asynchronous events.',
  subTypes: [...Object.keys(EVENT_MODELS), ...CONNECTION_EVENT_MODELS.map((model) => model.id)],
  properties: {
    application: { type: 'string', description: 'Name of the application receiving the event.', required: true },
    timestamp: { type: 'Date', description: 'Time at which this event was created.', required: true },
    sequence: {
      type: 'long',
      description: "Position of the event in the application's stream (1, 2, 3…); what ?resume= takes",
      required: false,
    },
  },
};

/** The parts of a ChannelTransfer event. */
export const AdditionalParamModel: ModelDecl = {
  id: 'AdditionalParam',
  description: 'A protocol parameter of a transfer request, by name.',
  properties: {
    parameter_name: { type: 'string', description: 'Parameter name', required: true },
    parameter_value: { type: 'string', description: 'Parameter value', required: true },
  },
};

export const RequiredDestinationModel: ModelDecl = {
  id: 'RequiredDestination',
  description: 'The destination a transfer request names.',
  properties: {
    protocol_id: {
      type: 'string',
      description: 'Call-ID of the dialog to replace (attended transfer); never with destination',
      required: false,
    },
    destination: { type: 'string', description: 'User part of the target (blind transfer); never with protocol_id', required: false },
    additional_protocol_params: { type: 'List[AdditionalParam]', description: 'Further protocol parameters', required: false },
  },
};

export const ReferToModel: ModelDecl = {
  id: 'ReferTo',
  description: 'The target part of a transfer request.',
  properties: {
    requested_destination: { type: 'RequiredDestination', description: 'What the transfer asks for', required: true },
    destination_channel: { type: 'Channel', description: 'The channel an attended transfer replaces', required: false },
    connected_channel: { type: 'Channel', description: 'The channel connected to the one replaced', required: false },
    bridge: { type: 'Bridge', description: 'The bridge of the channel replaced', required: false },
  },
};

export const ReferredByModel: ModelDecl = {
  id: 'ReferredBy',
  description: 'The origin part of a transfer request.',
  properties: {
    source_channel: { type: 'Channel', description: 'The channel the REFER arrived on', required: true },
    connected_channel: { type: 'Channel', description: 'The channel connected to the source channel', required: false },
    bridge: { type: 'Bridge', description: 'The bridge of the source channel', required: false },
  },
};

export const EVENTS_RESOURCE_MODELS: readonly ModelDecl[] = [
  MessageModel,
  MissingParamsModel,
  EventModel,
  ContactInfoModel,
  PeerModel,
  AdditionalParamModel,
  RequiredDestinationModel,
  ReferToModel,
  ReferredByModel,
  ...Object.values(EVENT_MODELS),
  ...CONNECTION_MODELS,
];
