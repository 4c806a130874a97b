/**
 * The media-stream gateway's control surface (external media for voice bots): a stream joins an
 * RTP leg of the media engine to an application's audio connection — a WebSocket carrying the
 * reference's WebSocket media channel protocol, or a TCP connection speaking AudioSocket.
 * core declares the same shapes (core/src/media/media-stream-gateway.ts); this package imports
 * nothing of ours.
 */

/** Audio as it crosses the application's connection: µ-law 8 kHz, or 16-bit little-endian linear PCM at 8 or 16 kHz. */
export type StreamFormat = 'ulaw' | 'slin' | 'slin16';

export type StreamConnection =
  /** We connect to the application's WebSocket server (ws:// or wss://). */
  | { kind: 'websocket-client'; url: string; headers?: Readonly<Record<string, string>> }
  /** The application connects to us; frames are relayed by whoever accepted the socket (`input`, `streamOutput`). */
  | { kind: 'websocket-server' }
  /** We connect to the application's AudioSocket server over TCP. */
  | { kind: 'audiosocket'; host: string; port: number; uuid: string };

/** The text control messages of a WebSocket stream: the reference's single lines, or JSON objects. */
export type ControlFormat = 'plain-text' | 'json';

/** Media direction from the application's point of view: `in` only to it, `out` only from it. */
export type MediaDirection = 'both' | 'in' | 'out';

export interface OpenStreamRequest {
  streamId: string;
  /** Named in MEDIA_START (`channel:`). */
  channelName: string;
  /** Named in MEDIA_START and every JSON event (`channel_id`). */
  channelId: string;
  format: StreamFormat;
  /** Absent: plain-text. */
  controlFormat?: ControlFormat;
  /** Absent: both. */
  direction?: MediaDirection;
  /** Shown in a JSON MEDIA_START (`channel_variables`). */
  channelVariables?: Readonly<Record<string, string>>;
  connection: StreamConnection;
  /** Where the engine's leg receives RTP. */
  leg: { address: string; port: number };
  /** Milliseconds to wait for a client connection. */
  connectTimeoutMs?: number;
}

/** Where the engine's leg must send its RTP (setLegRemote), and how it is encoded. */
export interface OpenedStream {
  rtpAddress: string;
  rtpPort: number;
  codec: { name: 'PCMU' | 'L16'; payloadType: number; clockRate: number };
  /** The RFC 4733 payload type the stream reads DTMF from (WebSocket streams: DTMF_END). */
  telephoneEventPayloadType?: number;
}

/** A frame for the accepted socket of a `websocket-server` stream. */
export type StreamFrame = { binary: true; data: Uint8Array } | { binary: false; text: string };

export type StreamNotification =
  /** The connection ended (closed by the application, failed, or a protocol error); the channel should hang up. */
  | { type: 'streamClosed'; streamId: string; reason: string }
  /** The application asked to hang up (HANGUP, AudioSocket 0x00). */
  | { type: 'streamHangup'; streamId: string }
  /** A frame to send on a `websocket-server` stream's socket. */
  | { type: 'streamOutput'; streamId: string; frame: StreamFrame }
  /** A DTMF digit the application sent (AudioSocket 0x03). */
  | { type: 'streamDtmf'; streamId: string; digit: string };
