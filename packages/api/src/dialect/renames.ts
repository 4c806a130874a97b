/**
 * The one table of what the `asterisk` dialect names differently from SPEC.md (the `switchboard`
 * dialect): reference/ari/README.md §9 (identifiers with the product's words) and gaps.md (where
 * the spec and the reference disagree). Both directions come from here: answers and events are
 * written in the user's dialect, requests are read from it. Nothing else branches on the dialect.
 */
import type { ApiDialect, CoreErrorCode } from '@switchboard/core';

/** One name as each dialect writes it. */
export type Renamed<T = string> = { readonly [D in ApiDialect]: T };

/** A property value renamed in one model's property; `onlyIn` restricts it to one event type. */
export interface ValueRename extends Renamed {
  readonly model: string;
  readonly property: string;
  readonly onlyIn?: string;
}

export interface PropertyRename extends Renamed {
  readonly model: string;
}

/** The leading part of a name: `SIP` of `SIP/alice-0000002a`, `App` of `App:door`. */
export interface NamePrefixRename extends Renamed {
  readonly separator: string;
}

export interface ErrorStatusRename extends Renamed<number> {
  readonly code: CoreErrorCode;
}

export const DIALECT_RENAMES = {
  /** Resources: the listing entry, `/api-docs/<name>.json` and the first segment of their paths. */
  resources: [{ switchboard: 'system', asterisk: 'asterisk' }] as readonly Renamed[],

  /** Model ids, event types included: a message's `type`, event filters, api-docs. Applied at once, not in turn. */
  models: [
    { switchboard: 'AppStart', asterisk: 'StasisStart' },
    { switchboard: 'AppEnd', asterisk: 'StasisEnd' },
    { switchboard: 'SystemInfo', asterisk: 'AsteriskInfo' },
    { switchboard: 'SystemVersionInfo', asterisk: 'SystemInfo' },
    { switchboard: 'SystemPing', asterisk: 'AsteriskPing' },
  ] as readonly Renamed[],

  /** The SIP technology and the prefix of devices controlled through the API. */
  namePrefixes: [
    { switchboard: 'SIP', asterisk: 'PJSIP', separator: '/' },
    { switchboard: 'App', asterisk: 'Stasis', separator: ':' },
  ] as readonly NamePrefixRename[],

  values: [
    { model: 'Playback', property: 'state', switchboard: 'enqueued', asterisk: 'queued' },
    { model: 'Playback', property: 'state', switchboard: 'complete', asterisk: 'done' },
    { model: 'Playback', property: 'state', switchboard: 'playing', asterisk: 'continuing', onlyIn: 'PlaybackContinuing' },
    { model: 'DialplanCEP', property: 'app_name', switchboard: 'App', asterisk: 'Stasis' },
    { model: 'ChannelDialplan', property: 'dialplan_app', switchboard: 'App', asterisk: 'Stasis' },
    { model: 'DialplanCEP', property: 'app_name', switchboard: 'AppBroadcast', asterisk: 'StasisBroadcast' },
    { model: 'ChannelDialplan', property: 'dialplan_app', switchboard: 'AppBroadcast', asterisk: 'StasisBroadcast' },
  ] as readonly ValueRename[],

  properties: [{ model: 'LiveRecording', switchboard: 'total_duration', asterisk: 'duration' }] as readonly PropertyRename[],

  /** A status below 300 means the dialect answers the request as a success without a body. */
  errorStatuses: [
    { code: 'recording_exists', switchboard: 422, asterisk: 409 },
    { code: 'restart_queued', switchboard: 409, asterisk: 204 },
  ] as readonly ErrorStatusRename[],
} as const;

/**
 * Where names (namePrefixes) and event types stand. Model properties are checked on the way out,
 * request parameters on the way in; a `source` parameter holds `<kind>:<name>` references.
 */
export const NAME_PLACES = {
  properties: ['Channel.name', 'Endpoint.technology', 'Application.endpoint_ids', 'Application.device_names', 'DeviceState.name'],
  parameters: ['tech', 'endpoint', 'deviceName'],
  sourceParameters: ['eventSource', 'source'],
} as const;

export const EVENT_TYPE_PLACES = {
  /** Lists of `{"type": <event type>}` objects. */
  properties: ['Application.events_allowed', 'Application.events_disallowed'],
  /** The eventFilter body: `{"allowed": [{"type": …}], "disallowed": [...]}`. */
  parameters: ['filter'],
} as const;
