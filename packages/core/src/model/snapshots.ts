/**
 * Snapshots are the plain, JSON-ready views of core objects. Their field names are the wire names
 * of the control API (see shared/reference/ari), so the api package serialises them as they are.
 */
import type { ChannelState } from './channel-state.js';

export interface CallerId {
  name: string;
  number: string;
}

export interface DialplanLocation {
  context: string;
  exten: string;
  priority: number;
  app_name: string;
  app_data: string;
}

export interface ChannelSnapshot {
  id: string;
  protocol_id: string;
  name: string;
  state: ChannelState;
  caller: CallerId;
  connected: CallerId;
  accountcode: string;
  dialplan: DialplanLocation;
  /** Wire date: YYYY-MM-DDTHH:MM:SS.mmm±hhmm */
  creationtime: string;
  language: string;
  channelvars?: Record<string, string>;
  caller_rdnis?: string;
  tenantid?: string;
}

/**
 * Wire states of a playback (SPEC §2.12). A paused playback still shows `playing`; between two items
 * of a list it shows `playing` as well, with the next item announced by PlaybackContinuing.
 */
export type PlaybackState = 'enqueued' | 'playing' | 'complete' | 'failed';

export interface PlaybackSnapshot {
  id: string;
  media_uri: string;
  next_media_uri?: string;
  target_uri: string;
  language: string;
  state: PlaybackState;
}

export interface FormatLangPair {
  language: string;
  format: string;
}

export interface SoundSnapshot {
  id: string;
  text?: string;
  formats: FormatLangPair[];
}

export interface ApplicationSnapshot {
  name: string;
  channel_ids: string[];
  bridge_ids: string[];
  endpoint_ids: string[];
  device_names: string[];
  events_allowed: { type: string }[];
  events_disallowed: { type: string }[];
}

export interface Variable {
  value: string;
}
