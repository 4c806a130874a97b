/**
 * Typed domain events: every state change of the object model goes through the bus as one of these.
 * They carry snapshots taken at the moment of the change; the api package turns them into wire
 * events and routes them to subscribed applications.
 */
import type { ChannelSnapshot, PlaybackSnapshot } from '../model/snapshots.js';

export type DomainEvent =
  | { type: 'ChannelCreated'; channel: ChannelSnapshot }
  | { type: 'ChannelStateChange'; channel: ChannelSnapshot }
  | { type: 'ChannelDialplan'; channel: ChannelSnapshot; dialplan_app: string; dialplan_app_data: string }
  | { type: 'ChannelVarset'; channel?: ChannelSnapshot; variable: string; value: string }
  | { type: 'ChannelHangupRequest'; channel: ChannelSnapshot; cause?: number; soft?: boolean }
  | { type: 'ChannelDestroyed'; channel: ChannelSnapshot; cause: number; cause_txt: string }
  | { type: 'ChannelDtmfReceived'; channel: ChannelSnapshot; digit: string; duration_ms: number }
  /** A channel entered an application: the application is subscribed to it from now on. */
  | { type: 'AppStart'; application: string; channel: ChannelSnapshot; args: string[] }
  | { type: 'AppEnd'; application: string; channel: ChannelSnapshot }
  | { type: 'PlaybackStarted'; playback: PlaybackSnapshot }
  | { type: 'PlaybackContinuing'; playback: PlaybackSnapshot }
  | { type: 'PlaybackFinished'; playback: PlaybackSnapshot };

export type DomainEventType = DomainEvent['type'];

/** The envelope the bus adds: when it happened. */
export type TimedDomainEvent = DomainEvent & { timestamp: Date };
