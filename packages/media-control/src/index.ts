/**
 * @switchboard/media-control: the media engine's control surface, declared once. Types only: the
 * compiled module is empty, so importing it costs nothing at run time and it depends on nothing.
 *
 * core defines the seam (DESIGN.md) by re-exporting these as its media types
 * (`packages/core/src/media/media-engine.ts`); packages/media implements `MediaEngine` from them
 * (`class MediaEngine implements MediaEngineControl`), so the compiler checks the engine against
 * the one declaration. Neither core nor media imports the other: both point at this leaf.
 *
 * Every call is a request to a worker and resolves once the worker has acted on it. Notifications
 * arrive through `onNotification` and are never delivered before the reply of the request that
 * caused them.
 */

/** Audio codecs the engine knows by their SDP encoding name (RFC 3551 §4.5.14 names). */
export type AudioCodecName = 'PCMU' | 'PCMA' | 'G722' | 'opus' | 'L16';

export interface CodecBinding {
  name: AudioCodecName;
  payloadType: number;
  clockRate: number;
}

/**
 * Video codecs the engine forwards by their SDP encoding name (RFC 6184 H264, RFC 7741 VP8,
 * RFC 9628 VP9, RFC 2190 H263, RFC 4629 H263-1998). Video is never decoded or transcoded: the
 * names only decide which legs can receive each other's packets.
 */
export type VideoCodecName = 'H264' | 'VP8' | 'VP9' | 'H263' | 'H263-1998';

export interface VideoCodecBinding {
  name: VideoCodecName;
  payloadType: number;
  /** 90000 for every video codec (RFC 3551 §5). */
  clockRate: number;
}

export interface CreateLegRequest {
  /** Local address to bind the RTP socket to (e.g. `0.0.0.0` or `127.0.0.1`). */
  bindAddress: string;
  /**
   * Also bind a video RTP/RTCP socket pair (from the same port range). One video stream per leg
   * at most: a second m=video line in SDP is refused with port 0.
   */
  video?: boolean;
  /**
   * Where the leg sends and with which codec, when that is already known (an INVITE's SDP offer):
   * the leg is created with its remote set, as `setLegRemote` would set it, in one request to the
   * media worker instead of two. The remote's `video` applies only to a leg created with `video`.
   */
  remote?: LegRemote;
  /**
   * The leg of the other party of the call (Dial()'s caller, originate's `originator`). The new leg is
   * placed on that leg's media worker, so relaying between the two stays on one thread instead of
   * crossing workers through a bridge link. Ignored when that leg is gone or its worker is not running.
   */
  near?: string;
  /**
   * The leg's id, chosen by the caller (unique; a random UUID otherwise). The id is then usable before
   * `createLeg` resolves: commands given for the leg meanwhile wait until its socket is bound and then
   * go in the order given; they fail with `leg_not_found` if it cannot be bound.
   */
  legId?: string;
}

export interface MediaLegInfo {
  legId: string;
  /** The bound address; `0.0.0.0` when bound to every interface. */
  localAddress: string;
  /** Even RTP port from the configured range; RTCP is port + 1. */
  localPort: number;
  /** The video RTP port (RTCP on the next one), when `video` was asked for. */
  videoPort?: number;
}

export type MediaDirection = 'sendrecv' | 'sendonly' | 'recvonly' | 'inactive';

export interface LegRemote {
  /** Where to send RTP; with symmetric RTP the engine follows the source of received packets instead. */
  address: string;
  port: number;
  codec: CodecBinding;
  /** RFC 4733 telephone-event payload type, when negotiated. */
  telephoneEventPayloadType?: number;
  /** The peer's direction attribute: `sendrecv` unless the peer put the call on hold. */
  direction?: MediaDirection;
  /** The negotiated video stream; absent (or the leg has no video socket) means no video. */
  video?: VideoRemote;
  /** SRTP keys of the audio stream (RFC 3711); absent means plain RTP. */
  srtp?: LegSrtp;
  /**
   * Our ICE credentials (the a=ice-ufrag and a=ice-pwd we sent): the leg answers connectivity checks
   * as an ICE-lite agent (RFC 8445) and sends media only to the address the peer nominated, while its
   * checks keep consent fresh (RFC 7675). Absent: no ICE.
   */
  ice?: LegIce;
  /**
   * DTLS-SRTP (RFC 5764): the leg runs the DTLS handshake on its RTP socket and keys SRTP from it;
   * nothing is sent before the keys exist. `srtp` is then not given.
   */
  dtls?: LegDtls;
  /** RTCP multiplexed on the RTP port (RFC 5761), as WebRTC peers send it; absent: RTCP on port + 1. */
  rtcpMux?: boolean;
}

/** SRTP crypto suites by their SDP names (RFC 4568 §6.2, RFC 7714 §14.2). */
export type SrtpSuiteName = 'AES_CM_128_HMAC_SHA1_80' | 'AES_CM_128_HMAC_SHA1_32' | 'AEAD_AES_128_GCM' | 'AEAD_AES_256_GCM';

/** DTLS-SRTP of a leg: our role (a=setup `active` is the client), the peer's a=fingerprint, our certificate. */
export interface LegDtls {
  role: 'client' | 'server';
  /** `sha-256 AB:CD:…` as the peer's SDP announced it (RFC 8122). */
  remoteFingerprint: string;
  /** Our certificate and private key, PEM. */
  certificate: string;
  privateKey: string;
}

/** A leg's own ICE credentials (RFC 8445 §5.3: ufrag ≥ 4 and password ≥ 22 characters). */
export interface LegIce {
  ufrag: string;
  password: string;
}

/** One SRTP session of a leg: master key || master salt of each side, base64 as in SDP's `inline:`. */
export interface LegSrtp {
  suite: SrtpSuiteName;
  /** Protects what the leg sends (the key we advertised). */
  localMasterKey: string;
  /** Unprotects what the leg receives (the key the peer advertised). */
  remoteMasterKey: string;
}

/** Where and how a leg's video goes; packets are forwarded, never decoded. */
export interface VideoRemote {
  address: string;
  port: number;
  codec: VideoCodecBinding;
  direction?: MediaDirection;
  /**
   * BUNDLEd with the leg's audio (RFC 8843, as WebRTC peers send it): video shares the audio's
   * socket, ICE pair, DTLS-derived SRTP keys and multiplexed RTCP, and is told apart from audio by
   * payload type. `address`/`port` are then only a fallback; the audio's target is used.
   */
  bundled?: boolean;
}

/**
 * How a bridge forwards video: `none` (holding bridges), `sfu` (everyone's video to everyone
 * else), `single` (only `sourceLegId`'s video, to everyone else), `talker` (the source follows the
 * loudest participant).
 */
export type MediaVideoMode = 'none' | 'talker' | 'single' | 'sfu';

export interface BridgeVideoRequest {
  mode: MediaVideoMode;
  /** The forced source of `single` mode (a member leg); ignored in other modes. */
  sourceLegId?: string;
}

export interface PlayFileRequest {
  playbackId: string;
  /** Absolute path of a WAV file (16-bit PCM mono at 8000 Hz; 16000 and 48000 Hz are decimated). */
  file: string;
  /** Start this many milliseconds into the file. */
  offsetMs?: number;
  /** Start again from the beginning at the end, until stopped (music on hold). */
  loop?: boolean;
  /** Bridge playback only: the announcer's format (absent: linear PCM at the bridge's mixing rate). */
  announcerFormat?: ChannelFormat;
}

/**
 * One step of a tone (indications.conf syntax `f1+f2/ms`, `f1*f2/ms` for modulation, `!` for
 * play-once). No frequencies means silence for `durationMs`; `durationMs` 0 means "forever".
 */
export interface ToneSegment {
  frequencies: number[];
  /** `f1*f2`: amplitude modulation instead of a sum. */
  modulated?: boolean;
  durationMs: number;
  /** `!` in the pattern: this step is not repeated when the pattern loops. */
  once?: boolean;
}

/**
 * The format of a helper channel between a bridge and its media (ARI `announcer_format`,
 * `recorder_format`): the rate audio crosses at (`slin`/`slin8`, `ulaw`, `alaw` 8 kHz; `slin16`,
 * `g722` 16 kHz; `slin48` 48 kHz) and the codec's quantisation, if any.
 */
export type ChannelFormat = 'slin' | 'slin8' | 'slin16' | 'slin48' | 'ulaw' | 'alaw' | 'g722';

export interface PlayToneRequest {
  playbackId: string;
  segments: ToneSegment[];
  /** Loop the pattern until stopped (ringback, busy). */
  repeat: boolean;
  /** Bridge playback only: the announcer's format (absent: linear PCM at the bridge's mixing rate). */
  announcerFormat?: ChannelFormat;
}

/** Where media goes: one leg, or every participant of a media bridge. */
export type MediaTarget = { kind: 'leg'; legId: string } | { kind: 'bridge'; bridgeId: string };

export type BridgeKind = 'mixing' | 'holding';

export interface CreateBridgeRequest {
  bridgeId: string;
  /**
   * `mixing`: every participant hears everyone but itself (two legs with one codec are relayed
   * packet by packet without decoding). `holding`: participants hear only the announcer and
   * bridge media, never each other.
   */
  kind: BridgeKind;
}

export interface JoinBridgeOptions {
  role?: 'participant' | 'announcer';
  /** The leg's audio is not sent into the bridge. */
  mute?: boolean;
  /** DTMF from the leg is not passed to the other participants. */
  absorbDtmf?: boolean;
  /** Gain factor applied to what the leg hears from the bridge (1: unchanged; conference listening volume). */
  listenGain?: number;
}

/** A leg's gain factors per direction (setLegGain). */
export interface LegGain {
  inbound: number;
  outbound: number;
}

export type RecordingFormat = 'wav' | 'ulaw' | 'alaw' | 'g722' | 'sln' | 'ogg' | 'mp3';

export interface StartRecordingRequest {
  recordingId: string;
  /** Absolute path, already checked to be inside the recording directory. */
  file: string;
  format: RecordingFormat;
  /** Add to an existing file instead of replacing it. */
  append?: boolean;
  /** 0 or absent: no limit. */
  maxDurationMs?: number;
  /** Stop after this much continuous silence; also enables talking/silence accounting. */
  maxSilenceMs?: number;
  /** Play a beep to the target before recording starts. */
  beep?: boolean;
  /** DTMF digits that end the recording (`any` for every digit). */
  terminateOn?: string;
  /**
   * Bridge recordings: the recorder's format, which fixes the rate and quantisation the mix is
   * captured at before it is encoded to `format` (absent: the file format's own).
   */
  recorderFormat?: ChannelFormat;
}

export type RecordingEndReason = 'stopped' | 'canceled' | 'max-duration' | 'max-silence' | 'dtmf' | 'target-gone' | 'failed';

export type SnoopDirection = 'none' | 'in' | 'out' | 'both';

export interface CreateSnoopRequest {
  /** The leg being snooped on. */
  sourceLegId: string;
  /** Which of the source's audio the snoop leg hears: `in` = what the source receives from its phone. */
  spy: SnoopDirection;
  /** Which way audio written to the snoop leg is injected into the source. */
  whisper: SnoopDirection;
  /**
   * Gain factors applied to what the snoop leg hears, per direction (absent: 1); the result
   * saturates at the 16-bit limits. Call recording uses it for its volume options.
   */
  spyGain?: { in: number; out: number };
}

export interface TalkDetectionOptions {
  /** Average energy above which a frame counts as talking (16-bit linear RMS). */
  energyThreshold: number;
  /** Talking must last this long before TalkingStarted. */
  talkMs: number;
  /** Silence must last this long before TalkingFinished. */
  silenceMs: number;
}

/** TONE_DETECT: report when `frequencyHz` has been heard for `durationMs`. */
export interface ToneDetectionOptions {
  frequencyHz: number;
  durationMs: number;
}

/** RTP/RTCP statistics of a leg, with the reference's RTPstat field names. */
export interface RtpStatistics {
  txcount: number;
  rxcount: number;
  txjitter?: number;
  rxjitter?: number;
  remote_maxjitter?: number;
  remote_minjitter?: number;
  remote_normdevjitter?: number;
  remote_stdevjitter?: number;
  local_maxjitter?: number;
  local_minjitter?: number;
  local_normdevjitter?: number;
  local_stdevjitter?: number;
  txploss: number;
  rxploss: number;
  remote_maxrxploss?: number;
  remote_minrxploss?: number;
  remote_normdevrxploss?: number;
  remote_stdevrxploss?: number;
  local_maxrxploss?: number;
  local_minrxploss?: number;
  local_normdevrxploss?: number;
  local_stdevrxploss?: number;
  rtt?: number;
  maxrtt?: number;
  minrtt?: number;
  normdevrtt?: number;
  stdevrtt?: number;
  local_ssrc: number;
  remote_ssrc: number;
  txoctetcount: number;
  rxoctetcount: number;
  channel_uniqueid: string;
}

/** What `getRtpStatistics` returns: the channel's unique id is core's to add. */
export type LegRtpStatistics = Omit<RtpStatistics, 'channel_uniqueid'>;

export type PlaybackEndReason = 'complete' | 'stopped' | 'failed';

export type MediaNotification =
  | { type: 'playbackStarted'; legId: string; playbackId: string }
  /** For a bridge playback, `legId` is empty and `bridgeId` is set. */
  | { type: 'playbackFinished'; legId: string; bridgeId?: string; playbackId: string; reason: PlaybackEndReason; error?: string }
  | { type: 'dtmfReceived'; legId: string; digit: string; durationMs: number }
  | { type: 'talkingStarted'; legId: string }
  | { type: 'talkingFinished'; legId: string; durationMs: number }
  | { type: 'toneDetected'; legId: string; frequencyHz: number }
  | { type: 'recordingStarted'; recordingId: string }
  | {
      type: 'recordingFinished';
      recordingId: string;
      reason: RecordingEndReason;
      /** Length of the audio written (paused time is not counted). */
      durationMs: number;
      /** Present when `maxSilenceMs` was given. */
      talkingMs?: number;
      silenceMs?: number;
      error?: string;
    }
  /**
   * Something on a leg failed. `fatal`: the leg can carry no audio any more (its socket failed, or its
   * DTLS-SRTP handshake did, so it has no keys); without it one operation failed (a playback).
   */
  | { type: 'legFailed'; legId: string; error: string; fatal?: boolean }
  /**
   * The leg's RTP timeout (`setLegRtpTimeout`) ran out: nothing was received for `seconds` (whole
   * seconds since the last packet, or since the timeout was armed). Raised once; the timeout is
   * then disarmed.
   */
  | { type: 'legRtpTimeout'; legId: string; seconds: number }
  /** Legs and media bridges that lived on the dead worker are gone; the worker itself is restarted. */
  | { type: 'workerDied'; workerIndex: number; legIds: string[]; bridgeIds: string[]; error: string };

export interface RtpCounters {
  packetsSent: number;
  packetsReceived: number;
  bytesSent: number;
  bytesReceived: number;
}

/**
 * What the engine's `getCounters` returns: `RtpCounters` plus the datagrams this leg discarded
 * (malformed, unexpected payload type, or arriving before the remote is known).
 * Bytes count whole RTP packets (header and payload), in both directions.
 */
export interface LegCounters extends RtpCounters {
  packetsDropped: number;
}

/** One media worker's tick timing since its statistics were last reset (`getWorkerStats`). */
export interface WorkerTickStats {
  workerIndex: number;
  /** How long the window covers. */
  windowMs: number;
  /** 20 ms frames the worker's tick produced in the window (0 while it had nothing to do). */
  ticks: number;
  /** Time one frame's work took (capture, mixing, rendering of every leg and bridge). */
  tickMsP50: number;
  tickMsP99: number;
  tickMsMax: number;
  /** Frames that took longer than `budgetMs` or started more than `lateThresholdMs` after they were due. */
  overruns: number;
  longTicks: number;
  lateTicks: number;
  /** Frames never produced: after a stall only a few overdue frames are caught up. */
  skippedFrames: number;
  budgetMs: number;
  lateThresholdMs: number;
  /** The worker's own JavaScript heap (a worker thread has an isolate of its own), bytes in use now. */
  heapUsedBytes: number;
  /** The heap's size: what the isolate holds from the system, used or not. */
  heapTotalBytes: number;
}

export type MediaNotificationListener = (notification: MediaNotification) => void;

export interface MediaEngine {
  createLeg(request: CreateLegRequest): Promise<MediaLegInfo>;
  /** Sets or changes where the leg sends and what codec it uses (after SDP offer/answer). */
  setLegRemote(legId: string, remote: LegRemote): Promise<void>;
  destroyLeg(legId: string): Promise<void>;
  /** Plays one file on a leg; a second play on the same leg replaces the first (queueing is core's job). */
  playFile(legId: string, request: PlayFileRequest): Promise<void>;
  stopPlayback(legId: string, playbackId: string): Promise<void>;
  getCounters(legId: string): Promise<RtpCounters>;
  onNotification(listener: MediaNotificationListener): () => void;

  /** Plays a tone pattern on a leg or bridge; finishes like a file playback (only when stopped if it repeats). */
  playTone(target: MediaTarget, request: PlayToneRequest): Promise<void>;
  /** Plays a file to every participant of a bridge, queued by core. */
  playFileOnBridge(bridgeId: string, request: PlayFileRequest): Promise<void>;
  stopBridgePlayback(bridgeId: string, playbackId: string): Promise<void>;

  createBridge(request: CreateBridgeRequest): Promise<void>;
  /** Removes every leg from the bridge (they stay alive) and frees it. */
  destroyBridge(bridgeId: string): Promise<void>;
  /** Legs may live on different workers; they must still hear each other. */
  joinBridge(bridgeId: string, legId: string, options?: JoinBridgeOptions): Promise<void>;
  leaveBridge(bridgeId: string, legId: string): Promise<void>;
  setBridgeParticipant(bridgeId: string, legId: string, options: JoinBridgeOptions): Promise<void>;
  /** How the bridge forwards its members' video (mixing bridges start in `talker`, holding ones in `none`). */
  setBridgeVideo(bridgeId: string, request: BridgeVideoRequest): Promise<void>;

  startRecording(target: MediaTarget, request: StartRecordingRequest): Promise<void>;
  /** Ends a recording; `discard` deletes the file (cancel). */
  stopRecording(recordingId: string, options: { discard: boolean }): Promise<void>;
  /** A paused recording writes nothing; a muted one writes silence. */
  setRecordingState(recordingId: string, state: { paused?: boolean; muted?: boolean }): Promise<void>;

  /** Sends RFC 4733 events (in-band tones when none was negotiated); resolves when the last one ends. */
  sendDtmf(legId: string, request: { digits: string; durationMs: number; betweenMs: number }): Promise<void>;
  /** `inbound`: drop what the phone sends; `outbound`: send silence to the phone. */
  setLegMute(legId: string, mute: { inbound: boolean; outbound: boolean }): Promise<void>;
  /**
   * Gain factors of a leg's own audio (1: unchanged; 0 to 16; saturating at the 16-bit limits):
   * `inbound` scales what the phone sends before anything hears it, `outbound` what is sent to the
   * phone (the dialplan's VOLUME(RX) and VOLUME(TX)). A leg with a gain is never relayed undecoded.
   */
  setLegGain(legId: string, gain: LegGain): Promise<void>;
  setTalkDetection(legId: string, options: TalkDetectionOptions | null): Promise<void>;
  /** TONE_DETECT: `toneDetected` when the tone has lasted the duration; null stops it. */
  setToneDetection(legId: string, options: ToneDetectionOptions | null): Promise<void>;
  /** Detect DTMF in the audio (Goertzel) as well as RFC 4733 events. */
  setInbandDtmfDetection(legId: string, enabled: boolean): Promise<void>;
  /**
   * Arms the leg's RTP timeout (pjsip.conf `rtp_timeout`/`rtp_timeout_hold`), or disarms it with 0:
   * `legRtpTimeout` is raised once nothing (RTP of any payload the leg accepts, its video, or RTCP)
   * has been received for `seconds`. Each call starts the count again; a leg whose remote is not
   * known yet starts counting when it is. Whole seconds, 0 to 31536000.
   */
  setLegRtpTimeout(legId: string, seconds: number): Promise<void>;

  /** A leg without a socket that hears (spy) and/or speaks into (whisper) another leg. */
  createSnoopLeg(request: CreateSnoopRequest): Promise<{ legId: string }>;

  getRtpStatistics(legId: string): Promise<LegRtpStatistics>;

  /** Each worker's media tick statistics since the last reset (`reset` starts a new window). */
  getWorkerStats(options?: { reset?: boolean }): Promise<WorkerTickStats[]>;
}
