/**
 * The media engine's control surface as the object model and the channel drivers see it.
 * packages/media implements it (structurally: media imports nothing of ours); packages/server
 * hands the concrete engine to core and to the SIP driver.
 *
 * Every call is a request to a worker and resolves once the worker has acted on it. Notifications
 * arrive through `onNotification` and are never delivered before the reply of the request that
 * caused them.
 */

/** Audio codecs the engine knows by their SDP encoding name (RFC 3551 names). */
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

export interface LegRemote {
  /** Where to send RTP; with symmetric RTP the engine follows the source of received packets instead. */
  address: string;
  port: number;
  codec: CodecBinding;
  /** RFC 4733 telephone-event payload type, when negotiated. */
  telephoneEventPayloadType?: number;
  /** `sendrecv` unless the peer put the call on hold. */
  direction?: 'sendrecv' | 'sendonly' | 'recvonly' | 'inactive';
}

export interface PlayFileRequest {
  playbackId: string;
  /** Absolute path of a WAV file (8 kHz, 16-bit mono linear; other rates are resampled when supported). */
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

export interface MediaEngine {
  createLeg(request: CreateLegRequest): Promise<MediaLegInfo>;
  /** Sets or changes where the leg sends and what codec it uses (after SDP offer/answer). */
  setLegRemote(legId: string, remote: LegRemote): Promise<void>;
  destroyLeg(legId: string): Promise<void>;
  /** Plays one file on a leg; a second play on the same leg replaces the first (queueing is core's job). */
  playFile(legId: string, request: PlayFileRequest): Promise<void>;
  stopPlayback(legId: string, playbackId: string): Promise<void>;
  getCounters(legId: string): Promise<RtpCounters>;
  onNotification(listener: (notification: MediaNotification) => void): () => void;
}
