/**
 * The media engine's control surface as the object model and the channel drivers see it. Declared
 * once, in the types-only package @switchboard/media-control, which packages/media implements;
 * core re-exports it here so that its users import the seam from core (DESIGN.md: core defines the
 * interfaces the others implement). A re-export of types only: nothing of it exists at run time.
 */
export type {
  AudioCodecName,
  BridgeVideoRequest,
  ChannelFormat,
  CodecBinding,
  CreateBridgeRequest,
  CreateLegRequest,
  CreateSnoopRequest,
  JoinBridgeOptions,
  LegRemote,
  MediaEngine,
  MediaLegInfo,
  MediaNotification,
  MediaTarget,
  MediaVideoMode,
  PlayFileRequest,
  PlayToneRequest,
  PlaybackEndReason,
  RecordingEndReason,
  RecordingFormat,
  RtpCounters,
  RtpStatistics,
  SnoopDirection,
  StartRecordingRequest,
  TalkDetectionOptions,
  ToneSegment,
  VideoCodecBinding,
  VideoCodecName,
  VideoRemote,
  WorkerTickStats,
} from '@switchboard/media-control';
