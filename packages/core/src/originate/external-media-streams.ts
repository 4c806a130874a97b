/**
 * externalMedia over WebSocket (the reference's WebSocket media channel: `transport=websocket`,
 * `encapsulation=none`, connection_type `client` — we connect to the ws:// or wss:// URL in
 * external_host — or `server` — the application connects to `<prefix>/media/<connection id>`)
 * and over AudioSocket (`encapsulation=audiosocket`, `transport=tcp`, we connect to
 * external_host; `data` is the stream's UUID). The channel's audio is an RTP leg of the media
 * engine like every channel's; the gateway (in its own worker) turns that RTP into the
 * application's frames and back, so transcoding stays in the media workers.
 *
 * Channel names: `WebSocket/<connection id>-<8 hex>`, `AudioSocket/<host:port>-<8 hex>`.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { isIP } from 'node:net';
import { lookup } from 'node:dns/promises';
import type { Channel } from '../channels/channel.js';
import type { ChannelTechnology } from '../drivers/channel-technology.js';
import { MediaLegTechnology } from '../drivers/media-leg-technology.js';
import { CoreError, invalidArgument } from '../errors.js';
import type { MediaEngine } from '../media/media-engine.js';
import type {
  MediaStreamConnection,
  MediaStreamControlFormat,
  MediaStreamDirection,
  MediaStreamFormat,
  MediaStreamFrame,
  MediaStreamGateway,
  MediaStreamNotification,
} from '../media/media-stream-gateway.js';
import type { Logger } from '../util/logger.js';
import { parseWebSocketDialOptions } from './websocket-dial-options.js';

/** How long a `server` stream waits for the application to connect before the channel hangs up. */
export const SERVER_CONNECT_TIMEOUT_MS = 30_000;

const FRAME_BYTES: Readonly<Record<MediaStreamFormat, number>> = { ulaw: 160, slin: 320, slin16: 640 };

export interface StreamChannelPlan {
  streamId: string;
  technology: 'WebSocket' | 'AudioSocket';
  channelName: string;
  endpoint: string;
  format: MediaStreamFormat;
  connection: MediaStreamConnection;
  controlFormat: MediaStreamControlFormat;
  direction: MediaStreamDirection;
  /** Channel variables the application reads (connection id, frame size). */
  variables: { name: string; value: string }[];
}

export interface StreamRequest {
  externalHost?: string;
  encapsulation: string;
  transport: string;
  connectionType: string;
  format: string;
  data?: string;
  /** The WebSocket dial-string options (`f(json)v(a=b)d(in)`). */
  transportData?: string;
  direction?: string;
  /** chan_websocket.conf's control message format, for a call that does not choose one. */
  defaultControlFormat: MediaStreamControlFormat;
}

/** Checks a websocket/audiosocket request and names its channel; bad input is a 400. */
export async function planStreamChannel(request: StreamRequest): Promise<StreamChannelPlan> {
  const format = request.format;
  if (format !== 'ulaw' && format !== 'slin' && format !== 'slin16') {
    throw invalidArgument('WebSocket and AudioSocket external media carry ulaw, slin or slin16');
  }
  const suffix = randomBytes(4).toString('hex');
  const direction = request.direction ?? 'both';
  if (request.encapsulation === 'audiosocket') {
    if (request.transportData) throw invalidArgument('transport_data applies to websocket transport only');
    if (direction !== 'both') throw invalidArgument('direction must be both for audiosocket');
    if (format === 'ulaw') throw invalidArgument('AudioSocket carries signed linear audio: use slin or slin16');
    const { host, port } = parseHostPort(request.externalHost);
    const address = isIP(host) ? host : (await lookup(host).catch(() => undefined))?.address;
    if (address === undefined) throw invalidArgument(`external_host '${host}' cannot be resolved`);
    const uuid = request.data === undefined || request.data === '' ? randomUUID() : request.data;
    if (!/^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$/.test(uuid)) {
      throw invalidArgument('data must be the AudioSocket stream UUID');
    }
    return {
      streamId: randomBytes(8).toString('hex'),
      technology: 'AudioSocket',
      channelName: `AudioSocket/${host}:${port}-${suffix}`,
      endpoint: `${host}:${port}`,
      format,
      connection: { kind: 'audiosocket', host: address, port, uuid },
      controlFormat: request.defaultControlFormat,
      direction: 'both',
      variables: [{ name: 'AUDIOSOCKET_UUID', value: uuid }],
    };
  }
  const streamId = randomBytes(8).toString('hex');
  const options = parseWebSocketDialOptions(request.transportData);
  if (direction !== 'both' && direction !== 'in' && direction !== 'out') throw invalidArgument('direction must be both, in or out');
  let connection: MediaStreamConnection;
  if (request.connectionType === 'server') {
    if (options.uriParameters.length > 0) throw invalidArgument('transport_data v() applies to connection_type client only');
    connection = { kind: 'websocket-server' };
  } else {
    const url = request.externalHost ?? '';
    if (!/^wss?:\/\/[^/\s]+/.test(url))
      throw invalidArgument('external_host must be a ws:// or wss:// URL for a websocket client connection');
    connection = { kind: 'websocket-client', url: withParameters(url, options.uriParameters) };
  }
  return {
    streamId,
    technology: 'WebSocket',
    channelName: `WebSocket/${streamId}-${suffix}`,
    endpoint: streamId,
    format,
    connection,
    controlFormat: options.controlFormat ?? request.defaultControlFormat,
    direction: options.direction ?? direction,
    variables: [
      { name: 'MEDIA_WEBSOCKET_CONNECTION_ID', value: streamId },
      { name: 'MEDIA_WEBSOCKET_OPTIMAL_FRAME_SIZE', value: String(FRAME_BYTES[format]) },
    ],
  };
}

/** The URL with `v()` parameters appended to its query. */
function withParameters(url: string, parameters: readonly [string, string][]): string {
  if (parameters.length === 0) return url;
  const target = new URL(url);
  for (const [name, value] of parameters) target.searchParams.append(name, value);
  return target.toString();
}

function parseHostPort(value: string | undefined): { host: string; port: number } {
  const target = /^(?:\[([^\]]+)\]|([^:]+)):(\d{1,5})$/.exec(value ?? '');
  const host = target?.[1] ?? target?.[2];
  const port = Number(target?.[3]);
  if (!host || !Number.isInteger(port) || port < 1 || port > 65535) throw invalidArgument('external_host must be host:port');
  return { host, port };
}

/** The channel technology of a stream channel: hanging up closes the stream and releases the leg. */

/** The socket an application opened to `<prefix>/media/<connection id>`, as the API server sees it. */
export interface AcceptedMediaSocket {
  send(frame: MediaStreamFrame): void;
  close(reason: string): void;
}

/** Streams and the channels they belong to. */
export class ExternalMediaStreams {
  readonly #gateway: MediaStreamGateway;
  readonly #media: MediaEngine;
  readonly #log: Logger;
  readonly #channels = new Map<string, Channel>();
  readonly #sockets = new Map<string, AcceptedMediaSocket>();
  readonly #waiting = new Map<string, NodeJS.Timeout>();
  readonly #dtmf: (channel: Channel, digit: string) => void;

  constructor(gateway: MediaStreamGateway, media: MediaEngine, log: Logger, dtmf: (channel: Channel, digit: string) => void) {
    this.#gateway = gateway;
    this.#media = media;
    this.#log = log;
    this.#dtmf = dtmf;
    gateway.onNotification((notification) => this.#notified(notification));
  }

  /**
   * Opens the stream (for client kinds: connects to the application first, so a refusal is the
   * request's answer) and returns the technology and leg for the channel to be created with.
   */
  async open(
    plan: StreamChannelPlan,
    channelId: string,
    channelVariables: Readonly<Record<string, string>>,
  ): Promise<{ tech: ChannelTechnology; legId: string }> {
    const leg = await this.#media.createLeg({ bindAddress: '127.0.0.1' });
    const release = async () => {
      this.#forget(plan.streamId, 'the channel hung up');
      await this.#media.destroyLeg(leg.legId);
    };
    try {
      const opened = await this.#gateway.open({
        streamId: plan.streamId,
        channelName: plan.channelName,
        channelId,
        format: plan.format,
        controlFormat: plan.controlFormat,
        direction: plan.direction,
        channelVariables,
        connection: plan.connection,
        leg: { address: leg.localAddress, port: leg.localPort },
      });
      await this.#media.setLegRemote(leg.legId, {
        address: opened.rtpAddress,
        port: opened.rtpPort,
        codec: opened.codec,
        // DTMF sent to the channel travels as RFC 4733 events; the stream tells a WebSocket bot DTMF_END.
        ...(opened.telephoneEventPayloadType !== undefined ? { telephoneEventPayloadType: opened.telephoneEventPayloadType } : {}),
      });
    } catch (err) {
      this.#gateway.close(plan.streamId);
      await this.#media.destroyLeg(leg.legId);
      if (err instanceof CoreError) throw err;
      throw new CoreError('unavailable', `External media connection failed: ${(err as Error).message}`);
    }
    return { tech: new MediaLegTechnology(leg.legId, this.#media, release), legId: leg.legId };
  }

  /** The stream's channel exists: its hang-up requests and closures now end it. */
  bind(plan: StreamChannelPlan, channel: Channel): void {
    this.#channels.set(plan.streamId, channel);
    if (plan.connection.kind !== 'websocket-server') return;
    const timer = setTimeout(() => {
      this.#waiting.delete(plan.streamId);
      this.#log.info({ channel: channel.id }, 'the application never connected to its media WebSocket; hanging up');
      void channel.hangup();
    }, SERVER_CONNECT_TIMEOUT_MS);
    timer.unref();
    this.#waiting.set(plan.streamId, timer);
  }

  /**
   * The application connected to `<prefix>/media/<connectionId>`. Returns what to do with its
   * frames, or undefined when no stream waits for that id (or one is already connected).
   */
  accept(connectionId: string, socket: AcceptedMediaSocket): ((frame: MediaStreamFrame | 'closed') => void) | undefined {
    const timer = this.#waiting.get(connectionId);
    if (!timer || this.#sockets.has(connectionId)) return undefined;
    clearTimeout(timer);
    this.#waiting.delete(connectionId);
    this.#sockets.set(connectionId, socket);
    this.#gateway.attached(connectionId);
    return (frame) => {
      if (frame === 'closed') {
        if (this.#sockets.get(connectionId) !== socket) return;
        this.#sockets.delete(connectionId);
        this.#hangup(connectionId, 'the application closed its media WebSocket');
      } else {
        this.#gateway.input(connectionId, frame);
      }
    };
  }

  #notified(notification: MediaStreamNotification): void {
    switch (notification.type) {
      case 'streamOutput':
        this.#sockets.get(notification.streamId)?.send(notification.frame);
        return;
      case 'streamHangup':
        this.#hangup(notification.streamId, 'the application asked to hang up');
        return;
      case 'streamClosed':
        this.#hangup(notification.streamId, notification.reason);
        return;
      case 'streamDtmf': {
        const channel = this.#channels.get(notification.streamId);
        if (channel && /^[0-9A-D*#]$/i.test(notification.digit)) this.#dtmf(channel, notification.digit.toUpperCase());
        return;
      }
    }
  }

  #hangup(streamId: string, reason: string): void {
    const channel = this.#channels.get(streamId);
    if (!channel) return;
    this.#log.info({ channel: channel.id, reason }, 'external media stream ended');
    void channel.hangup();
  }

  #forget(streamId: string, reason: string): void {
    this.#channels.delete(streamId);
    const timer = this.#waiting.get(streamId);
    if (timer) clearTimeout(timer);
    this.#waiting.delete(streamId);
    const socket = this.#sockets.get(streamId);
    this.#sockets.delete(streamId);
    socket?.close(reason);
    this.#gateway.close(streamId);
  }
}
