/**
 * Typed domain events: every state change of the object model goes through the bus as one of these.
 * They carry snapshots taken at the moment of the change; the api package turns them into wire
 * events and routes them to subscribed applications.
 */
import type {
  BridgeSnapshot,
  ChannelSnapshot,
  ContactInfoSnapshot,
  DeviceStateSnapshot,
  EndpointSnapshot,
  LiveRecordingSnapshot,
  PeerSnapshot,
  PlaybackSnapshot,
  TextMessageSnapshot,
} from '../model/snapshots.js';
import type { OfficeEvent } from './office-events.js';

export type DomainEvent =
  | { type: 'ChannelCreated'; channel: ChannelSnapshot }
  | { type: 'ChannelStateChange'; channel: ChannelSnapshot }
  | { type: 'ChannelDialplan'; channel: ChannelSnapshot; dialplan_app: string; dialplan_app_data: string }
  | { type: 'ChannelVarset'; channel?: ChannelSnapshot; variable: string; value: string }
  | { type: 'ChannelHangupRequest'; channel: ChannelSnapshot; cause?: number; soft?: boolean }
  | { type: 'ChannelDestroyed'; channel: ChannelSnapshot; cause: number; cause_txt: string }
  | { type: 'ChannelDtmfReceived'; channel: ChannelSnapshot; digit: string; duration_ms: number }
  /** A tone set up with TONE_DETECT was heard on the channel. */
  | { type: 'ChannelToneDetected'; channel: ChannelSnapshot }
  /** A channel entered an application: the application is subscribed to it from now on. */
  | { type: 'AppStart'; application: string; channel: ChannelSnapshot; args: string[]; replace_channel?: ChannelSnapshot }
  | { type: 'AppEnd'; application: string; channel: ChannelSnapshot }
  /** A channel offered to one application for claiming (AppBroadcast); one event per application. */
  | { type: 'CallBroadcast'; application: string; channel: ChannelSnapshot; caller?: string; called?: string }
  /** A broadcast channel was claimed (sent when AppBroadcast's notify_claimed is set). */
  | { type: 'CallClaimed'; application: string; channel: ChannelSnapshot; winner_app: string }
  | { type: 'PlaybackStarted'; playback: PlaybackSnapshot }
  | { type: 'PlaybackContinuing'; playback: PlaybackSnapshot }
  | { type: 'PlaybackFinished'; playback: PlaybackSnapshot }
  | { type: 'ChannelHold'; channel: ChannelSnapshot; musicclass?: string }
  | { type: 'ChannelUnhold'; channel: ChannelSnapshot }
  | { type: 'ChannelTalkingStarted'; channel: ChannelSnapshot }
  | { type: 'ChannelTalkingFinished'; channel: ChannelSnapshot; duration: number }
  | { type: 'ChannelConnectedLine'; channel: ChannelSnapshot }
  | { type: 'ChannelCallerId'; channel: ChannelSnapshot; caller_presentation: number; caller_presentation_txt: string }
  /** A user event for one application (`application`), about optional sources. */
  | {
      type: 'ChannelUserevent';
      application: string;
      eventname: string;
      userevent: Record<string, unknown>;
      channel?: ChannelSnapshot;
      bridge?: BridgeSnapshot;
      endpoint?: EndpointSnapshot;
    }
  /** A move to another application failed; sent to the application the channel stays in. */
  | { type: 'ApplicationMoveFailed'; application: string; channel: ChannelSnapshot; destination: string; args: string[] }
  | {
      type: 'Dial';
      peer: ChannelSnapshot;
      caller?: ChannelSnapshot;
      forward?: string;
      forwarded?: ChannelSnapshot;
      dialstring?: string;
      dialstatus: string;
    }
  | { type: 'BridgeCreated'; bridge: BridgeSnapshot }
  | { type: 'BridgeDestroyed'; bridge: BridgeSnapshot }
  | { type: 'BridgeMerged'; bridge: BridgeSnapshot; bridge_from: BridgeSnapshot }
  | { type: 'BridgeVideoSourceChanged'; bridge: BridgeSnapshot; old_video_source_id?: string }
  | { type: 'ChannelEnteredBridge'; bridge: BridgeSnapshot; channel: ChannelSnapshot }
  | { type: 'ChannelLeftBridge'; bridge: BridgeSnapshot; channel: ChannelSnapshot }
  | {
      type: 'BridgeBlindTransfer';
      channel: ChannelSnapshot;
      replace_channel?: ChannelSnapshot;
      transferee?: ChannelSnapshot;
      exten: string;
      context: string;
      result: 'Success' | 'Fail' | 'Invalid' | 'Not Permitted';
      is_external: boolean;
      bridge?: BridgeSnapshot;
    }
  | {
      type: 'BridgeAttendedTransfer';
      transferer_first_leg: ChannelSnapshot;
      transferer_second_leg: ChannelSnapshot;
      replace_channel?: ChannelSnapshot;
      transferee?: ChannelSnapshot;
      transfer_target?: ChannelSnapshot;
      result: 'Success' | 'Fail' | 'Invalid' | 'Not Permitted';
      is_external: boolean;
      transferer_first_leg_bridge?: BridgeSnapshot;
      transferer_second_leg_bridge?: BridgeSnapshot;
      destination_type: 'bridge' | 'application' | 'link' | 'threeway' | 'fail';
      destination_bridge?: string;
      destination_application?: string;
      destination_link_first_leg?: ChannelSnapshot;
      destination_link_second_leg?: ChannelSnapshot;
      destination_threeway_channel?: ChannelSnapshot;
      destination_threeway_bridge?: BridgeSnapshot;
    }
  /** A SIP REFER on an application's channel left to the application (PJSIP_TRANSFER_HANDLING ari-only). */
  | { type: 'ChannelTransfer'; state?: string; refer_to: ReferToSnapshot; referred_by: ReferredBySnapshot }
  | { type: 'RecordingStarted'; recording: LiveRecordingSnapshot }
  | { type: 'RecordingFinished'; recording: LiveRecordingSnapshot }
  | { type: 'RecordingFailed'; recording: LiveRecordingSnapshot }
  | { type: 'DeviceStateChanged'; device_state: DeviceStateSnapshot }
  | { type: 'EndpointStateChange'; endpoint: EndpointSnapshot }
  | { type: 'ContactStatusChange'; endpoint: EndpointSnapshot; contact_info: ContactInfoSnapshot }
  | { type: 'PeerStatusChange'; endpoint: EndpointSnapshot; peer: PeerSnapshot }
  | { type: 'TextMessageReceived'; message: TextMessageSnapshot; endpoint?: EndpointSnapshot }
  /** Conferences, queues and voicemail (office-events.ts). */
  | OfficeEvent;

export type DomainEventType = DomainEvent['type'];

/** What a REFER asks for: an extension (blind) or the dialog to replace (attended), never both. */
export interface RequiredDestinationSnapshot {
  protocol_id?: string;
  destination?: string;
  additional_protocol_params?: Array<{ parameter_name: string; parameter_value: string }>;
}

export interface ReferToSnapshot {
  requested_destination: RequiredDestinationSnapshot;
  destination_channel?: ChannelSnapshot;
  connected_channel?: ChannelSnapshot;
  bridge?: BridgeSnapshot;
}

export interface ReferredBySnapshot {
  source_channel: ChannelSnapshot;
  connected_channel?: ChannelSnapshot;
  bridge?: BridgeSnapshot;
}

/** The envelope the bus adds: when it happened. */
export type TimedDomainEvent = DomainEvent & { timestamp: Date };
