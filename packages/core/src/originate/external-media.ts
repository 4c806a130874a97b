/**
 * externalMedia: a channel whose audio is exchanged with an external host over plain RTP
 * (encapsulation `rtp`, transport `udp`), named `UnicastRTP/<host:port>-<8 hex>` like the
 * reference's, answered at once and placed in an application. The local address and port the
 * host must send to are the channel variables UNICASTRTP_LOCAL_ADDRESS/PORT, shown in its
 * `channelvars`. WebSocket and AudioSocket streams are in external-media-streams.ts; without a
 * media stream gateway they are refused as not implemented (501).
 */
import { randomBytes } from 'node:crypto';
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { ApplicationRegistry } from '../apps/application-registry.js';
import type { Channel } from '../channels/channel.js';
import type { ChannelRegistry } from '../channels/channel-registry.js';
import type { ChannelVariableAccess, VariableSetting } from '../channels/variable-access.js';
import { MediaLegTechnology } from '../drivers/media-leg-technology.js';
import { invalidArgument, notImplemented } from '../errors.js';
import type { AudioCodecName, CodecBinding, MediaEngine } from '../media/media-engine.js';
import type { MediaStreamControlFormat, MediaStreamGateway } from '../media/media-stream-gateway.js';
import { runInApplication } from '../pbx/application-session.js';
import type { DialplanRunner } from '../pbx/dialplan-runner.js';
import type { Logger } from '../util/logger.js';
import { parseFormats } from './formats.js';
import { type AcceptedMediaSocket, ExternalMediaStreams, planStreamChannel } from './external-media-streams.js';
import { splitAppArgs } from './originate-service.js';

export interface ExternalMediaRequest {
  app: string | undefined;
  appArgs?: string;
  channelId?: string;
  /** `host:port` the audio is sent to. */
  externalHost?: string;
  encapsulation?: string;
  transport?: string;
  connectionType?: string;
  /** One format name (`ulaw`, `alaw`, `g722`, `opus`, `slin16`). */
  format: string | undefined;
  direction?: string;
  /** AudioSocket: the stream's UUID. */
  data?: string;
  /** WebSocket: dial-string options (`f(json)`, `d(in)`, `v(name=value)`). */
  transportData?: string;
  variables?: readonly VariableSetting[];
}

/** RTP payload types and clock rates (RFC 3551 static types; the reference's dynamic ones for the rest). */
const RTP_BINDINGS: Readonly<Record<AudioCodecName, CodecBinding>> = {
  PCMU: { name: 'PCMU', payloadType: 0, clockRate: 8000 },
  PCMA: { name: 'PCMA', payloadType: 8, clockRate: 8000 },
  // RFC 3551 §4.5.2: G.722 is clocked at 8000 in RTP although it samples at 16 kHz.
  G722: { name: 'G722', payloadType: 9, clockRate: 8000 },
  opus: { name: 'opus', payloadType: 111, clockRate: 48000 },
  L16: { name: 'L16', payloadType: 118, clockRate: 16000 },
};

export interface ExternalMediaDeps {
  channels: ChannelRegistry;
  applications: ApplicationRegistry;
  dialplanRunner: DialplanRunner;
  variables: ChannelVariableAccess;
  media: MediaEngine;
  log: Logger;
  snapshotVariables(): readonly string[];
  defaultLanguage(): string;
  track(work: Promise<void>): void;
  /** chan_websocket.conf's control message format (plain-text when absent). */
  websocketControlFormat?(): MediaStreamControlFormat;
  /** Runs WebSocket and AudioSocket streams; without it those transports answer 501. */
  mediaStreams?: MediaStreamGateway;
  /** A DTMF digit the far end sent outside the audio (AudioSocket 0x03). */
  remoteDtmf?(channel: Channel, digit: string): void;
}

export class ExternalMediaService {
  readonly #deps: ExternalMediaDeps;
  readonly #streams: ExternalMediaStreams | undefined;

  constructor(deps: ExternalMediaDeps) {
    this.#deps = deps;
    this.#streams =
      deps.mediaStreams &&
      new ExternalMediaStreams(deps.mediaStreams, deps.media, deps.log, (channel, digit) => deps.remoteDtmf?.(channel, digit));
  }

  /** An application connected to `<prefix>/media/<connectionId>` (WebSocket media, connection_type server). */
  acceptMediaSocket(connectionId: string, socket: AcceptedMediaSocket) {
    return this.#streams?.accept(connectionId, socket);
  }

  async create(request: ExternalMediaRequest): Promise<Channel> {
    if ((request.encapsulation ?? 'rtp') !== 'rtp') return await this.#createStream(request);
    const { host, port, codec } = this.#validate(request);
    const app = request.app as string;
    const { channels, media } = this.#deps;
    if (request.channelId !== undefined) channels.assertIdAvailable(request.channelId);
    const address = isIP(host) ? host : (await lookup(host).catch(() => undefined))?.address;
    if (address === undefined) throw invalidArgument(`external_host '${host}' cannot be resolved`);
    const loopback = address.startsWith('127.') || address === '::1';
    // Created already pointed at the far end: one request to the media worker.
    const leg = await media.createLeg({ bindAddress: loopback ? address : '0.0.0.0', remote: { address, port, codec } });
    const tech = new MediaLegTechnology(leg.legId, media);
    let channel: Channel;
    try {
      channel = channels.create({
        id: request.channelId,
        name: `UnicastRTP/${host}:${port}-${randomBytes(4).toString('hex')}`,
        technology: 'UnicastRTP',
        endpoint: `${host}:${port}`,
        direction: 'outbound',
        state: 'Up',
        caller: { name: '', number: '' },
        language: this.#deps.defaultLanguage(),
        dialplan: { context: 'default', exten: 's', priority: 1 },
        tech,
        snapshotVariables: this.#deps.snapshotVariables(),
      });
    } catch (err) {
      await tech.hangup();
      throw err;
    }
    const local = [
      { name: 'UNICASTRTP_LOCAL_ADDRESS', value: leg.localAddress, reportEvents: true },
      { name: 'UNICASTRTP_LOCAL_PORT', value: String(leg.localPort), reportEvents: true },
    ];
    try {
      for (const setting of [...local, ...(request.variables ?? [])]) await this.#deps.variables.set(channel, setting);
    } catch (err) {
      await channel.hangup();
      throw err;
    }
    this.#deps.track(runInApplication(this.#deps, channel, app, splitAppArgs(request.appArgs)));
    return channel;
  }

  #validate(request: ExternalMediaRequest): { host: string; port: number; codec: CodecBinding } {
    if (!request.app) throw invalidArgument('app is required');
    ApplicationRegistry.validateName(request.app);
    if (!request.format) throw invalidArgument('format is required');
    const [codecName] = parseFormats([request.format]);
    const encapsulation = request.encapsulation ?? 'rtp';
    const transport = request.transport ?? 'udp';
    const connectionType = request.connectionType ?? 'client';
    if (encapsulation === 'rtp' && transport !== 'udp') throw invalidArgument('rtp encapsulation requires udp transport');
    if (encapsulation === 'audiosocket' && transport !== 'tcp') throw invalidArgument('audiosocket encapsulation requires tcp transport');
    if (transport === 'websocket' && encapsulation !== 'none') throw invalidArgument('websocket transport requires encapsulation none');
    if (connectionType === 'server' && transport !== 'websocket')
      throw invalidArgument('connection_type server requires websocket transport');
    if ((request.direction ?? 'both') !== 'both') throw invalidArgument('direction must be both');
    if (encapsulation !== 'rtp' && !this.#streams) {
      throw notImplemented(`External media over ${encapsulation}/${transport} is not available on this server; use rtp/udp`);
    }
    const target = /^(?:\[([^\]]+)\]|([^:]+)):(\d{1,5})$/.exec(request.externalHost ?? '');
    const host = target?.[1] ?? target?.[2];
    const port = Number(target?.[3]);
    if (!host || !Number.isInteger(port) || port < 1 || port > 65535) throw invalidArgument('external_host must be host:port');
    return { host, port, codec: RTP_BINDINGS[codecName as AudioCodecName] };
  }

  async #createStream(request: ExternalMediaRequest): Promise<Channel> {
    this.#validateCommon(request);
    const streams = this.#streams as ExternalMediaStreams;
    const plan = await planStreamChannel({
      externalHost: request.externalHost,
      encapsulation: request.encapsulation ?? 'rtp',
      transport: request.transport ?? 'udp',
      connectionType: request.connectionType ?? 'client',
      format: request.format as string,
      data: request.data,
      transportData: request.transportData,
      direction: request.direction,
      defaultControlFormat: this.#deps.websocketControlFormat?.() ?? 'plain-text',
    });
    const { channels } = this.#deps;
    if (request.channelId !== undefined) channels.assertIdAvailable(request.channelId);
    // Known before the channel exists: MEDIA_START names it, and a client stream starts at once.
    const channelId = request.channelId ?? channels.nextId();
    const knownVariables: Record<string, string> = {};
    for (const v of [...plan.variables, ...(request.variables ?? [])]) if (v.value !== undefined) knownVariables[v.name] = v.value;
    const { tech } = await streams.open(plan, channelId, knownVariables);
    let channel: Channel;
    try {
      channel = channels.create({
        id: channelId,
        name: plan.channelName,
        technology: plan.technology,
        endpoint: plan.endpoint,
        direction: 'outbound',
        state: 'Up',
        caller: { name: '', number: '' },
        language: this.#deps.defaultLanguage(),
        dialplan: { context: 'default', exten: 's', priority: 1 },
        tech,
        snapshotVariables: this.#deps.snapshotVariables(),
      });
    } catch (err) {
      await tech.hangup(16);
      throw err;
    }
    streams.bind(plan, channel);
    try {
      const settings = plan.variables.map((v) => ({ ...v, reportEvents: true }));
      for (const setting of [...settings, ...(request.variables ?? [])]) await this.#deps.variables.set(channel, setting);
    } catch (err) {
      await channel.hangup();
      throw err;
    }
    this.#deps.track(runInApplication(this.#deps, channel, request.app as string, splitAppArgs(request.appArgs)));
    return channel;
  }

  /** What every transport checks first: the application, the format's presence, the combination. */
  #validateCommon(request: ExternalMediaRequest): void {
    if (!request.app) throw invalidArgument('app is required');
    ApplicationRegistry.validateName(request.app);
    if (!request.format) throw invalidArgument('format is required');
    const encapsulation = request.encapsulation ?? 'rtp';
    const transport = request.transport ?? 'udp';
    const connectionType = request.connectionType ?? 'client';
    if (encapsulation === 'audiosocket' && transport !== 'tcp') throw invalidArgument('audiosocket encapsulation requires tcp transport');
    if (transport === 'websocket' && encapsulation !== 'none') throw invalidArgument('websocket transport requires encapsulation none');
    if (encapsulation === 'none' && transport !== 'websocket') throw invalidArgument('encapsulation none requires websocket transport');
    if (connectionType === 'server' && transport !== 'websocket')
      throw invalidArgument('connection_type server requires websocket transport');
    if (!this.#streams)
      throw notImplemented(`External media over ${encapsulation}/${transport} is not available on this server; use rtp/udp`);
  }
}
