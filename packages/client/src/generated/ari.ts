// Generated from the OpenAPI 3.1 document (/ari/openapi.json) by src/codegen/generate.ts.
// Do not edit: run `npm run build && npm run generate -w packages/client`.
/* eslint-disable */

/** A protocol parameter of a transfer request, by name. */
export interface AdditionalParam {
  /** Parameter name */
  parameter_name: string;
  /** Parameter value */
  parameter_value: string;
}

/** Notification that a channel has left an application. */
export interface AppEnd extends Event {
  /** The channel that left the application */
  channel: Channel;
  type: "AppEnd";
}

/** Details of an application */
export interface Application {
  /** Name of this application */
  name: string;
  /** Ids of the channels subscribed to */
  channel_ids: string[];
  /** Ids of the bridges subscribed to */
  bridge_ids: string[];
  /** {tech}/{resource} of the endpoints subscribed to */
  endpoint_ids: string[];
  /** Names of the devices subscribed to */
  device_names: string[];
  /** Event types sent to the application ({"type": name} objects) */
  events_allowed: Record<string, unknown>[];
  /** Event types not sent to the application ({"type": name} objects) */
  events_disallowed: Record<string, unknown>[];
}

/** Notification that trying to move a channel to another application failed. */
export interface ApplicationMoveFailed extends Event {
  /** The channel that could not be moved */
  channel: Channel;
  /** The application the channel was to be moved to */
  destination: string;
  /** Arguments to the application */
  args: string[];
  type: "ApplicationMoveFailed";
}

/** An application was registered on an outbound WebSocket connection. */
export interface ApplicationRegistered extends Event {
  type: "ApplicationRegistered";
}

/** Notification that another WebSocket has taken over for an application; this one receives nothing more for it. */
export interface ApplicationReplaced extends Event {
  type: "ApplicationReplaced";
}

/** An application was unregistered from an outbound WebSocket connection. */
export interface ApplicationUnregistered extends Event {
  type: "ApplicationUnregistered";
}

/** Notification that a channel has entered an application. */
export interface AppStart extends Event {
  /** Arguments to the application */
  args: string[];
  /** The channel that entered the application */
  channel: Channel;
  /** The channel this one replaces, if any */
  replace_channel?: Channel;
  type: "AppStart";
}

/** The merging of media from one or more channels. */
export interface Bridge {
  /** Unique identifier for this bridge */
  id: string;
  /** Name of the current bridging technology (simple_bridge, softmix, holding_bridge) */
  technology: string;
  /** Type of bridge technology */
  bridge_type: "mixing" | "holding";
  /** Bridging class: app for bridges created through this API, base otherwise */
  bridge_class: string;
  /** Entity that created the bridge: App for bridges created through this API */
  creator: string;
  /** Name the creator gave the bridge */
  name: string;
  /** Ids of channels participating in this bridge */
  channels: string[];
  /** The video mode the bridge uses */
  video_mode?: "none" | "talker" | "sfu" | "single";
  /** The id of the channel that is the source of video in this bridge, if one exists */
  video_source_id?: string;
  /** Timestamp when bridge was created */
  creationtime: string;
  /** Bridge variables set with report_events */
  bridgevars?: Record<string, unknown>;
}

/** Notification that an attended transfer has occurred. */
export interface BridgeAttendedTransfer extends Event {
  /** First leg of the transferer */
  transferer_first_leg: Channel;
  /** Second leg of the transferer */
  transferer_second_leg: Channel;
  /** The channel that is replacing transferer_first_leg in the swap */
  replace_channel?: Channel;
  /** The channel that is being transferred */
  transferee?: Channel;
  /** The channel that is being transferred to */
  transfer_target?: Channel;
  /** The result of the transfer attempt */
  result: string;
  /** Whether the transfer was externally initiated or not */
  is_external: boolean;
  /** Bridge the transferer first leg is in */
  transferer_first_leg_bridge?: Bridge;
  /** Bridge the transferer second leg is in */
  transferer_second_leg_bridge?: Bridge;
  /** How the transfer was accomplished */
  destination_type: string;
  /** Bridge that survived the merge result */
  destination_bridge?: string;
  /** Application that has been transferred into */
  destination_application?: string;
  /** First leg of a link transfer result */
  destination_link_first_leg?: Channel;
  /** Second leg of a link transfer result */
  destination_link_second_leg?: Channel;
  /** Transferer channel that survived the threeway result */
  destination_threeway_channel?: Channel;
  /** Bridge that survived the threeway result */
  destination_threeway_bridge?: Bridge;
  type: "BridgeAttendedTransfer";
}

/** Notification that a blind transfer has occurred. */
export interface BridgeBlindTransfer extends Event {
  /** The channel performing the blind transfer */
  channel: Channel;
  /** The channel that is replacing transferer when the transferee(s) can not be transferred directly */
  replace_channel?: Channel;
  /** The channel that is being transferred */
  transferee?: Channel;
  /** The extension transferred to */
  exten: string;
  /** The context transferred to */
  context: string;
  /** The result of the transfer attempt */
  result: string;
  /** Whether the transfer was externally initiated or not */
  is_external: boolean;
  /** The bridge being transferred */
  bridge?: Bridge;
  type: "BridgeBlindTransfer";
}

/** Notification that a bridge has been created. */
export interface BridgeCreated extends Event {
  /** The new bridge */
  bridge: Bridge;
  type: "BridgeCreated";
}

/** Notification that a bridge has been destroyed. */
export interface BridgeDestroyed extends Event {
  /** The destroyed bridge */
  bridge: Bridge;
  type: "BridgeDestroyed";
}

/** Notification that one bridge has merged into another. */
export interface BridgeMerged extends Event {
  /** The surviving bridge */
  bridge: Bridge;
  /** The bridge merged into it */
  bridge_from: Bridge;
  type: "BridgeMerged";
}

/** Notification that the source of video in a bridge has changed. */
export interface BridgeVideoSourceChanged extends Event {
  /** The bridge with its new video source */
  bridge: Bridge;
  /** The previous video source channel, if any */
  old_video_source_id?: string;
  type: "BridgeVideoSourceChanged";
}

/** Info about how the server was built */
export interface BuildInfo {
  /** OS the server was built on */
  os: string;
  /** Kernel version the server was built on */
  kernel: string;
  /** Compile time options, or empty string if default */
  options: string;
  /** Machine architecture (x86_64, arm64, ...) */
  machine: string;
  /** Date and time when the server was built */
  date: string;
  /** Username that built the server */
  user: string;
}

/** A channel is offered to applications for claiming (AppBroadcast dialplan application). */
export interface CallBroadcast extends Event {
  /** The channel being broadcast */
  channel: Channel;
  /** The caller number */
  caller?: string;
  /** The called extension */
  called?: string;
  type: "CallBroadcast";
}

/** A broadcast channel was claimed. */
export interface CallClaimed extends Event {
  /** The channel that was claimed */
  channel: Channel;
  /** The application that won the claim */
  winner_app: string;
  type: "CallClaimed";
}

/** Caller identification */
export interface CallerID {
  /** Display name (may be empty) */
  name: string;
  /** Number (may be empty) */
  number: string;
}

/** A specific communication connection between the server and an endpoint. */
export interface Channel {
  /** Unique identifier of the channel */
  id: string;
  /** Protocol id of the call (the SIP Call-ID); empty when there is none */
  protocol_id: string;
  /** Name of the channel (e.g. SIP/alice-00000001) */
  name: string;
  /** Channel state */
  state: "Down" | "Rsrvd" | "OffHook" | "Dialing" | "Ring" | "Ringing" | "Up" | "Busy" | "Dialing Offhook" | "Pre-ring" | "Unknown";
  /** Caller identification */
  caller: CallerID;
  /** Connected line identification */
  connected: CallerID;
  /** Account code (may be empty) */
  accountcode: string;
  /** Current location in the dialplan */
  dialplan: DialplanCEP;
  /** Timestamp when the channel was created */
  creationtime: string;
  /** The default spoken language */
  language: string;
  /** Channel variables named in the channelvars option of the configuration */
  channelvars?: Record<string, unknown>;
  /** The caller ID RDNIS; present only when set */
  caller_rdnis?: string;
  /** The tenant identifier; present only when set */
  tenantid?: string;
}

/** Channel changed Caller ID. */
export interface ChannelCallerId extends Event {
  /** The integer representation of the Caller Presentation value */
  caller_presentation: number;
  /** The text representation of the Caller Presentation value */
  caller_presentation_txt: string;
  /** The channel that changed Caller ID */
  channel: Channel;
  type: "ChannelCallerId";
}

/** Channel connected line has changed. */
export interface ChannelConnectedLine extends Event {
  /** The channel whose connected line has changed */
  channel: Channel;
  type: "ChannelConnectedLine";
}

/** Notification that a channel has been created. */
export interface ChannelCreated extends Event {
  /** The new channel */
  channel: Channel;
  type: "ChannelCreated";
}

/** Notification that a channel has been destroyed. */
export interface ChannelDestroyed extends Event {
  /** Integer representation of the cause of the hangup */
  cause: number;
  /** Text representation of the cause of the hangup */
  cause_txt: string;
  /** Technology-specific cause (the last SIP status), when there is one */
  tech_cause?: number;
  /** The destroyed channel */
  channel: Channel;
  type: "ChannelDestroyed";
}

/** Channel changed location in the dialplan. */
export interface ChannelDialplan extends Event {
  /** The channel that changed dialplan location */
  channel: Channel;
  /** The application about to be executed */
  dialplan_app: string;
  /** The data to be passed to the application */
  dialplan_app_data: string;
  type: "ChannelDialplan";
}

/** DTMF received on a channel (sent when the digit ends). */
export interface ChannelDtmfReceived extends Event {
  /** DTMF digit received (0-9, A-E, # or *) */
  digit: string;
  /** Number of milliseconds the digit was held */
  duration_ms: number;
  /** The channel on which the digit was received */
  channel: Channel;
  type: "ChannelDtmfReceived";
}

/** Notification that a channel has entered a bridge. */
export interface ChannelEnteredBridge extends Event {
  /** The bridge */
  bridge: Bridge;
  /** The channel that entered */
  channel?: Channel;
  type: "ChannelEnteredBridge";
}

/** A hangup was requested on the channel. */
export interface ChannelHangupRequest extends Event {
  /** Integer representation of the cause of the hangup */
  cause?: number;
  /** Technology-specific cause, when there is one */
  tech_cause?: number;
  /** Whether the hangup request was a soft hangup request */
  soft?: boolean;
  /** The channel on which the hangup was requested */
  channel: Channel;
  type: "ChannelHangupRequest";
}

/** A channel initiated a media hold. */
export interface ChannelHold extends Event {
  /** The channel that initiated the hold event */
  channel: Channel;
  /** The music on hold class that the initiator requested */
  musicclass?: string;
  type: "ChannelHold";
}

/** Notification that a channel has left a bridge. */
export interface ChannelLeftBridge extends Event {
  /** The bridge */
  bridge: Bridge;
  /** The channel that left */
  channel: Channel;
  type: "ChannelLeftBridge";
}

/** Notification of a channel state change. */
export interface ChannelStateChange extends Event {
  /** The channel in its new state */
  channel: Channel;
  type: "ChannelStateChange";
}

/** Talking is no longer detected on the channel. */
export interface ChannelTalkingFinished extends Event {
  /** The channel on which talking completed */
  channel: Channel;
  /** The length of time, in milliseconds, that talking was detected */
  duration: number;
  type: "ChannelTalkingFinished";
}

/** Talking was detected on the channel. */
export interface ChannelTalkingStarted extends Event {
  /** The channel on which talking started */
  channel: Channel;
  type: "ChannelTalkingStarted";
}

/** A tone set up with TONE_DETECT was detected on the channel. */
export interface ChannelToneDetected extends Event {
  /** The channel on which the tone was detected */
  channel: Channel;
  type: "ChannelToneDetected";
}

/** A SIP REFER on a channel of the application, left to the application (PJSIP_TRANSFER_HANDLING ari-only). */
export interface ChannelTransfer extends Event {
  /** Progress of the transfer, when it applies */
  state?: string;
  /** What the REFER asks for and the channels it concerns */
  refer_to: ReferTo;
  /** The channel the REFER came on and what it is connected to */
  referred_by: ReferredBy;
  type: "ChannelTransfer";
}

/** A channel initiated a media unhold. */
export interface ChannelUnhold extends Event {
  /** The channel that initiated the unhold event */
  channel: Channel;
  type: "ChannelUnhold";
}

/** User-generated event with additional user-defined fields in the object. */
export interface ChannelUserevent extends Event {
  /** The name of the user event */
  eventname: string;
  /** A channel that is signaled with the user event */
  channel?: Channel;
  /** A bridge that is signaled with the user event */
  bridge?: Bridge;
  /** An endpoint that is signaled with the user event */
  endpoint?: Endpoint;
  /** Custom Userevent data */
  userevent: Record<string, unknown>;
  type: "ChannelUserevent";
}

/** Channel variable changed. */
export interface ChannelVarset extends Event {
  /** The variable that changed */
  variable: string;
  /** The new value of the variable */
  value: string;
  /** The channel on which the variable was set; absent for global variables */
  channel?: Channel;
  type: "ChannelVarset";
}

/** Info about the server configuration; limits of 0 (unlimited) are omitted */
export interface ConfigInfo {
  /** The system name of the server */
  name: string;
  /** Default language for media playback */
  default_language: string;
  /** Maximum number of simultaneous channels */
  max_channels?: number;
  /** Maximum number of open file handles (files, sockets) */
  max_open_files?: number;
  /** Maximum load average on the system */
  max_load?: number;
  /** Effective user/group id for running the server */
  setid: SetId;
}

/** A key/value pair that makes up part of a configuration object. */
export interface ConfigTuple {
  /** A configuration object attribute. */
  attribute: string;
  /** The value for the attribute. */
  value: string;
}

/** Detailed information about a contact on an endpoint. */
export interface ContactInfo {
  /** The location of the contact. */
  uri: string;
  /** The current status of the contact. */
  contact_status: "Unreachable" | "Reachable" | "Unknown" | "NonQualified" | "Removed";
  /** The Address of Record this contact belongs to. */
  aor: string;
  /** Current round trip time, in microseconds, for the contact. */
  roundtrip_usec?: string;
}

/** The state of a contact on an endpoint has changed. */
export interface ContactStatusChange extends Event {
  /** The endpoint */
  endpoint: Endpoint;
  /** The contact */
  contact_info: ContactInfo;
  type: "ContactStatusChange";
}

/** Represents the state of a device. */
export interface DeviceState {
  /** Name of the device. */
  name: string;
  /** Device state value. */
  state: "UNKNOWN" | "NOT_INUSE" | "INUSE" | "BUSY" | "INVALID" | "UNAVAILABLE" | "RINGING" | "RINGINUSE" | "ONHOLD";
}

/** Notification that a device state has changed. */
export interface DeviceStateChanged extends Event {
  /** Device state object */
  device_state: DeviceState;
  type: "DeviceStateChanged";
}

/** Dialing state has changed. */
export interface Dial extends Event {
  /** The calling channel */
  caller?: Channel;
  /** The dialed channel */
  peer: Channel;
  /** Forwarding target requested by the original dialed channel */
  forward?: string;
  /** Channel that the caller has been forwarded to */
  forwarded?: Channel;
  /** The dial string for calling the peer channel */
  dialstring?: string;
  /** Current status of the dialing attempt to the peer */
  dialstatus: string;
  type: "Dial";
}

/** Dialplan location (context/extension/priority) */
export interface DialplanCEP {
  /** Context in the dialplan */
  context: string;
  /** Extension in the dialplan */
  exten: string;
  /** Priority in the dialplan */
  priority: number;
  /** Name of the current dialplan application */
  app_name: string;
  /** Parameter of the current dialplan application */
  app_data: string;
}

/** An external device that may offer/accept calls to/from the server. Identified by technology and resource. */
export interface Endpoint {
  /** Technology of the endpoint */
  technology: string;
  /** Identifier of the endpoint, specific to the given technology. */
  resource: string;
  /** Endpoint state. */
  state?: "unknown" | "offline" | "online";
  /** Id of channels associated with this endpoint */
  channel_ids: string[];
}

/** Endpoint state changed. */
export interface EndpointStateChange extends Event {
  /** The endpoint */
  endpoint: Endpoint;
  type: "EndpointStateChange";
}

/** Every error answer */
export interface Error {
  message: string;
}

/** Base type for asynchronous events. */
export interface Event extends Message {
  /** Name of the application receiving the event. */
  application: string;
  /** Time at which this event was created. */
  timestamp: string;
  /** Position of the event in the application's stream (1, 2, 3…); what ?resume= takes */
  sequence?: number;
}

/** First message of a resumed connection (?resume=) when some of the events it asked for are no longer kept. It carries no sequence number of its own. */
export interface EventsLost extends Event {
  /** The first sequence number that cannot be replayed */
  first_lost_sequence: number;
  /** The last sequence number that cannot be replayed; absent when the extent is unknown */
  last_lost_sequence?: number;
  /** Why the events are no longer kept */
  reason: string;
  type: "EventsLost";
}

/** Identifies the format and language of a sound file */
export interface FormatLangPair {
  /** Language code */
  language: string;
  /** Format name */
  format: string;
}

/** A recording that is in progress */
export interface LiveRecording {
  /** Base name for the recording */
  name: string;
  /** Recording format (wav, gsm, etc.) */
  format: string;
  /** URI for the channel or bridge being recorded */
  target_uri: string;
  /** Recording state */
  state: "queued" | "recording" | "paused" | "done" | "failed" | "canceled";
  /** Duration in seconds of the recording */
  total_duration?: number;
  /** Duration of talking, in seconds, detected in the recording; only when maxSilenceSeconds was given */
  talking_duration?: number;
  /** Duration of silence, in seconds, detected in the recording; only when maxSilenceSeconds was given */
  silence_duration?: number;
  /** Cause for recording failure if failed */
  cause?: string;
}

/** Details of a log channel */
export interface LogChannel {
  /** The log channel path */
  channel: string;
  /** Types of logs for the log channel */
  type: "File" | "Console" | "Syslog";
  /** Whether or not a log type is enabled */
  status: "Enabled" | "Disabled";
  /** The various log levels */
  configuration: string;
}

/** Represents the state of a mailbox. */
export interface Mailbox {
  /** Name of the mailbox. */
  name: string;
  /** Count of old messages in the mailbox. */
  old_messages: number;
  /** Count of new messages in the mailbox. */
  new_messages: number;
}

/** Base type for errors and events */
export interface Message {
  /** Indicates the type of this message. */
  type: string;
  /** The unique identifier of the system that generated this event. */
  asterisk_id?: string;
}

/** Error event sent when required params are missing. */
export interface MissingParams extends Message {
  /** A list of the missing parameters */
  params: string[];
}

/** Details of a module */
export interface Module {
  /** The name of this module */
  name: string;
  /** The description of this module */
  description: string;
  /** The number of times this module is being used */
  use_count: number;
  /** The running status of this module */
  status: "Running" | "Not Running";
  /** The support state of this module */
  support_level: "core" | "extended" | "deprecated" | "unknown";
}

/** Detailed information about a remote peer that communicates with the server. */
export interface Peer {
  /** The current state of the peer. */
  peer_status: string;
  /** An optional reason associated with the change in peer_status. */
  cause?: string;
  /** The IP address of the peer. */
  address?: string;
  /** The port of the peer. */
  port?: string;
  /** The last known time the peer was contacted. */
  time?: string;
}

/** The state of a peer associated with an endpoint has changed. */
export interface PeerStatusChange extends Event {
  /** The endpoint */
  endpoint: Endpoint;
  /** The peer */
  peer: Peer;
  type: "PeerStatusChange";
}

/** Object representing the playback of media to a channel or bridge */
export interface Playback {
  /** ID for this playback operation */
  id: string;
  /** The URI for the media currently being played back */
  media_uri: string;
  /** If a list of URIs is being played, the next media URI to be played back; absent on the last one */
  next_media_uri?: string;
  /** URI of the channel or bridge to play the media on */
  target_uri: string;
  /** For media types that support multiple languages, the language requested */
  language?: string;
  /** Current state of the playback operation */
  state: "enqueued" | "playing" | "complete" | "failed";
}

/** Event showing the continuation of a media playback operation from one media URI to the next in the list. */
export interface PlaybackContinuing extends Event {
  /** Playback control object */
  playback: Playback;
  type: "PlaybackContinuing";
}

/** Event showing the completion of a media playback operation. */
export interface PlaybackFinished extends Event {
  /** Playback control object */
  playback: Playback;
  type: "PlaybackFinished";
}

/** Event showing the start of a media playback operation. */
export interface PlaybackStarted extends Event {
  /** Playback control object */
  playback: Playback;
  type: "PlaybackStarted";
}

/** Event showing failure of a recording operation. */
export interface RecordingFailed extends Event {
  /** Recording control object */
  recording: LiveRecording;
  type: "RecordingFailed";
}

/** Event showing the completion of a recording operation. */
export interface RecordingFinished extends Event {
  /** Recording control object */
  recording: LiveRecording;
  type: "RecordingFinished";
}

/** Event showing the start of a recording operation. */
export interface RecordingStarted extends Event {
  /** Recording control object */
  recording: LiveRecording;
  type: "RecordingStarted";
}

/** The origin part of a transfer request. */
export interface ReferredBy {
  /** The channel the REFER arrived on */
  source_channel: Channel;
  /** The channel connected to the source channel */
  connected_channel?: Channel;
  /** The bridge of the source channel */
  bridge?: Bridge;
}

/** The target part of a transfer request. */
export interface ReferTo {
  /** What the transfer asks for */
  requested_destination: RequiredDestination;
  /** The channel an attended transfer replaces */
  destination_channel?: Channel;
  /** The channel connected to the one replaced */
  connected_channel?: Channel;
  /** The bridge of the channel replaced */
  bridge?: Bridge;
}

/** The destination a transfer request names. */
export interface RequiredDestination {
  /** Call-ID of the dialog to replace (attended transfer); never with destination */
  protocol_id?: string;
  /** User part of the target (blind transfer); never with protocol_id */
  destination?: string;
  /** Further protocol parameters */
  additional_protocol_params?: AdditionalParam[];
}

/** A header of a REST-over-WebSocket request. */
export interface RESTHeader {
  /** Header name */
  name: string;
  /** Header value */
  value: string;
}

/** A query string parameter of a REST-over-WebSocket request. */
export interface RESTQueryStringParameter {
  /** Parameter name */
  name: string;
  /** Parameter value */
  value: string;
}

/** A request sent by the application on the events WebSocket; answered with a RESTResponse event. */
export interface RESTRequest {
  /** Always RESTRequest */
  type: string;
  /** Echoed in the answer */
  transaction_id?: string;
  /** Echoed in the answer */
  request_id?: string;
  /** The HTTP method */
  method: string;
  /** The path below /ari, without a leading slash; may carry a query string */
  uri: string;
  /** application/json or application/x-www-form-urlencoded; required with message_body */
  content_type?: string;
  /** More query parameters */
  query_strings?: RESTQueryStringParameter[];
  /** The request body */
  message_body?: string;
}

/** The answer to a RESTRequest sent on the events WebSocket. */
export interface RESTResponse extends Event {
  /** The request's transaction_id (empty when it had none) */
  transaction_id: string;
  /** The request's request_id (empty when it had none) */
  request_id: string;
  /** The HTTP status of the answer */
  status_code: number;
  /** The reason phrase of that status */
  reason_phrase: string;
  /** The URI of the request, without its query string */
  uri: string;
  /** application/json when there is a body */
  content_type?: string;
  /** The body of the answer, as a JSON string */
  message_body?: string;
  type: "RESTResponse";
}

/** A statistics of a RTP. */
export interface RTPstat {
  /** Number of packets transmitted */
  txcount: number;
  /** Number of packets received */
  rxcount: number;
  /** Jitter on transmitted packets */
  txjitter?: number;
  /** Jitter on received packets */
  rxjitter?: number;
  /** Maximum jitter on remote side */
  remote_maxjitter?: number;
  /** Minimum jitter on remote side */
  remote_minjitter?: number;
  /** Average jitter on remote side */
  remote_normdevjitter?: number;
  /** Standard deviation jitter on remote side */
  remote_stdevjitter?: number;
  /** Maximum jitter on local side */
  local_maxjitter?: number;
  /** Minimum jitter on local side */
  local_minjitter?: number;
  /** Average jitter on local side */
  local_normdevjitter?: number;
  /** Standard deviation jitter on local side */
  local_stdevjitter?: number;
  /** Number of transmitted packets lost */
  txploss: number;
  /** Number of received packets lost */
  rxploss: number;
  /** Maximum number of packets lost on remote side */
  remote_maxrxploss?: number;
  /** Minimum number of packets lost on remote side */
  remote_minrxploss?: number;
  /** Average number of packets lost on remote side */
  remote_normdevrxploss?: number;
  /** Standard deviation packets lost on remote side */
  remote_stdevrxploss?: number;
  /** Maximum number of packets lost on local side */
  local_maxrxploss?: number;
  /** Minimum number of packets lost on local side */
  local_minrxploss?: number;
  /** Average number of packets lost on local side */
  local_normdevrxploss?: number;
  /** Standard deviation packets lost on local side */
  local_stdevrxploss?: number;
  /** Total round trip time */
  rtt?: number;
  /** Maximum round trip time */
  maxrtt?: number;
  /** Minimum round trip time */
  minrtt?: number;
  /** Average round trip time */
  normdevrtt?: number;
  /** Standard deviation round trip time */
  stdevrtt?: number;
  /** Our SSRC */
  local_ssrc: number;
  /** Their SSRC */
  remote_ssrc: number;
  /** Number of octets transmitted */
  txoctetcount: number;
  /** Number of octets received */
  rxoctetcount: number;
  /** Id of the channel that owns the RTP session */
  channel_uniqueid: string;
}

/** Effective user/group id */
export interface SetId {
  /** Effective user id */
  user: string;
  /** Effective group id */
  group: string;
}

/** A media file that may be played back. */
export interface Sound {
  /** Sound identifier (file name without extension, relative to the language directory) */
  id: string;
  /** Text description of the sound, usually the words spoken */
  text?: string;
  /** The formats and languages in which this sound is available */
  formats: FormatLangPair[];
}

/** Info about the server status */
export interface StatusInfo {
  /** Time when the server was started */
  startup_time: string;
  /** Time when the configuration was last reloaded */
  last_reload_time: string;
}

/** A past recording that may be played back. */
export interface StoredRecording {
  /** Name of the recording: its path under the recording directory, without extension */
  name: string;
  /** Format of the recording (the file extension) */
  format: string;
}

/** Server system information; each section only when requested */
export interface SystemInfo {
  /** Info about how the server was built */
  build?: BuildInfo;
  /** Version and entity id */
  system?: SystemVersionInfo;
  /** Info about the server configuration */
  config?: ConfigInfo;
  /** Info about the server status */
  status?: StatusInfo;
}

/** Answer to a ping */
export interface SystemPing {
  /** The system identifier (entity id) */
  asterisk_id: string;
  /** Always the string pong */
  ping: string;
  /** The time the server handled the ping */
  timestamp: string;
}

/** Version and entity id of the running server */
export interface SystemVersionInfo {
  /** Server version */
  version: string;
  /** Entity id of the server (same value as asterisk_id in events) */
  entity_id: string;
}

/** A text message. */
export interface TextMessage {
  /** A technology specific URI specifying the source of the message. */
  from: string;
  /** A technology specific URI specifying the destination of the message. */
  to: string;
  /** The text of the message. */
  body: string;
  /** Technology specific key/value pairs (JSON object) associated with the message. */
  variables?: Record<string, unknown>;
}

/** A text message was received from an endpoint. */
export interface TextMessageReceived extends Event {
  /** The message */
  message: TextMessage;
  /** The endpoint that received it */
  endpoint?: Endpoint;
  type: "TextMessageReceived";
}

/** The value of a channel or global variable */
export interface Variable {
  /** The value of the variable requested */
  value: string;
}

/** The values of several variables. */
export interface Variables {
  /** Variable name to value */
  variables: Record<string, unknown>;
}

/** Every event the events WebSocket delivers, discriminated by `type`. */
export type AriEvent =
  | AppEnd
  | AppStart
  | ApplicationMoveFailed
  | ApplicationRegistered
  | ApplicationReplaced
  | ApplicationUnregistered
  | BridgeAttendedTransfer
  | BridgeBlindTransfer
  | BridgeCreated
  | BridgeDestroyed
  | BridgeMerged
  | BridgeVideoSourceChanged
  | CallBroadcast
  | CallClaimed
  | ChannelCallerId
  | ChannelConnectedLine
  | ChannelCreated
  | ChannelDestroyed
  | ChannelDialplan
  | ChannelDtmfReceived
  | ChannelEnteredBridge
  | ChannelHangupRequest
  | ChannelHold
  | ChannelLeftBridge
  | ChannelStateChange
  | ChannelTalkingFinished
  | ChannelTalkingStarted
  | ChannelToneDetected
  | ChannelTransfer
  | ChannelUnhold
  | ChannelUserevent
  | ChannelVarset
  | ContactStatusChange
  | DeviceStateChanged
  | Dial
  | EndpointStateChange
  | EventsLost
  | PeerStatusChange
  | PlaybackContinuing
  | PlaybackFinished
  | PlaybackStarted
  | RESTResponse
  | RecordingFailed
  | RecordingFinished
  | RecordingStarted
  | TextMessageReceived;

export type AriEventType = AriEvent['type'];

/** The `applications` resource. */
export interface ApplicationsApi {
  /** Filter application events types. (PUT /applications/{applicationName}/eventFilter) */
  filter(params: {
    /** Application's name */
    applicationName: string;
    /** Specify which event types to allow/disallow */
    body?: Record<string, unknown>;
  }): Promise<Application>;
  /** Get details of an application. (GET /applications/{applicationName}) */
  get(params: {
    /** Application's name */
    applicationName: string;
  }): Promise<Application>;
  /** List all applications. (GET /applications) */
  list(): Promise<Application[]>;
  /** Subscribe an application to a event source. (POST /applications/{applicationName}/subscription) */
  subscribe(params: {
    /** Application's name */
    applicationName: string;
    /** URI for event source (channel:{channelId}, bridge:{bridgeId}, endpoint:{tech}[/{resource}], deviceState:{deviceName}); a blank id means every resource of the kind */
    eventSource: string[];
  }): Promise<Application>;
  /** Unsubscribe an application from an event source. (DELETE /applications/{applicationName}/subscription) */
  unsubscribe(params: {
    /** Application's name */
    applicationName: string;
    /** URI for event source (channel:{channelId}, bridge:{bridgeId}, endpoint:{tech}[/{resource}], deviceState:{deviceName}); a blank id means every resource of the kind */
    eventSource: string[];
  }): Promise<Application>;
}

/** The `bridges` resource. */
export interface BridgesApi {
  /** Add a channel to a bridge. (POST /bridges/{bridgeId}/addChannel) */
  addChannel(params: {
    /** Bridge's id */
    bridgeId: string;
    /** Ids of channels; comma-separated */
    channel: string[];
    /** Channel's role in the bridge (e.g. announcer in a holding bridge) */
    role?: string;
    /** Same as role (the name SPEC §4.5 uses) */
    roles?: string;
    /** Absorb DTMF coming from this channel, preventing it to pass through to the bridge */
    absorbDTMF?: boolean;
    /** Mute audio from this channel, preventing it to pass through to the bridge */
    mute?: boolean;
    /** Do not present the identity of the newly connected channel to other bridge members */
    inhibitConnectedLineUpdates?: boolean;
  }): Promise<void>;
  /** Removes any explicit video source in a multi-party mixing bridge; video follows the talker again. (DELETE /bridges/{bridgeId}/videoSource) */
  clearVideoSource(params: {
    /** Bridge's id */
    bridgeId: string;
  }): Promise<void>;
  /** Create a new bridge. (POST /bridges) */
  create(params?: {
    /** Comma separated list of bridge type attributes (mixing, holding, dtmf_events, proxy_media, video_sfu, video_single) */
    type?: string;
    /** Unique ID to give to the bridge being created */
    bridgeId?: string;
    /** Name to give to the bridge being created */
    name?: string;
    /** The "variables" key in the body object holds variable key/value pairs to set on the bridge */
    variables?: unknown;
  }): Promise<Bridge>;
  /** Create a new bridge with the given id. (POST /bridges/{bridgeId}) */
  createWithId(params: {
    /** Comma separated list of bridge type attributes (mixing, holding, dtmf_events, proxy_media, video_sfu, video_single) */
    type?: string;
    /** Bridge's id */
    bridgeId: string;
    /** Name to give to the bridge being created */
    name?: string;
    /** The "variables" key in the body object holds variable key/value pairs to set on the bridge */
    variables?: unknown;
  }): Promise<Bridge>;
  /** Shut down a bridge. (DELETE /bridges/{bridgeId}) */
  destroy(params: {
    /** Bridge's id */
    bridgeId: string;
  }): Promise<void>;
  /** Get bridge details. (GET /bridges/{bridgeId}) */
  get(params: {
    /** Bridge's id */
    bridgeId: string;
  }): Promise<Bridge>;
  /** Get the value of a bridge variable. (GET /bridges/{bridgeId}/variable) */
  getBridgeVar(params: {
    /** Bridge's id */
    bridgeId: string;
    /** The bridge variable to get or set */
    variable: string;
  }): Promise<Variable>;
  /** Get the values of several bridge variables. (GET /bridges/{bridgeId}/variables) */
  getBridgeVars(params: {
    /** Bridge's id */
    bridgeId: string;
    /** The bridge variables to read, comma-separated */
    variables: string[];
  }): Promise<Variables>;
  /** List all active bridges. (GET /bridges) */
  list(): Promise<Bridge[]>;
  /** Start playback of media on a bridge. (POST /bridges/{bridgeId}/play) */
  play(params: {
    /** Bridge's id */
    bridgeId: string;
    /** Media URIs to play, comma-separated (sound:, recording:, number:, digits:, characters:, tone:); played in order */
    media: string[];
    /** For sounds, selects language for sound */
    lang?: string;
    /** Number of milliseconds to skip before playing; applies to the first URI only */
    offsetms?: number;
    /** Number of milliseconds to skip for forward/reverse operations */
    skipms?: number;
    /** Format of the announcer that plays into the bridge (slin, slin8, slin16, slin48, ulaw, alaw, g722); default slin at the highest participant sample rate */
    announcer_format?: string;
    /** Playback Id; generated when absent */
    playbackId?: string;
  }): Promise<Playback>;
  /** Start playback of media on a bridge, with the given playback id. (POST /bridges/{bridgeId}/play/{playbackId}) */
  playWithId(params: {
    /** Bridge's id */
    bridgeId: string;
    /** Playback ID */
    playbackId: string;
    /** Media URIs to play, comma-separated (sound:, recording:, number:, digits:, characters:, tone:); played in order */
    media: string[];
    /** For sounds, selects language for sound */
    lang?: string;
    /** Number of milliseconds to skip before playing; applies to the first URI only */
    offsetms?: number;
    /** Number of milliseconds to skip for forward/reverse operations */
    skipms?: number;
    /** Format of the announcer that plays into the bridge (slin, slin8, slin16, slin48, ulaw, alaw, g722); default slin at the highest participant sample rate */
    announcer_format?: string;
  }): Promise<Playback>;
  /** Start a recording. (POST /bridges/{bridgeId}/record) */
  record(params: {
    /** Bridge's id */
    bridgeId: string;
    /** Recording name: a path relative to the recording directory, without extension */
    name: string;
    /** Format to encode audio in (wav, ulaw, alaw, sln, g722, …) */
    format: string;
    /** Maximum duration of the recording, in seconds. 0 for no limit */
    maxDurationSeconds?: number;
    /** Maximum duration of silence, in seconds. 0 for no limit; otherwise talking and silence durations are reported */
    maxSilenceSeconds?: number;
    /** Action to take if a recording with the same name already exists */
    ifExists?: "fail" | "overwrite" | "append";
    /** Play beep when recording begins */
    beep?: boolean;
    /** DTMF input to terminate recording */
    terminateOn?: "none" | "any" | "*" | "#";
    /** Format of the recorder that listens to the bridge (a recording format, or slin, slin16, slin48, ulaw, alaw, g722); the same as format when absent */
    recorder_format?: string;
  }): Promise<LiveRecording>;
  /** Remove a channel from a bridge. (POST /bridges/{bridgeId}/removeChannel) */
  removeChannel(params: {
    /** Bridge's id */
    bridgeId: string;
    /** Ids of channels; comma-separated */
    channel: string[];
  }): Promise<void>;
  /** Set the value of a bridge variable. (POST /bridges/{bridgeId}/variable) */
  setBridgeVar(params: {
    /** Bridge's id */
    bridgeId: string;
    /** The bridge variable to get or set */
    variable: string;
    /** The value to set the variable to; absent unsets it */
    value?: string;
    /** Show the variable in the bridgevars of every bridge snapshot */
    report_events?: boolean;
  }): Promise<void>;
  /** Set the values of several bridge variables. (POST /bridges/{bridgeId}/variables) */
  setBridgeVars(params: {
    /** Bridge's id */
    bridgeId: string;
    /** The "variables" key in the body object holds the variables to set */
    variables?: unknown;
  }): Promise<void>;
  /** Set a channel as the video source in a multi-party mixing bridge. (POST /bridges/{bridgeId}/videoSource/{channelId}) */
  setVideoSource(params: {
    /** Bridge's id */
    bridgeId: string;
    /** Channel's id */
    channelId: string;
  }): Promise<void>;
  /** Play music on hold to a bridge or change the music on hold class that is playing. (POST /bridges/{bridgeId}/moh) */
  startMoh(params: {
    /** Bridge's id */
    bridgeId: string;
    /** Music on hold class (default when absent) */
    mohClass?: string;
  }): Promise<void>;
  /** Stop playing music on hold to a bridge. (DELETE /bridges/{bridgeId}/moh) */
  stopMoh(params: {
    /** Bridge's id */
    bridgeId: string;
  }): Promise<void>;
}

/** The `channels` resource. */
export interface ChannelsApi {
  /** Answer a channel. (POST /channels/{channelId}/answer) */
  answer(params: {
    /** Channel's id */
    channelId: string;
  }): Promise<void>;
  /** Exit application; continue execution in the dialplan. (POST /channels/{channelId}/continue) */
  continueInDialplan(params: {
    /** Channel's id */
    channelId: string;
    /** The context to continue to */
    context?: string;
    /** The extension to continue to */
    extension?: string;
    /** The priority to continue to */
    priority?: number;
    /** The label to continue to; wins over priority */
    label?: string;
  }): Promise<void>;
  /** Create channel. (POST /channels/create) */
  create(params: {
    /** Endpoint to call, technology/resource (e.g. SIP/alice; PJSIP is accepted for SIP) */
    endpoint: string;
    /** The application that is subscribed to the created channel */
    app: string;
    /** The application arguments to pass to the application, comma-separated */
    appArgs?: string;
    /** The unique id to assign the channel on creation */
    channelId?: string;
    /** The unique id to assign the second channel when using local channels */
    otherChannelId?: string;
    /** The unique id of the channel which is originating this one; cannot be combined with formats */
    originator?: string;
    /** The format name capability list to use if originator is not specified, comma-separated (ex. "ulaw,alaw") */
    formats?: string;
    /** The "variables" key in the body object holds variable key/value pairs to set on the channel on creation. Other keys in the body object are interpreted as query parameters. Ex. { "endpoint": "SIP/alice", "variables": { "CALLERID(name)": "Alice" } } */
    variables?: unknown;
  }): Promise<Channel>;
  /** Dial a created channel. (POST /channels/{channelId}/dial) */
  dial(params: {
    /** Channel's id */
    channelId: string;
    /** Channel ID of caller; its language is applied and Dial events name it */
    caller?: string;
    /** Dial timeout in seconds; 0 means no limit */
    timeout?: number;
  }): Promise<void>;
  /** Start an External Media session. (POST /channels/externalMedia) */
  externalMedia(params: {
    /** The unique id to assign the channel on creation */
    channelId?: string;
    /** The application that is subscribed to the created channel */
    app: string;
    /** host:port of the external host (rtp, audiosocket), or the ws:// or wss:// URL to connect to (websocket client) */
    external_host?: string;
    /** Payload encapsulation protocol: rtp (udp), audiosocket (tcp), none (websocket) */
    encapsulation?: "rtp" | "audiosocket" | "none";
    /** Transport protocol: udp (rtp), tcp (audiosocket), websocket (encapsulation none) */
    transport?: "udp" | "tcp" | "websocket";
    /** Connection type (client/server); server only with websocket */
    connection_type?: "client" | "server";
    /** Format to encode audio in: ulaw, alaw, g722, opus, slin16 over rtp; ulaw, slin, slin16 over websocket; slin, slin16 over audiosocket */
    format: string;
    /** External media direction (websocket: in = audio to the application only, out = from it only) */
    direction?: "both" | "in" | "out";
    /** An arbitrary data field (AudioSocket session id) */
    data?: string;
    /** Transport-specific data. websocket: dial-string options, f(json|plain-text) the control message format, d(both|in|out) the media direction, v(name=value,...) parameters added to the URI we connect to */
    transport_data?: string;
    /** The "variables" key in the body object holds variable key/value pairs to set on the channel on creation. Other keys in the body object are interpreted as query parameters. Ex. { "endpoint": "SIP/alice", "variables": { "CALLERID(name)": "Alice" } } */
    variables?: unknown;
  }): Promise<Channel>;
  /** Channel details. (GET /channels/{channelId}) */
  get(params: {
    /** Channel's id */
    channelId: string;
  }): Promise<Channel>;
  /** Get the value of a channel variable or function. (GET /channels/{channelId}/variable) */
  getChannelVar(params: {
    /** Channel's id */
    channelId: string;
    /** The channel variable or function to read or write (e.g. CALLERID(num)) */
    variable: string;
  }): Promise<Variable>;
  /** Get the values of several channel variables or functions. (GET /channels/{channelId}/variables) */
  getChannelVars(params: {
    /** Channel's id */
    channelId: string;
    /** The channel variables or functions to read, comma-separated */
    variables: string[];
  }): Promise<Variables>;
  /** Delete (i.e. hangup) a channel. (DELETE /channels/{channelId}) */
  hangup(params: {
    /** Channel's id */
    channelId: string;
    /** The Q.850 reason code for the hangup; cannot be combined with reason */
    reason_code?: number;
    /** Reason for hanging up the channel; cannot be combined with reason_code */
    reason?: "normal" | "busy" | "congestion" | "no_answer" | "timeout" | "rejected" | "unallocated" | "normal_unspecified" | "number_incomplete" | "codec_mismatch" | "interworking" | "failure" | "answered_elsewhere";
  }): Promise<void>;
  /** Hold a channel. (POST /channels/{channelId}/hold) */
  hold(params: {
    /** Channel's id */
    channelId: string;
  }): Promise<void>;
  /** List all active channels. (GET /channels) */
  list(): Promise<Channel[]>;
  /** Move the channel from one application to another. (POST /channels/{channelId}/move) */
  move(params: {
    /** Channel's id */
    channelId: string;
    /** The channel will be passed to this application */
    app: string;
    /** The application arguments to pass to the application provided by app */
    appArgs?: string;
  }): Promise<void>;
  /** Mute a channel. (POST /channels/{channelId}/mute) */
  mute(params: {
    /** Channel's id */
    channelId: string;
    /** Direction in which to mute audio: in = from the channel, out = towards it */
    direction?: "both" | "in" | "out";
  }): Promise<void>;
  /** Create a new channel (originate). (POST /channels) */
  originate(params: {
    /** Endpoint to call, technology/resource (e.g. SIP/alice; PJSIP is accepted for SIP) */
    endpoint: string;
    /** The extension to dial after the endpoint answers. Mutually exclusive with app */
    extension?: string;
    /** The context to dial after the endpoint answers; default is "default". Mutually exclusive with app */
    context?: string;
    /** The priority to dial after the endpoint answers; default is 1. Mutually exclusive with app */
    priority?: number;
    /** The label to dial after the endpoint answers; wins over priority. Mutually exclusive with app */
    label?: string;
    /** The application that is subscribed to the originated channel and receives it when it answers. Mutually exclusive with the dialplan target */
    app?: string;
    /** The application arguments to pass to the application, comma-separated */
    appArgs?: string;
    /** CallerID to use when dialing the endpoint or extension */
    callerId?: string;
    /** Timeout (in seconds) before giving up dialing, or -1 for no timeout */
    timeout?: number;
    /** The unique id to assign the channel on creation */
    channelId?: string;
    /** The unique id to assign the second channel when using local channels */
    otherChannelId?: string;
    /** The unique id of the channel which is originating this one; cannot be combined with formats */
    originator?: string;
    /** The format name capability list to use if originator is not specified, comma-separated (ex. "ulaw,alaw") */
    formats?: string;
    /** The "variables" key in the body object holds variable key/value pairs to set on the channel on creation. Other keys in the body object are interpreted as query parameters. Ex. { "endpoint": "SIP/alice", "variables": { "CALLERID(name)": "Alice" } } */
    variables?: unknown;
  }): Promise<Channel>;
  /** Create a new channel (originate with id). (POST /channels/{channelId}) */
  originateWithId(params: {
    /** The unique id to assign the channel on creation */
    channelId: string;
    /** Endpoint to call, technology/resource (e.g. SIP/alice; PJSIP is accepted for SIP) */
    endpoint: string;
    /** The extension to dial after the endpoint answers. Mutually exclusive with app */
    extension?: string;
    /** The context to dial after the endpoint answers; default is "default". Mutually exclusive with app */
    context?: string;
    /** The priority to dial after the endpoint answers; default is 1. Mutually exclusive with app */
    priority?: number;
    /** The label to dial after the endpoint answers; wins over priority. Mutually exclusive with app */
    label?: string;
    /** The application that is subscribed to the originated channel and receives it when it answers. Mutually exclusive with the dialplan target */
    app?: string;
    /** The application arguments to pass to the application, comma-separated */
    appArgs?: string;
    /** CallerID to use when dialing the endpoint or extension */
    callerId?: string;
    /** Timeout (in seconds) before giving up dialing, or -1 for no timeout */
    timeout?: number;
    /** The unique id to assign the second channel when using local channels */
    otherChannelId?: string;
    /** The unique id of the channel which is originating this one; cannot be combined with formats */
    originator?: string;
    /** The format name capability list to use if originator is not specified, comma-separated (ex. "ulaw,alaw") */
    formats?: string;
    /** The "variables" key in the body object holds variable key/value pairs to set on the channel on creation. Other keys in the body object are interpreted as query parameters. Ex. { "endpoint": "SIP/alice", "variables": { "CALLERID(name)": "Alice" } } */
    variables?: unknown;
  }): Promise<Channel>;
  /** Start playback of media. (POST /channels/{channelId}/play) */
  play(params: {
    /** Channel's id */
    channelId: string;
    /** Media URIs to play, comma-separated (sound:, recording:, number:, digits:, characters:, tone:); played in order as one playback */
    media: string[];
    /** For sounds, selects language for sound; defaults to the channel's language */
    lang?: string;
    /** Number of milliseconds to skip before playing; applies to the first URI only */
    offsetms?: number;
    /** Number of milliseconds to skip for forward/reverse operations */
    skipms?: number;
    /** Playback ID; generated when absent */
    playbackId?: string;
  }): Promise<Playback>;
  /** Start playback of media and specify the playbackId. (POST /channels/{channelId}/play/{playbackId}) */
  playWithId(params: {
    /** Channel's id */
    channelId: string;
    /** Playback ID */
    playbackId: string;
    /** Media URIs to play, comma-separated (sound:, recording:, number:, digits:, characters:, tone:); played in order as one playback */
    media: string[];
    /** For sounds, selects language for sound; defaults to the channel's language */
    lang?: string;
    /** Number of milliseconds to skip before playing; applies to the first URI only */
    offsetms?: number;
    /** Number of milliseconds to skip for forward/reverse operations */
    skipms?: number;
  }): Promise<Playback>;
  /** Indicate progress (early media) to a channel. (POST /channels/{channelId}/progress) */
  progress(params: {
    /** Channel's id */
    channelId: string;
  }): Promise<void>;
  /** Start a recording. (POST /channels/{channelId}/record) */
  record(params: {
    /** Channel's id */
    channelId: string;
    /** Recording name: a path relative to the recording directory, without extension */
    name: string;
    /** Format to encode audio in (wav, ulaw, alaw, sln, g722, …) */
    format: string;
    /** Maximum duration of the recording, in seconds. 0 for no limit */
    maxDurationSeconds?: number;
    /** Maximum duration of silence, in seconds. 0 for no limit; otherwise talking and silence durations are reported */
    maxSilenceSeconds?: number;
    /** Action to take if a recording with the same name already exists */
    ifExists?: "fail" | "overwrite" | "append";
    /** Play beep when recording begins */
    beep?: boolean;
    /** DTMF input to terminate recording */
    terminateOn?: "none" | "any" | "*" | "#";
  }): Promise<LiveRecording>;
  /** Redirect the channel to a different location. (POST /channels/{channelId}/redirect) */
  redirect(params: {
    /** Channel's id */
    channelId: string;
    /** The endpoint to redirect the channel to, technology/resource */
    endpoint: string;
  }): Promise<void>;
  /** Indicate ringing to a channel. (POST /channels/{channelId}/ring) */
  ring(params: {
    /** Channel's id */
    channelId: string;
  }): Promise<void>;
  /** Stop ringing indication on a channel if locally generated. (DELETE /channels/{channelId}/ring) */
  ringStop(params: {
    /** Channel's id */
    channelId: string;
  }): Promise<void>;
  /** RTP stats on a channel. (GET /channels/{channelId}/rtp_statistics) */
  rtpstatistics(params: {
    /** Channel's id */
    channelId: string;
  }): Promise<RTPstat>;
  /** Send provided DTMF to a given channel. (POST /channels/{channelId}/dtmf) */
  sendDTMF(params: {
    /** Channel's id */
    channelId: string;
    /** DTMF To send */
    dtmf?: string;
    /** Amount of time to wait before DTMF digits (specified in milliseconds) start */
    before?: number;
    /** Amount of time in between DTMF digits (specified in milliseconds) */
    between?: number;
    /** Length of each DTMF digit (specified in milliseconds) */
    duration?: number;
    /** Amount of time to wait after DTMF digits (specified in milliseconds) end */
    after?: number;
  }): Promise<void>;
  /** Set the value of a channel variable or function. (POST /channels/{channelId}/variable) */
  setChannelVar(params: {
    /** Channel's id */
    channelId: string;
    /** The channel variable or function to read or write (e.g. CALLERID(num)) */
    variable: string;
    /** The value to set the variable to */
    value?: string;
    /** Show the variable in the channelvars of every later event of the channel */
    report_events?: boolean;
  }): Promise<void>;
  /** Set the values of several channel variables or functions. (POST /channels/{channelId}/variables) */
  setChannelVars(params: {
    /** Channel's id */
    channelId: string;
    /** The "variables" key in the body object holds the variable key/value pairs to set */
    variables?: unknown;
  }): Promise<void>;
  /** Start snooping. (POST /channels/{channelId}/snoop) */
  snoopChannel(params: {
    /** Channel's id */
    channelId: string;
    /** Direction of audio to spy on: in = what the channel receives from its phone */
    spy?: "none" | "both" | "out" | "in";
    /** Direction of audio to whisper into */
    whisper?: "none" | "both" | "out" | "in";
    /** Application the snooping channel is placed into */
    app: string;
    /** The application arguments to pass to the application */
    appArgs?: string;
    /** Unique ID to assign to snooping channel */
    snoopId?: string;
  }): Promise<Channel>;
  /** Start snooping, with the snoop channel id of the path. (POST /channels/{channelId}/snoop/{snoopId}) */
  snoopChannelWithId(params: {
    /** Channel's id */
    channelId: string;
    /** Unique ID to assign to snooping channel */
    snoopId: string;
    /** Direction of audio to spy on: in = what the channel receives from its phone */
    spy?: "none" | "both" | "out" | "in";
    /** Direction of audio to whisper into */
    whisper?: "none" | "both" | "out" | "in";
    /** Application the snooping channel is placed into */
    app: string;
    /** The application arguments to pass to the application */
    appArgs?: string;
  }): Promise<Channel>;
  /** Play music on hold to a channel. (POST /channels/{channelId}/moh) */
  startMoh(params: {
    /** Channel's id */
    channelId: string;
    /** Music on hold class to use */
    mohClass?: string;
  }): Promise<void>;
  /** Play silence to a channel. (POST /channels/{channelId}/silence) */
  startSilence(params: {
    /** Channel's id */
    channelId: string;
  }): Promise<void>;
  /** Stop playing music on hold to a channel. (DELETE /channels/{channelId}/moh) */
  stopMoh(params: {
    /** Channel's id */
    channelId: string;
  }): Promise<void>;
  /** Stop playing silence to a channel. (DELETE /channels/{channelId}/silence) */
  stopSilence(params: {
    /** Channel's id */
    channelId: string;
  }): Promise<void>;
  /** Inform the channel about the progress of the attended/blind transfer. (POST /channels/{channelId}/transfer_progress) */
  transfer_progress(params: {
    /** Channel's id */
    channelId: string;
    /** The state of the progress: channel_progress, channel_answered, channel_unavailable or channel_declined */
    states: string;
  }): Promise<void>;
  /** Remove a channel from hold. (DELETE /channels/{channelId}/hold) */
  unhold(params: {
    /** Channel's id */
    channelId: string;
  }): Promise<void>;
  /** Unmute a channel. (DELETE /channels/{channelId}/mute) */
  unmute(params: {
    /** Channel's id */
    channelId: string;
    /** Direction in which to unmute audio */
    direction?: "both" | "in" | "out";
  }): Promise<void>;
}

/** The `deviceStates` resource. */
export interface DeviceStatesApi {
  /** Destroy a device-state controlled by an application. (DELETE /deviceStates/{deviceName}) */
  delete(params: {
    /** Name of the device */
    deviceName: string;
  }): Promise<void>;
  /** Retrieve the current state of a device. (GET /deviceStates/{deviceName}) */
  get(params: {
    /** Name of the device */
    deviceName: string;
  }): Promise<DeviceState>;
  /** List all device states controlled by applications. (GET /deviceStates) */
  list(): Promise<DeviceState[]>;
  /** Change the state of a device controlled by an application. (PUT /deviceStates/{deviceName}) */
  update(params: {
    /** Name of the device */
    deviceName: string;
    /** Device state value */
    deviceState: "NOT_INUSE" | "INUSE" | "BUSY" | "INVALID" | "UNAVAILABLE" | "RINGING" | "RINGINUSE" | "ONHOLD";
  }): Promise<void>;
}

/** The `endpoints` resource. */
export interface EndpointsApi {
  /** Details for an endpoint. (GET /endpoints/{tech}/{resource}) */
  get(params: {
    /** Technology of the endpoints (SIP; PJSIP is accepted) */
    tech: string;
    /** ID of the endpoint */
    resource: string;
  }): Promise<Endpoint>;
  /** List all endpoints. (GET /endpoints) */
  list(): Promise<Endpoint[]>;
  /** List available endpoints for a given endpoint technology. (GET /endpoints/{tech}) */
  listByTech(params: {
    /** Technology of the endpoints (SIP; PJSIP is accepted) */
    tech: string;
  }): Promise<Endpoint[]>;
  /** Refer an endpoint or technology URI to some technology URI or endpoint. (POST /endpoints/refer) */
  refer(params: {
    /** The endpoint resource or technology specific URI that should be referred somewhere (pjsip:alice). */
    to: string;
    /** The endpoint resource or technology specific identity to send the REFER from. */
    from: string;
    /** The endpoint resource or technology specific URI to refer to (pjsip:bob, sip:bob@example.com). */
    refer_to: string;
    /** If true and refer_to names one of our endpoints, the Refer-To points at this server instead of the endpoint itself. */
    to_self?: boolean;
    /** Display name written in front of the Refer-To URI (also read from the top-level body key of that name). */
    display_name?: string;
    /** The "variables" key in the body object holds technology specific key/value pairs (SIP headers) to add to the REFER. */
    variables?: unknown;
  }): Promise<void>;
  /** Refer an endpoint in a technology to some technology URI or endpoint. (POST /endpoints/{tech}/{resource}/refer) */
  referToEndpoint(params: {
    /** Technology of the endpoints (SIP; PJSIP is accepted) */
    tech: string;
    /** ID of the endpoint */
    resource: string;
    /** The endpoint resource or technology specific identity to send the REFER from. */
    from: string;
    /** The endpoint resource or technology specific URI to refer to (pjsip:bob, sip:bob@example.com). */
    refer_to: string;
    /** If true and refer_to names one of our endpoints, the Refer-To points at this server instead of the endpoint itself. */
    to_self?: boolean;
    /** Display name written in front of the Refer-To URI (also read from the top-level body key of that name). */
    display_name?: string;
    /** The "variables" key in the body object holds technology specific key/value pairs (SIP headers) to add to the REFER. */
    variables?: unknown;
  }): Promise<void>;
  /** Send a message to some technology URI or endpoint. (PUT /endpoints/sendMessage) */
  sendMessage(params: {
    /** The endpoint resource or technology specific URI to send the message to. Valid resources are sip, pjsip. */
    to: string;
    /** The endpoint resource or technology specific identity to send this message from. */
    from: string;
    /** The body of the message */
    body?: string;
    /** The "variables" key in the body object holds technology specific key/value pairs to append to the message. */
    variables?: unknown;
  }): Promise<void>;
  /** Send a message to some endpoint in a technology. (PUT /endpoints/{tech}/{resource}/sendMessage) */
  sendMessageToEndpoint(params: {
    /** Technology of the endpoints (SIP; PJSIP is accepted) */
    tech: string;
    /** ID of the endpoint */
    resource: string;
    /** The endpoint resource or technology specific identity to send this message from. */
    from: string;
    /** The body of the message */
    body?: string;
    /** The "variables" key in the body object holds technology specific key/value pairs to append to the message. */
    variables?: unknown;
  }): Promise<void>;
}

/** The `events` resource. */
export interface EventsApi {
  /** Claim a channel that was broadcast to several applications. (POST /events/claim) */
  claimChannel(params: {
    /** The id of the broadcast channel to claim */
    channelId: string;
    /** The name of the application claiming the channel */
    application: string;
  }): Promise<void>;
  /** Generate a user event. (POST /events/user/{eventName}) */
  userEvent(params: {
    /** Event name */
    eventName: string;
    /** The name of the application that will receive this event */
    application: string;
    /** URI for event source (channel:{channelId}, bridge:{bridgeId}, endpoint:{tech}/{resource}) */
    source?: string[];
    /** The "variables" key in the body object holds custom key/value pairs to add to the user event. */
    variables?: unknown;
  }): Promise<void>;
}

/** The `mailboxes` resource. */
export interface MailboxesApi {
  /** Destroy a mailbox. (DELETE /mailboxes/{mailboxName}) */
  delete(params: {
    /** Name of the mailbox */
    mailboxName: string;
  }): Promise<void>;
  /** Retrieve the current state of a mailbox. (GET /mailboxes/{mailboxName}) */
  get(params: {
    /** Name of the mailbox */
    mailboxName: string;
  }): Promise<Mailbox>;
  /** List all mailboxes. (GET /mailboxes) */
  list(): Promise<Mailbox[]>;
  /** Change the state of a mailbox. (Note - implicitly creates the mailbox). (PUT /mailboxes/{mailboxName}) */
  update(params: {
    /** Name of the mailbox */
    mailboxName: string;
    /** Count of old messages in the mailbox */
    oldMessages: number;
    /** Count of new messages in the mailbox */
    newMessages: number;
  }): Promise<void>;
}

/** The `playbacks` resource. */
export interface PlaybacksApi {
  /** Control a playback. (POST /playbacks/{playbackId}/control) */
  control(params: {
    /** Playback's id */
    playbackId: string;
    /** Operation to perform on the playback */
    operation: "restart" | "pause" | "unpause" | "reverse" | "forward";
  }): Promise<void>;
  /** Get a playback (GET /playbacks/{playbackId}) */
  get(params: {
    /** Playback's id */
    playbackId: string;
  }): Promise<Playback>;
  /** Stop a playback (or cancel it while it is still queued). (DELETE /playbacks/{playbackId}) */
  stop(params: {
    /** Playback's id */
    playbackId: string;
  }): Promise<void>;
}

/** The `recordings` resource. */
export interface RecordingsApi {
  /** Stop a live recording and discard it. (DELETE /recordings/live/{recordingName}) */
  cancel(params: {
    /** The name of the recording (path under the recording directory, without extension) */
    recordingName: string;
  }): Promise<void>;
  /** Copy a stored recording. (POST /recordings/stored/{recordingName}/copy) */
  copyStored(params: {
    /** The name of the recording (path under the recording directory, without extension) */
    recordingName: string;
    /** The destination name of the recording */
    destinationRecordingName: string;
  }): Promise<StoredRecording>;
  /** Delete a stored recording. (DELETE /recordings/stored/{recordingName}) */
  deleteStored(params: {
    /** The name of the recording (path under the recording directory, without extension) */
    recordingName: string;
  }): Promise<void>;
  /** List live recordings. (GET /recordings/live/{recordingName}) */
  getLive(params: {
    /** The name of the recording (path under the recording directory, without extension) */
    recordingName: string;
  }): Promise<LiveRecording>;
  /** Get a stored recording's details. (GET /recordings/stored/{recordingName}) */
  getStored(params: {
    /** The name of the recording (path under the recording directory, without extension) */
    recordingName: string;
  }): Promise<StoredRecording>;
  /** Get the file associated with the stored recording. (GET /recordings/stored/{recordingName}/file) */
  getStoredFile(params: {
    /** The name of the recording (path under the recording directory, without extension) */
    recordingName: string;
  }): Promise<ArrayBuffer>;
  /** List recordings that are complete. (GET /recordings/stored) */
  listStored(): Promise<StoredRecording[]>;
  /** Mute a live recording (silence is recorded instead). (POST /recordings/live/{recordingName}/mute) */
  mute(params: {
    /** The name of the recording (path under the recording directory, without extension) */
    recordingName: string;
  }): Promise<void>;
  /** Pause a live recording. (POST /recordings/live/{recordingName}/pause) */
  pause(params: {
    /** The name of the recording (path under the recording directory, without extension) */
    recordingName: string;
  }): Promise<void>;
  /** Stop a live recording and store it. (POST /recordings/live/{recordingName}/stop) */
  stop(params: {
    /** The name of the recording (path under the recording directory, without extension) */
    recordingName: string;
  }): Promise<void>;
  /** Unmute a live recording. (DELETE /recordings/live/{recordingName}/mute) */
  unmute(params: {
    /** The name of the recording (path under the recording directory, without extension) */
    recordingName: string;
  }): Promise<void>;
  /** Unmute a live recording. (POST /recordings/live/{recordingName}/unmute) */
  unmuteWithPost(params: {
    /** The name of the recording (path under the recording directory, without extension) */
    recordingName: string;
  }): Promise<void>;
  /** Unpause a live recording. (DELETE /recordings/live/{recordingName}/pause) */
  unpause(params: {
    /** The name of the recording (path under the recording directory, without extension) */
    recordingName: string;
  }): Promise<void>;
  /** Unpause a live recording. (POST /recordings/live/{recordingName}/unpause) */
  unpauseWithPost(params: {
    /** The name of the recording (path under the recording directory, without extension) */
    recordingName: string;
  }): Promise<void>;
}

/** The `sounds` resource. */
export interface SoundsApi {
  /** Get a sound's details. (GET /sounds/{soundId}) */
  get(params: {
    /** Sound's id */
    soundId: string;
  }): Promise<Sound>;
  /** List all sounds. (GET /sounds) */
  list(params?: {
    /** Lookup sound for a specific language. */
    lang?: string;
    /** Lookup sound in a specific format. */
    format?: string;
  }): Promise<Sound[]>;
}

/** The `system` resource. */
export interface SystemApi {
  /** Adds a log channel. (POST /system/logging/{logChannelName}) */
  addLog(params: {
    /** Log channel name: a file name in the log directory, or console */
    logChannelName: string;
    /** levels of the log channel (debug, verbose, notice, warning, error, dtmf, fax, security or *) */
    configuration: string;
  }): Promise<void>;
  /** Delete a dynamic configuration object. (DELETE /system/{configClass}/{objectType}/{id}) */
  deleteConfigObject(params: {
    /** The configuration class containing dynamic configuration objects (res_pjsip). */
    configClass: string;
    /** The type of configuration object (endpoint, aor, auth, identify). */
    objectType: string;
    /** The unique identifier of the object. */
    id: string;
  }): Promise<void>;
  /** Deletes a log channel. (DELETE /system/logging/{logChannelName}) */
  deleteLog(params: {
    /** Log channel name: a file name in the log directory, or console */
    logChannelName: string;
  }): Promise<void>;
  /** Delete a dynamic configuration object. (DELETE /system/config/dynamic/{configClass}/{objectType}/{id}) */
  deleteObject(params: {
    /** The configuration class containing dynamic configuration objects (res_pjsip). */
    configClass: string;
    /** The type of configuration object (endpoint, aor, auth, identify). */
    objectType: string;
    /** The unique identifier of the object. */
    id: string;
  }): Promise<void>;
  /** Retrieve a dynamic configuration object. (GET /system/{configClass}/{objectType}/{id}) */
  getConfigObject(params: {
    /** The configuration class containing dynamic configuration objects (res_pjsip). */
    configClass: string;
    /** The type of configuration object (endpoint, aor, auth, identify). */
    objectType: string;
    /** The unique identifier of the object. */
    id: string;
  }): Promise<ConfigTuple[]>;
  /** Get the value of a global variable. (GET /system/variable) */
  getGlobalVar(params: {
    /** The variable to get */
    variable: string;
  }): Promise<Variable>;
  /** Gets system information. (GET /system/info) */
  getInfo(params?: {
    /** Filter information returned; all sections when absent */
    only?: ("build" | "system" | "config" | "status")[];
  }): Promise<SystemInfo>;
  /** Get module information. (GET /system/modules/{moduleName}) */
  getModule(params: {
    /** Module's name */
    moduleName: string;
  }): Promise<Module>;
  /** Retrieve a dynamic configuration object. (GET /system/config/dynamic/{configClass}/{objectType}/{id}) */
  getObject(params: {
    /** The configuration class containing dynamic configuration objects (res_pjsip). */
    configClass: string;
    /** The type of configuration object (endpoint, aor, auth, identify). */
    objectType: string;
    /** The unique identifier of the object. */
    id: string;
  }): Promise<ConfigTuple[]>;
  /** Gets log channels. (GET /system/logging) */
  listLogChannels(): Promise<LogChannel[]>;
  /** List loaded modules. (GET /system/modules) */
  listModules(): Promise<Module[]>;
  /** Load a module. (POST /system/modules/{moduleName}) */
  loadModule(params: {
    /** Module's name */
    moduleName: string;
  }): Promise<void>;
  /** Response pong message. (GET /system/ping) */
  ping(): Promise<SystemPing>;
  /** Reload a module. (PUT /system/modules/{moduleName}) */
  reloadModule(params: {
    /** Module's name */
    moduleName: string;
  }): Promise<void>;
  /** Rotates a log channel. (PUT /system/logging/{logChannelName}/rotate) */
  rotateLog(params: {
    /** Log channel name: a file name in the log directory, or console */
    logChannelName: string;
  }): Promise<void>;
  /** Set the value of a global variable. (POST /system/variable) */
  setGlobalVar(params: {
    /** The variable to set */
    variable: string;
    /** The value to set the variable to */
    value?: string;
  }): Promise<void>;
  /** Unload a module. (DELETE /system/modules/{moduleName}) */
  unloadModule(params: {
    /** Module's name */
    moduleName: string;
  }): Promise<void>;
  /** Create or update a dynamic configuration object. (PUT /system/{configClass}/{objectType}/{id}) */
  updateConfigObject(params: {
    /** The configuration class containing dynamic configuration objects (res_pjsip). */
    configClass: string;
    /** The type of configuration object (endpoint, aor, auth, identify). */
    objectType: string;
    /** The unique identifier of the object. */
    id: string;
    /** The body object has a "fields" key: a list of {"attribute", "value"} tuples to create or change. */
    fields?: unknown;
  }): Promise<ConfigTuple[]>;
  /** Create or update a dynamic configuration object. (PUT /system/config/dynamic/{configClass}/{objectType}/{id}) */
  updateObject(params: {
    /** The configuration class containing dynamic configuration objects (res_pjsip). */
    configClass: string;
    /** The type of configuration object (endpoint, aor, auth, identify). */
    objectType: string;
    /** The unique identifier of the object. */
    id: string;
    /** The body object has a "fields" key: a list of {"attribute", "value"} tuples to create or change. */
    fields?: unknown;
  }): Promise<ConfigTuple[]>;
}

/** Every REST resource of the API. */
export interface AriApi {
  applications: ApplicationsApi;
  bridges: BridgesApi;
  channels: ChannelsApi;
  deviceStates: DeviceStatesApi;
  endpoints: EndpointsApi;
  events: EventsApi;
  mailboxes: MailboxesApi;
  playbacks: PlaybacksApi;
  recordings: RecordingsApi;
  sounds: SoundsApi;
  system: SystemApi;
}

/** How each method is called (used by the runtime client). */
export const OPERATIONS = [
  {"resource":"applications","method":"filter","httpMethod":"PUT","path":"/applications/{applicationName}/eventFilter","path_params":["applicationName"],"query_params":[],"body_params":[],"whole_body":true,"binary":false},
  {"resource":"applications","method":"get","httpMethod":"GET","path":"/applications/{applicationName}","path_params":["applicationName"],"query_params":[],"body_params":[],"whole_body":false,"binary":false},
  {"resource":"applications","method":"list","httpMethod":"GET","path":"/applications","path_params":[],"query_params":[],"body_params":[],"whole_body":false,"binary":false},
  {"resource":"applications","method":"subscribe","httpMethod":"POST","path":"/applications/{applicationName}/subscription","path_params":["applicationName"],"query_params":["eventSource"],"body_params":[],"whole_body":false,"binary":false},
  {"resource":"applications","method":"unsubscribe","httpMethod":"DELETE","path":"/applications/{applicationName}/subscription","path_params":["applicationName"],"query_params":["eventSource"],"body_params":[],"whole_body":false,"binary":false},
  {"resource":"bridges","method":"addChannel","httpMethod":"POST","path":"/bridges/{bridgeId}/addChannel","path_params":["bridgeId"],"query_params":["channel","role","roles","absorbDTMF","mute","inhibitConnectedLineUpdates"],"body_params":[],"whole_body":false,"binary":false},
  {"resource":"bridges","method":"clearVideoSource","httpMethod":"DELETE","path":"/bridges/{bridgeId}/videoSource","path_params":["bridgeId"],"query_params":[],"body_params":[],"whole_body":false,"binary":false},
  {"resource":"bridges","method":"create","httpMethod":"POST","path":"/bridges","path_params":[],"query_params":["type","bridgeId","name"],"body_params":["variables"],"whole_body":false,"binary":false},
  {"resource":"bridges","method":"createWithId","httpMethod":"POST","path":"/bridges/{bridgeId}","path_params":["bridgeId"],"query_params":["type","name"],"body_params":["variables"],"whole_body":false,"binary":false},
  {"resource":"bridges","method":"destroy","httpMethod":"DELETE","path":"/bridges/{bridgeId}","path_params":["bridgeId"],"query_params":[],"body_params":[],"whole_body":false,"binary":false},
  {"resource":"bridges","method":"get","httpMethod":"GET","path":"/bridges/{bridgeId}","path_params":["bridgeId"],"query_params":[],"body_params":[],"whole_body":false,"binary":false},
  {"resource":"bridges","method":"getBridgeVar","httpMethod":"GET","path":"/bridges/{bridgeId}/variable","path_params":["bridgeId"],"query_params":["variable"],"body_params":[],"whole_body":false,"binary":false},
  {"resource":"bridges","method":"getBridgeVars","httpMethod":"GET","path":"/bridges/{bridgeId}/variables","path_params":["bridgeId"],"query_params":["variables"],"body_params":[],"whole_body":false,"binary":false},
  {"resource":"bridges","method":"list","httpMethod":"GET","path":"/bridges","path_params":[],"query_params":[],"body_params":[],"whole_body":false,"binary":false},
  {"resource":"bridges","method":"play","httpMethod":"POST","path":"/bridges/{bridgeId}/play","path_params":["bridgeId"],"query_params":["media","lang","offsetms","skipms","announcer_format","playbackId"],"body_params":[],"whole_body":false,"binary":false},
  {"resource":"bridges","method":"playWithId","httpMethod":"POST","path":"/bridges/{bridgeId}/play/{playbackId}","path_params":["bridgeId","playbackId"],"query_params":["media","lang","offsetms","skipms","announcer_format"],"body_params":[],"whole_body":false,"binary":false},
  {"resource":"bridges","method":"record","httpMethod":"POST","path":"/bridges/{bridgeId}/record","path_params":["bridgeId"],"query_params":["name","format","maxDurationSeconds","maxSilenceSeconds","ifExists","beep","terminateOn","recorder_format"],"body_params":[],"whole_body":false,"binary":false},
  {"resource":"bridges","method":"removeChannel","httpMethod":"POST","path":"/bridges/{bridgeId}/removeChannel","path_params":["bridgeId"],"query_params":["channel"],"body_params":[],"whole_body":false,"binary":false},
  {"resource":"bridges","method":"setBridgeVar","httpMethod":"POST","path":"/bridges/{bridgeId}/variable","path_params":["bridgeId"],"query_params":["variable","value","report_events"],"body_params":[],"whole_body":false,"binary":false},
  {"resource":"bridges","method":"setBridgeVars","httpMethod":"POST","path":"/bridges/{bridgeId}/variables","path_params":["bridgeId"],"query_params":[],"body_params":["variables"],"whole_body":false,"binary":false},
  {"resource":"bridges","method":"setVideoSource","httpMethod":"POST","path":"/bridges/{bridgeId}/videoSource/{channelId}","path_params":["bridgeId","channelId"],"query_params":[],"body_params":[],"whole_body":false,"binary":false},
  {"resource":"bridges","method":"startMoh","httpMethod":"POST","path":"/bridges/{bridgeId}/moh","path_params":["bridgeId"],"query_params":["mohClass"],"body_params":[],"whole_body":false,"binary":false},
  {"resource":"bridges","method":"stopMoh","httpMethod":"DELETE","path":"/bridges/{bridgeId}/moh","path_params":["bridgeId"],"query_params":[],"body_params":[],"whole_body":false,"binary":false},
  {"resource":"channels","method":"answer","httpMethod":"POST","path":"/channels/{channelId}/answer","path_params":["channelId"],"query_params":[],"body_params":[],"whole_body":false,"binary":false},
  {"resource":"channels","method":"continueInDialplan","httpMethod":"POST","path":"/channels/{channelId}/continue","path_params":["channelId"],"query_params":["context","extension","priority","label"],"body_params":[],"whole_body":false,"binary":false},
  {"resource":"channels","method":"create","httpMethod":"POST","path":"/channels/create","path_params":[],"query_params":["endpoint","app","appArgs","channelId","otherChannelId","originator","formats"],"body_params":["variables"],"whole_body":false,"binary":false},
  {"resource":"channels","method":"dial","httpMethod":"POST","path":"/channels/{channelId}/dial","path_params":["channelId"],"query_params":["caller","timeout"],"body_params":[],"whole_body":false,"binary":false},
  {"resource":"channels","method":"externalMedia","httpMethod":"POST","path":"/channels/externalMedia","path_params":[],"query_params":["channelId","app","external_host","encapsulation","transport","connection_type","format","direction","data","transport_data"],"body_params":["variables"],"whole_body":false,"binary":false},
  {"resource":"channels","method":"get","httpMethod":"GET","path":"/channels/{channelId}","path_params":["channelId"],"query_params":[],"body_params":[],"whole_body":false,"binary":false},
  {"resource":"channels","method":"getChannelVar","httpMethod":"GET","path":"/channels/{channelId}/variable","path_params":["channelId"],"query_params":["variable"],"body_params":[],"whole_body":false,"binary":false},
  {"resource":"channels","method":"getChannelVars","httpMethod":"GET","path":"/channels/{channelId}/variables","path_params":["channelId"],"query_params":["variables"],"body_params":[],"whole_body":false,"binary":false},
  {"resource":"channels","method":"hangup","httpMethod":"DELETE","path":"/channels/{channelId}","path_params":["channelId"],"query_params":["reason_code","reason"],"body_params":[],"whole_body":false,"binary":false},
  {"resource":"channels","method":"hold","httpMethod":"POST","path":"/channels/{channelId}/hold","path_params":["channelId"],"query_params":[],"body_params":[],"whole_body":false,"binary":false},
  {"resource":"channels","method":"list","httpMethod":"GET","path":"/channels","path_params":[],"query_params":[],"body_params":[],"whole_body":false,"binary":false},
  {"resource":"channels","method":"move","httpMethod":"POST","path":"/channels/{channelId}/move","path_params":["channelId"],"query_params":["app","appArgs"],"body_params":[],"whole_body":false,"binary":false},
  {"resource":"channels","method":"mute","httpMethod":"POST","path":"/channels/{channelId}/mute","path_params":["channelId"],"query_params":["direction"],"body_params":[],"whole_body":false,"binary":false},
  {"resource":"channels","method":"originate","httpMethod":"POST","path":"/channels","path_params":[],"query_params":["endpoint","extension","context","priority","label","app","appArgs","callerId","timeout","channelId","otherChannelId","originator","formats"],"body_params":["variables"],"whole_body":false,"binary":false},
  {"resource":"channels","method":"originateWithId","httpMethod":"POST","path":"/channels/{channelId}","path_params":["channelId"],"query_params":["endpoint","extension","context","priority","label","app","appArgs","callerId","timeout","otherChannelId","originator","formats"],"body_params":["variables"],"whole_body":false,"binary":false},
  {"resource":"channels","method":"play","httpMethod":"POST","path":"/channels/{channelId}/play","path_params":["channelId"],"query_params":["media","lang","offsetms","skipms","playbackId"],"body_params":[],"whole_body":false,"binary":false},
  {"resource":"channels","method":"playWithId","httpMethod":"POST","path":"/channels/{channelId}/play/{playbackId}","path_params":["channelId","playbackId"],"query_params":["media","lang","offsetms","skipms"],"body_params":[],"whole_body":false,"binary":false},
  {"resource":"channels","method":"progress","httpMethod":"POST","path":"/channels/{channelId}/progress","path_params":["channelId"],"query_params":[],"body_params":[],"whole_body":false,"binary":false},
  {"resource":"channels","method":"record","httpMethod":"POST","path":"/channels/{channelId}/record","path_params":["channelId"],"query_params":["name","format","maxDurationSeconds","maxSilenceSeconds","ifExists","beep","terminateOn"],"body_params":[],"whole_body":false,"binary":false},
  {"resource":"channels","method":"redirect","httpMethod":"POST","path":"/channels/{channelId}/redirect","path_params":["channelId"],"query_params":["endpoint"],"body_params":[],"whole_body":false,"binary":false},
  {"resource":"channels","method":"ring","httpMethod":"POST","path":"/channels/{channelId}/ring","path_params":["channelId"],"query_params":[],"body_params":[],"whole_body":false,"binary":false},
  {"resource":"channels","method":"ringStop","httpMethod":"DELETE","path":"/channels/{channelId}/ring","path_params":["channelId"],"query_params":[],"body_params":[],"whole_body":false,"binary":false},
  {"resource":"channels","method":"rtpstatistics","httpMethod":"GET","path":"/channels/{channelId}/rtp_statistics","path_params":["channelId"],"query_params":[],"body_params":[],"whole_body":false,"binary":false},
  {"resource":"channels","method":"sendDTMF","httpMethod":"POST","path":"/channels/{channelId}/dtmf","path_params":["channelId"],"query_params":["dtmf","before","between","duration","after"],"body_params":[],"whole_body":false,"binary":false},
  {"resource":"channels","method":"setChannelVar","httpMethod":"POST","path":"/channels/{channelId}/variable","path_params":["channelId"],"query_params":["variable","value","report_events"],"body_params":[],"whole_body":false,"binary":false},
  {"resource":"channels","method":"setChannelVars","httpMethod":"POST","path":"/channels/{channelId}/variables","path_params":["channelId"],"query_params":[],"body_params":["variables"],"whole_body":false,"binary":false},
  {"resource":"channels","method":"snoopChannel","httpMethod":"POST","path":"/channels/{channelId}/snoop","path_params":["channelId"],"query_params":["spy","whisper","app","appArgs","snoopId"],"body_params":[],"whole_body":false,"binary":false},
  {"resource":"channels","method":"snoopChannelWithId","httpMethod":"POST","path":"/channels/{channelId}/snoop/{snoopId}","path_params":["channelId","snoopId"],"query_params":["spy","whisper","app","appArgs"],"body_params":[],"whole_body":false,"binary":false},
  {"resource":"channels","method":"startMoh","httpMethod":"POST","path":"/channels/{channelId}/moh","path_params":["channelId"],"query_params":["mohClass"],"body_params":[],"whole_body":false,"binary":false},
  {"resource":"channels","method":"startSilence","httpMethod":"POST","path":"/channels/{channelId}/silence","path_params":["channelId"],"query_params":[],"body_params":[],"whole_body":false,"binary":false},
  {"resource":"channels","method":"stopMoh","httpMethod":"DELETE","path":"/channels/{channelId}/moh","path_params":["channelId"],"query_params":[],"body_params":[],"whole_body":false,"binary":false},
  {"resource":"channels","method":"stopSilence","httpMethod":"DELETE","path":"/channels/{channelId}/silence","path_params":["channelId"],"query_params":[],"body_params":[],"whole_body":false,"binary":false},
  {"resource":"channels","method":"transfer_progress","httpMethod":"POST","path":"/channels/{channelId}/transfer_progress","path_params":["channelId"],"query_params":["states"],"body_params":[],"whole_body":false,"binary":false},
  {"resource":"channels","method":"unhold","httpMethod":"DELETE","path":"/channels/{channelId}/hold","path_params":["channelId"],"query_params":[],"body_params":[],"whole_body":false,"binary":false},
  {"resource":"channels","method":"unmute","httpMethod":"DELETE","path":"/channels/{channelId}/mute","path_params":["channelId"],"query_params":["direction"],"body_params":[],"whole_body":false,"binary":false},
  {"resource":"deviceStates","method":"delete","httpMethod":"DELETE","path":"/deviceStates/{deviceName}","path_params":["deviceName"],"query_params":[],"body_params":[],"whole_body":false,"binary":false},
  {"resource":"deviceStates","method":"get","httpMethod":"GET","path":"/deviceStates/{deviceName}","path_params":["deviceName"],"query_params":[],"body_params":[],"whole_body":false,"binary":false},
  {"resource":"deviceStates","method":"list","httpMethod":"GET","path":"/deviceStates","path_params":[],"query_params":[],"body_params":[],"whole_body":false,"binary":false},
  {"resource":"deviceStates","method":"update","httpMethod":"PUT","path":"/deviceStates/{deviceName}","path_params":["deviceName"],"query_params":["deviceState"],"body_params":[],"whole_body":false,"binary":false},
  {"resource":"endpoints","method":"get","httpMethod":"GET","path":"/endpoints/{tech}/{resource}","path_params":["tech","resource"],"query_params":[],"body_params":[],"whole_body":false,"binary":false},
  {"resource":"endpoints","method":"list","httpMethod":"GET","path":"/endpoints","path_params":[],"query_params":[],"body_params":[],"whole_body":false,"binary":false},
  {"resource":"endpoints","method":"listByTech","httpMethod":"GET","path":"/endpoints/{tech}","path_params":["tech"],"query_params":[],"body_params":[],"whole_body":false,"binary":false},
  {"resource":"endpoints","method":"refer","httpMethod":"POST","path":"/endpoints/refer","path_params":[],"query_params":["to","from","refer_to","to_self","display_name"],"body_params":["variables"],"whole_body":false,"binary":false},
  {"resource":"endpoints","method":"referToEndpoint","httpMethod":"POST","path":"/endpoints/{tech}/{resource}/refer","path_params":["tech","resource"],"query_params":["from","refer_to","to_self","display_name"],"body_params":["variables"],"whole_body":false,"binary":false},
  {"resource":"endpoints","method":"sendMessage","httpMethod":"PUT","path":"/endpoints/sendMessage","path_params":[],"query_params":["to","from","body"],"body_params":["variables"],"whole_body":false,"binary":false},
  {"resource":"endpoints","method":"sendMessageToEndpoint","httpMethod":"PUT","path":"/endpoints/{tech}/{resource}/sendMessage","path_params":["tech","resource"],"query_params":["from","body"],"body_params":["variables"],"whole_body":false,"binary":false},
  {"resource":"events","method":"claimChannel","httpMethod":"POST","path":"/events/claim","path_params":[],"query_params":["channelId","application"],"body_params":[],"whole_body":false,"binary":false},
  {"resource":"events","method":"userEvent","httpMethod":"POST","path":"/events/user/{eventName}","path_params":["eventName"],"query_params":["application","source"],"body_params":["variables"],"whole_body":false,"binary":false},
  {"resource":"mailboxes","method":"delete","httpMethod":"DELETE","path":"/mailboxes/{mailboxName}","path_params":["mailboxName"],"query_params":[],"body_params":[],"whole_body":false,"binary":false},
  {"resource":"mailboxes","method":"get","httpMethod":"GET","path":"/mailboxes/{mailboxName}","path_params":["mailboxName"],"query_params":[],"body_params":[],"whole_body":false,"binary":false},
  {"resource":"mailboxes","method":"list","httpMethod":"GET","path":"/mailboxes","path_params":[],"query_params":[],"body_params":[],"whole_body":false,"binary":false},
  {"resource":"mailboxes","method":"update","httpMethod":"PUT","path":"/mailboxes/{mailboxName}","path_params":["mailboxName"],"query_params":["oldMessages","newMessages"],"body_params":[],"whole_body":false,"binary":false},
  {"resource":"playbacks","method":"control","httpMethod":"POST","path":"/playbacks/{playbackId}/control","path_params":["playbackId"],"query_params":["operation"],"body_params":[],"whole_body":false,"binary":false},
  {"resource":"playbacks","method":"get","httpMethod":"GET","path":"/playbacks/{playbackId}","path_params":["playbackId"],"query_params":[],"body_params":[],"whole_body":false,"binary":false},
  {"resource":"playbacks","method":"stop","httpMethod":"DELETE","path":"/playbacks/{playbackId}","path_params":["playbackId"],"query_params":[],"body_params":[],"whole_body":false,"binary":false},
  {"resource":"recordings","method":"cancel","httpMethod":"DELETE","path":"/recordings/live/{recordingName}","path_params":["recordingName"],"query_params":[],"body_params":[],"whole_body":false,"binary":false},
  {"resource":"recordings","method":"copyStored","httpMethod":"POST","path":"/recordings/stored/{recordingName}/copy","path_params":["recordingName"],"query_params":["destinationRecordingName"],"body_params":[],"whole_body":false,"binary":false},
  {"resource":"recordings","method":"deleteStored","httpMethod":"DELETE","path":"/recordings/stored/{recordingName}","path_params":["recordingName"],"query_params":[],"body_params":[],"whole_body":false,"binary":false},
  {"resource":"recordings","method":"getLive","httpMethod":"GET","path":"/recordings/live/{recordingName}","path_params":["recordingName"],"query_params":[],"body_params":[],"whole_body":false,"binary":false},
  {"resource":"recordings","method":"getStored","httpMethod":"GET","path":"/recordings/stored/{recordingName}","path_params":["recordingName"],"query_params":[],"body_params":[],"whole_body":false,"binary":false},
  {"resource":"recordings","method":"getStoredFile","httpMethod":"GET","path":"/recordings/stored/{recordingName}/file","path_params":["recordingName"],"query_params":[],"body_params":[],"whole_body":false,"binary":true},
  {"resource":"recordings","method":"listStored","httpMethod":"GET","path":"/recordings/stored","path_params":[],"query_params":[],"body_params":[],"whole_body":false,"binary":false},
  {"resource":"recordings","method":"mute","httpMethod":"POST","path":"/recordings/live/{recordingName}/mute","path_params":["recordingName"],"query_params":[],"body_params":[],"whole_body":false,"binary":false},
  {"resource":"recordings","method":"pause","httpMethod":"POST","path":"/recordings/live/{recordingName}/pause","path_params":["recordingName"],"query_params":[],"body_params":[],"whole_body":false,"binary":false},
  {"resource":"recordings","method":"stop","httpMethod":"POST","path":"/recordings/live/{recordingName}/stop","path_params":["recordingName"],"query_params":[],"body_params":[],"whole_body":false,"binary":false},
  {"resource":"recordings","method":"unmute","httpMethod":"DELETE","path":"/recordings/live/{recordingName}/mute","path_params":["recordingName"],"query_params":[],"body_params":[],"whole_body":false,"binary":false},
  {"resource":"recordings","method":"unmuteWithPost","httpMethod":"POST","path":"/recordings/live/{recordingName}/unmute","path_params":["recordingName"],"query_params":[],"body_params":[],"whole_body":false,"binary":false},
  {"resource":"recordings","method":"unpause","httpMethod":"DELETE","path":"/recordings/live/{recordingName}/pause","path_params":["recordingName"],"query_params":[],"body_params":[],"whole_body":false,"binary":false},
  {"resource":"recordings","method":"unpauseWithPost","httpMethod":"POST","path":"/recordings/live/{recordingName}/unpause","path_params":["recordingName"],"query_params":[],"body_params":[],"whole_body":false,"binary":false},
  {"resource":"sounds","method":"get","httpMethod":"GET","path":"/sounds/{soundId}","path_params":["soundId"],"query_params":[],"body_params":[],"whole_body":false,"binary":false},
  {"resource":"sounds","method":"list","httpMethod":"GET","path":"/sounds","path_params":[],"query_params":["lang","format"],"body_params":[],"whole_body":false,"binary":false},
  {"resource":"system","method":"addLog","httpMethod":"POST","path":"/system/logging/{logChannelName}","path_params":["logChannelName"],"query_params":["configuration"],"body_params":[],"whole_body":false,"binary":false},
  {"resource":"system","method":"deleteConfigObject","httpMethod":"DELETE","path":"/system/{configClass}/{objectType}/{id}","path_params":["configClass","objectType","id"],"query_params":[],"body_params":[],"whole_body":false,"binary":false},
  {"resource":"system","method":"deleteLog","httpMethod":"DELETE","path":"/system/logging/{logChannelName}","path_params":["logChannelName"],"query_params":[],"body_params":[],"whole_body":false,"binary":false},
  {"resource":"system","method":"deleteObject","httpMethod":"DELETE","path":"/system/config/dynamic/{configClass}/{objectType}/{id}","path_params":["configClass","objectType","id"],"query_params":[],"body_params":[],"whole_body":false,"binary":false},
  {"resource":"system","method":"getConfigObject","httpMethod":"GET","path":"/system/{configClass}/{objectType}/{id}","path_params":["configClass","objectType","id"],"query_params":[],"body_params":[],"whole_body":false,"binary":false},
  {"resource":"system","method":"getGlobalVar","httpMethod":"GET","path":"/system/variable","path_params":[],"query_params":["variable"],"body_params":[],"whole_body":false,"binary":false},
  {"resource":"system","method":"getInfo","httpMethod":"GET","path":"/system/info","path_params":[],"query_params":["only"],"body_params":[],"whole_body":false,"binary":false},
  {"resource":"system","method":"getModule","httpMethod":"GET","path":"/system/modules/{moduleName}","path_params":["moduleName"],"query_params":[],"body_params":[],"whole_body":false,"binary":false},
  {"resource":"system","method":"getObject","httpMethod":"GET","path":"/system/config/dynamic/{configClass}/{objectType}/{id}","path_params":["configClass","objectType","id"],"query_params":[],"body_params":[],"whole_body":false,"binary":false},
  {"resource":"system","method":"listLogChannels","httpMethod":"GET","path":"/system/logging","path_params":[],"query_params":[],"body_params":[],"whole_body":false,"binary":false},
  {"resource":"system","method":"listModules","httpMethod":"GET","path":"/system/modules","path_params":[],"query_params":[],"body_params":[],"whole_body":false,"binary":false},
  {"resource":"system","method":"loadModule","httpMethod":"POST","path":"/system/modules/{moduleName}","path_params":["moduleName"],"query_params":[],"body_params":[],"whole_body":false,"binary":false},
  {"resource":"system","method":"ping","httpMethod":"GET","path":"/system/ping","path_params":[],"query_params":[],"body_params":[],"whole_body":false,"binary":false},
  {"resource":"system","method":"reloadModule","httpMethod":"PUT","path":"/system/modules/{moduleName}","path_params":["moduleName"],"query_params":[],"body_params":[],"whole_body":false,"binary":false},
  {"resource":"system","method":"rotateLog","httpMethod":"PUT","path":"/system/logging/{logChannelName}/rotate","path_params":["logChannelName"],"query_params":[],"body_params":[],"whole_body":false,"binary":false},
  {"resource":"system","method":"setGlobalVar","httpMethod":"POST","path":"/system/variable","path_params":[],"query_params":["variable","value"],"body_params":[],"whole_body":false,"binary":false},
  {"resource":"system","method":"unloadModule","httpMethod":"DELETE","path":"/system/modules/{moduleName}","path_params":["moduleName"],"query_params":[],"body_params":[],"whole_body":false,"binary":false},
  {"resource":"system","method":"updateConfigObject","httpMethod":"PUT","path":"/system/{configClass}/{objectType}/{id}","path_params":["configClass","objectType","id"],"query_params":[],"body_params":["fields"],"whole_body":false,"binary":false},
  {"resource":"system","method":"updateObject","httpMethod":"PUT","path":"/system/config/dynamic/{configClass}/{objectType}/{id}","path_params":["configClass","objectType","id"],"query_params":[],"body_params":["fields"],"whole_body":false,"binary":false},
] as const;
