/**
 * @switchboard/media: the media engine (worker threads owning RTP sockets) and the pieces it is
 * built from that benchmarks and tests use directly (G.711, RTP headers, RFC 4733 events, WAV).
 */
export { MediaEngine, type MediaEngineOptions } from './media-engine.js';
export type {
  AudioCodecName,
  BridgeKind,
  BridgeVideoRequest,
  ChannelFormat,
  CodecBinding,
  CreateBridgeRequest,
  CreateLegRequest,
  CreateSnoopRequest,
  JoinBridgeOptions,
  LegCounters,
  LegRemote,
  LegRtpStatistics,
  LegDtls,
  LegIce,
  LegSrtp,
  MediaDirection,
  MediaLegInfo,
  MediaNotification,
  MediaNotificationListener,
  MediaTarget,
  PlayFileRequest,
  PlayToneRequest,
  PlaybackEndReason,
  RecordingEndReason,
  RecordingFormat,
  RtpCounters,
  RtpStatistics,
  SnoopDirection,
  SrtpSuiteName,
  StartRecordingRequest,
  TalkDetectionOptions,
  ToneDetectionOptions,
  ToneSegment,
  MediaVideoMode,
  VideoCodecBinding,
  VideoCodecName,
  VideoRemote,
  WorkerTickStats,
} from '@switchboard/media-control';
/** DTLS certificates and their a=fingerprint (RFC 8122), for the SDP of DTLS-SRTP calls. */
export { certificateFingerprint, type DtlsCertificate, generateDtlsCertificate } from './dtls/dtls-srtp.js';
/** SRTP (RFC 3711, RFC 7714) as the workers run it; exported for benchmarks and tests. */
export { SrtpSession, type SrtpKeying } from './srtp/index.js';
/** Which recording formats this machine can write (core answers 422 for the others). */
export { supportedRecordingFormats } from './recording/formats.js';
export { mixAll, mixMinusOne } from './bridge/mixer.js';
export type { MediaLogger } from './logger.js';
export {
  EngineNotRunningError,
  InvalidArgumentError,
  LegNotFoundError,
  MediaError,
  type MediaErrorCode,
  PortsExhaustedError,
  WorkerClosedError,
  WorkerDiedError,
} from './errors.js';
export {
  ALAW_SILENCE,
  ULAW_SILENCE,
  alawToLinear,
  decodeAlaw,
  decodeUlaw,
  encodeAlaw,
  encodeUlaw,
  linearToAlaw,
  linearToUlaw,
  ulawToLinear,
} from './codecs/g711.js';
export {
  RTP_HEADER_SIZE,
  RTP_VERSION,
  type RtpHeaderFields,
  type RtpPacketInfo,
  type RtpParseFailure,
  type RtpParseResult,
  parseRtpPacket,
  writeRtpHeader,
} from './rtp/rtp-header.js';
export {
  TELEPHONE_EVENT_SIZE,
  type TelephoneEvent,
  dtmfDigitForEvent,
  parseTelephoneEvent,
  writeTelephoneEvent,
} from './rtp/telephone-event.js';
export { WavFormatError, type WavInfo, parseWav } from './audio/wav.js';
export { G722Decoder, G722Encoder } from './codecs/g722.js';
export { FRAME_MS, Pacer, frameDueAt, framesDueBy } from './playback/pacer.js';
export { literalAddressLookup } from './rtp/literal-lookup.js';
export { Ipv4Names } from './rtp/ipv4-names.js';
export { MediaStreamGateway } from './streams/stream-gateway.js';
export type {
  OpenedStream,
  OpenStreamRequest,
  StreamConnection,
  StreamFormat,
  StreamFrame,
  StreamNotification,
} from './streams/stream-types.js';
export { AUDIOSOCKET_KIND, AudioSocketReader, encodeAudioSocket } from './streams/audiosocket-framing.js';
/** switchboard.conf `highpriority`: the server's threads at realtime priority (or nice -10). */
export { type PriorityOutcome, raiseThreadPriority, REALTIME_PRIORITY } from './native/thread-priority.js';
