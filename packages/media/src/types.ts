/**
 * The media engine's control surface, declared here so that packages/media depends on no package
 * of ours. These types mirror the interface in packages/core (`media/media-engine.ts`) field for
 * field: the server assigns a `MediaEngine` from this package to core's interface, and the
 * compiler checks the two structurally at that point.
 */

/** Audio codecs the engine knows by their SDP encoding name (RFC 3551 §4.5.14 names). */
export type AudioCodecName = 'PCMU' | 'PCMA';

export interface CodecBinding {
  name: AudioCodecName;
  payloadType: number;
  clockRate: number;
}

export interface CreateLegRequest {
  /** Local address to bind the RTP socket to (e.g. `0.0.0.0` or `127.0.0.1`). */
  bindAddress: string;
}

export interface MediaLegInfo {
  legId: string;
  /** The bound address; `0.0.0.0` when bound to every interface. */
  localAddress: string;
  /** Even RTP port from the configured range; RTCP is port + 1. */
  localPort: number;
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
}

export interface PlayFileRequest {
  playbackId: string;
  /** Absolute path of a WAV file (16-bit PCM mono at 8000 Hz; 16000 and 48000 Hz are decimated). */
  file: string;
  /** Start this many milliseconds into the file. */
  offsetMs?: number;
}

export type PlaybackEndReason = 'complete' | 'stopped' | 'failed';

export type MediaNotification =
  | { type: 'playbackStarted'; legId: string; playbackId: string }
  | { type: 'playbackFinished'; legId: string; playbackId: string; reason: PlaybackEndReason; error?: string }
  | { type: 'dtmfReceived'; legId: string; digit: string; durationMs: number }
  | { type: 'legFailed'; legId: string; error: string }
  | { type: 'workerDied'; workerIndex: number; legIds: string[]; error: string };

export interface RtpCounters {
  packetsSent: number;
  packetsReceived: number;
  bytesSent: number;
  bytesReceived: number;
}

/**
 * What `getCounters` returns: core's `RtpCounters` plus the datagrams this leg discarded
 * (malformed, unexpected payload type, or arriving before the remote is known).
 * Bytes count whole RTP packets (header and payload), in both directions.
 */
export interface LegCounters extends RtpCounters {
  packetsDropped: number;
}

export type MediaNotificationListener = (notification: MediaNotification) => void;
