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

export type BridgeVideoMode = 'none' | 'talker' | 'sfu' | 'single';

export interface BridgeSnapshot {
  id: string;
  technology: string;
  bridge_type: 'mixing' | 'holding';
  bridge_class: string;
  creator: string;
  name: string;
  channels: string[];
  video_mode?: BridgeVideoMode;
  video_source_id?: string;
  /** Wire date. */
  creationtime: string;
  bridgevars?: Record<string, string>;
}

/** Reference states of a live recording. */
export type LiveRecordingState = 'queued' | 'recording' | 'paused' | 'done' | 'failed' | 'canceled';

export interface LiveRecordingSnapshot {
  name: string;
  format: string;
  /** `channel:{id}` or `bridge:{id}` */
  target_uri: string;
  state: LiveRecordingState;
  /** Seconds (SPEC §2.11; the reference's name, `duration`, is the asterisk dialect's). */
  total_duration?: number;
  /** Seconds; only when silence detection was enabled. */
  talking_duration?: number;
  silence_duration?: number;
  /** Why it failed. */
  cause?: string;
}

export interface StoredRecordingSnapshot {
  name: string;
  format: string;
}

export type EndpointState = 'unknown' | 'offline' | 'online';

export interface EndpointSnapshot {
  technology: string;
  resource: string;
  state?: EndpointState;
  channel_ids: string[];
}

export type DeviceStateValue = 'UNKNOWN' | 'NOT_INUSE' | 'INUSE' | 'BUSY' | 'INVALID' | 'UNAVAILABLE' | 'RINGING' | 'RINGINUSE' | 'ONHOLD';

export interface DeviceStateSnapshot {
  name: string;
  state: DeviceStateValue;
}

export interface MailboxSnapshot {
  name: string;
  old_messages: number;
  new_messages: number;
}

export interface TextMessageSnapshot {
  from: string;
  to: string;
  body: string;
  variables?: Record<string, string>;
}

export interface ContactInfoSnapshot {
  uri: string;
  contact_status: 'Unreachable' | 'Reachable' | 'Unknown' | 'NonQualified' | 'Removed';
  aor: string;
  roundtrip_usec?: string;
}

export interface PeerSnapshot {
  peer_status: string;
  cause?: string;
  address?: string;
  port?: string;
  time?: string;
}
