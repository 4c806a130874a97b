/**
 * External media for voice bots (externalMedia with transport=websocket or encapsulation=audiosocket):
 * a stream joins an RTP leg of the media engine to the application's audio connection. The gateway
 * that runs streams lives outside core (packages/media implements it structurally; the server
 * hands it in); without one, those transports answer 501.
 */

/** Audio on the application's connection: µ-law 8 kHz, or 16-bit little-endian linear PCM at 8 or 16 kHz. */
export type MediaStreamFormat = 'ulaw' | 'slin' | 'slin16';

export type MediaStreamConnection =
  | { kind: 'websocket-client'; url: string; headers?: Readonly<Record<string, string>> }
  | { kind: 'websocket-server' }
  | { kind: 'audiosocket'; host: string; port: number; uuid: string };

/** The text control messages of a WebSocket stream: the reference's single lines, or JSON objects. */
export type MediaStreamControlFormat = 'plain-text' | 'json';

/** Media direction from the application's point of view: `in` only to it, `out` only from it. */
export type MediaStreamDirection = 'both' | 'in' | 'out';

export interface OpenMediaStreamRequest {
  streamId: string;
  channelName: string;
  /** Named in MEDIA_START and in every JSON event (`channel_id`). */
  channelId: string;
  format: MediaStreamFormat;
  controlFormat: MediaStreamControlFormat;
  direction: MediaStreamDirection;
  /** Shown in a JSON MEDIA_START (`channel_variables`). */
  channelVariables: Readonly<Record<string, string>>;
  connection: MediaStreamConnection;
  /** Where the engine's leg receives RTP. */
  leg: { address: string; port: number };
  connectTimeoutMs?: number;
}

export interface OpenedMediaStream {
  rtpAddress: string;
  rtpPort: number;
  codec: { name: 'PCMU' | 'L16'; payloadType: number; clockRate: number };
  /** The RFC 4733 payload type the stream reads DTMF from (WebSocket streams: DTMF_END). */
  telephoneEventPayloadType?: number;
}

/** A frame on the socket of a stream the application connected to us (`websocket-server`). */
export type MediaStreamFrame = { binary: true; data: Uint8Array } | { binary: false; text: string };

export type MediaStreamNotification =
  | { type: 'streamClosed'; streamId: string; reason: string }
  | { type: 'streamHangup'; streamId: string }
  | { type: 'streamOutput'; streamId: string; frame: MediaStreamFrame }
  | { type: 'streamDtmf'; streamId: string; digit: string };

export interface MediaStreamGateway {
  open(request: OpenMediaStreamRequest): Promise<OpenedMediaStream>;
  attached(streamId: string): void;
  input(streamId: string, frame: MediaStreamFrame): void;
  close(streamId: string): void;
  onNotification(listener: (notification: MediaStreamNotification) => void): () => void;
}
