/**
 * Models of events.json: Message → Event → one model per event kind we send (SPEC §6, reference
 * events.md). Clients such as ari-client look up the model named by each event's `type`, so the
 * table below is keyed by every type core can deliver to an application: an event kind added to
 * core without a model here does not compile.
 */
import type { ApplicationEvent } from '@switchboard/core';
import type { ModelDecl, ModelFor, PropertyDecl } from '../types.js';

export type WireEventType = ApplicationEvent['type'];

/** An event's own fields: the envelope (`type`, `timestamp`, `application`) belongs to Message/Event. */
type OwnFields<T extends WireEventType> = Omit<Extract<ApplicationEvent, { type: T }>, 'type' | 'timestamp' | 'application'>;

const channel = (description: string): PropertyDecl => ({ type: 'Channel', description, required: true });
const playback = (description: string): PropertyDecl => ({ type: 'Playback', description, required: true });

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

export const EventModel: ModelDecl = {
  id: 'Event',
  description: 'Base type for asynchronous events.',
  subTypes: Object.keys(EVENT_MODELS),
  properties: {
    application: { type: 'string', description: 'Name of the application receiving the event.', required: true },
    timestamp: { type: 'Date', description: 'Time at which this event was created.', required: true },
  },
};

export const EVENTS_RESOURCE_MODELS: readonly ModelDecl[] = [MessageModel, MissingParamsModel, EventModel, ...Object.values(EVENT_MODELS)];
