/**
 * Every bridge, and the rules of channels in bridges: a channel is in at most one bridge (adding it
 * to another moves it), a channel that hangs up leaves its bridge, and an application whose
 * channel enters a bridge is subscribed to that bridge (reference bridges.md).
 */
import { randomUUID } from 'node:crypto';
import type { ApplicationRegistry } from '../apps/application-registry.js';
import type { Channel } from '../channels/channel.js';
import type { ChannelRegistry } from '../channels/channel-registry.js';
import { conflict, invalidArgument, notFound, unprocessable } from '../errors.js';
import type { EventBus } from '../events/event-bus.js';
import type { BridgeVideoRequest, MediaEngine } from '../media/media-engine.js';
import type { Logger } from '../util/logger.js';
import { Bridge, type ParticipantOptions } from './bridge.js';
import type { BridgeMusic } from './bridge-music.js';
import { parseBridgeType } from './bridge-type.js';

/** Caller-chosen bridge ids share the channel id limit of the reference. */
export const MAX_BRIDGE_ID_LENGTH = 149;

export interface CreateBridgeOptions {
  id?: string;
  /** Comma-separated attributes (SPEC §2.3). */
  type?: string;
  name?: string;
  /** Created through the API (the default); false for bridges core makes for itself. */
  appOwned?: boolean;
  /** `bridge_class` and `creator` of a bridge not made through the API (e.g. `basic` for Dial's). */
  bridgeClass?: string;
  creator?: string;
}

export type AddChannelOptions = Partial<ParticipantOptions> & {
  /**
   * An inbound call that still rings stays unanswered: it hears early media through the bridge
   * (Dial's 183 path) instead of being answered on entry.
   */
  keepUnanswered?: boolean;
};

export class BridgeRegistry {
  readonly #bridges = new Map<string, Bridge>();
  /** channel id → the bridge it is in. */
  readonly #membership = new Map<string, Bridge>();
  readonly #hookedChannels = new WeakSet<Channel>();
  readonly #bus: EventBus;
  readonly #media: MediaEngine;
  readonly #applications: ApplicationRegistry;
  readonly #music: BridgeMusic;
  readonly #channels: Pick<ChannelRegistry, 'get'>;
  readonly #log: Logger;

  constructor(deps: {
    bus: EventBus;
    media: MediaEngine;
    applications: ApplicationRegistry;
    channels: Pick<ChannelRegistry, 'get'>;
    music: BridgeMusic;
    log: Logger;
  }) {
    this.#channels = deps.channels;
    // A channel that leaves its application (continue, move, hangup) leaves the application's bridge too.
    // After the current event is delivered everywhere: a hangup is then already handled by its hook.
    deps.bus.subscribe((event) => {
      if (event.type !== 'AppEnd') return;
      queueMicrotask(() => {
        const bridge = this.#membership.get(event.channel.id);
        const participant = bridge?.participants.get(event.channel.id);
        if (bridge?.appOwned && participant) void this.#leave(bridge, participant.channel, participant.channel.isDestroyed);
      });
    });
    this.#bus = deps.bus;
    this.#media = deps.media;
    this.#applications = deps.applications;
    this.#music = deps.music;
    this.#log = deps.log;
  }

  async create(options: CreateBridgeOptions = {}): Promise<Bridge> {
    const id = options.id ?? randomUUID();
    if (id.length === 0 || id.length > MAX_BRIDGE_ID_LENGTH)
      throw invalidArgument(`Bridge id must be 1 to ${MAX_BRIDGE_ID_LENGTH} characters`);
    if (this.#bridges.has(id)) throw conflict('Bridge with the same id already exists');
    const type = parseBridgeType(options.type);
    const bridge = new Bridge({
      id,
      name: options.name ?? '',
      type,
      appOwned: options.appOwned ?? true,
      ...(options.bridgeClass !== undefined ? { bridgeClass: options.bridgeClass } : {}),
      ...(options.creator !== undefined ? { creator: options.creator } : {}),
    });
    // Taken before the await so that a concurrent create with the same id gets its 409.
    this.#bridges.set(id, bridge);
    try {
      await this.#media.createBridge({ bridgeId: id, kind: type.kind });
    } catch (err) {
      this.#bridges.delete(id);
      throw err;
    }
    await this.#applyVideoIfNotDefault(bridge);
    this.#bus.publish({ type: 'BridgeCreated', bridge: bridge.snapshot() });
    return bridge;
  }

  get(id: string): Bridge | undefined {
    return this.#bridges.get(id);
  }

  require(id: string): Bridge {
    const bridge = this.#bridges.get(id);
    if (!bridge) throw notFound('Bridge not found');
    return bridge;
  }

  /** A bridge the API may control: 404 when unknown, 409 when not created through the API. */
  requireControlled(id: string): Bridge {
    const bridge = this.require(id);
    if (!bridge.appOwned) throw conflict('Bridge not in an application');
    return bridge;
  }

  list(): Bridge[] {
    return [...this.#bridges.values()];
  }

  /** The bridge a channel is in, if any. */
  bridgeOf(channelId: string): Bridge | undefined {
    return this.#membership.get(channelId);
  }

  /**
   * The media engine lost this bridge (its worker died): build it again and bring back the
   * participants whose legs survived, so the call goes on after a short gap in the audio.
   */
  async rebuildMedia(bridgeId: string): Promise<void> {
    const bridge = this.#bridges.get(bridgeId);
    if (!bridge || bridge.isDestroyed) return;
    await this.#media.createBridge({ bridgeId, kind: bridge.type.kind });
    await this.#applyVideoIfNotDefault(bridge);
    for (const { channel, options } of bridge.participants.values()) {
      const legId = channel.tech.mediaLegId;
      if (channel.isDestroyed || !legId) continue;
      const role = options.role === 'announcer' && bridge.type.kind === 'holding' ? ('announcer' as const) : ('participant' as const);
      await this.#media
        .joinBridge(bridgeId, legId, { role, mute: options.mute, absorbDtmf: options.absorbDtmf })
        .catch((err: unknown) => this.#log.warn({ err, channel: channel.id, bridge: bridgeId }, 'could not rejoin a rebuilt bridge'));
    }
    this.#log.info({ bridge: bridgeId, participants: bridge.participants.size }, 'media bridge rebuilt after a worker failure');
  }

  /** Remaining channels leave (and carry on in their applications); then the bridge is gone. */
  async destroy(bridge: Bridge): Promise<void> {
    if (bridge.isDestroyed || this.#bridges.get(bridge.id) !== bridge) return;
    // Gone from the registry first, so that a second destroy (or an add) racing this one finds nothing.
    this.#bridges.delete(bridge.id);
    // The engine's destroyBridge takes every leg out itself: no leave request per participant.
    for (const participant of [...bridge.participants.values()]) await this.#leave(bridge, participant.channel, true);
    this.#music.forget(bridge.id);
    bridge.markDestroyed((err) => this.#log.error({ err, bridge: bridge.id }, 'bridge destroy hook failed'));
    try {
      await this.#media.destroyBridge(bridge.id);
    } catch (err) {
      this.#log.warn({ err, bridge: bridge.id }, 'media engine could not destroy the bridge');
    }
    this.#bus.publish({ type: 'BridgeDestroyed', bridge: bridge.snapshot() });
    for (const app of this.#applications.list()) app.forget('bridge', bridge.id);
  }

  /**
   * Checks every channel of an addChannel request before any moves: 400 unknown, 422 outside
   * every application. Returns the channels in request order.
   */
  resolveChannelsToAdd(channelIds: readonly string[]): Channel[] {
    if (channelIds.length === 0) throw invalidArgument('Missing parameter channel');
    const channels = channelIds.map((id) => {
      const channel = this.#channelOrBadRequest(id);
      if (channel.application === undefined) throw unprocessable('Channel not in an application');
      return channel;
    });
    return channels;
  }

  /** Checks every channel of a removeChannel request: 400 unknown, 422 not in this bridge. */
  resolveChannelsToRemove(bridge: Bridge, channelIds: readonly string[]): Channel[] {
    if (channelIds.length === 0) throw invalidArgument('Missing parameter channel');
    return channelIds.map((id) => {
      const channel = this.#channelOrBadRequest(id);
      if (!bridge.participants.has(channel.id)) throw unprocessable('Channel not in this bridge');
      return channel;
    });
  }

  /** Adds channels with one set of options (SPEC §4.5 rule 1); a channel in another bridge moves. */
  async addChannels(bridge: Bridge, channels: readonly Channel[], options: AddChannelOptions = {}): Promise<void> {
    for (const channel of channels) await this.#enter(bridge, channel, options);
  }

  async removeChannels(bridge: Bridge, channels: readonly Channel[]): Promise<void> {
    for (const channel of channels) await this.#leave(bridge, channel, false);
  }

  /**
   * Forces the video source: its video goes to every other participant. 422 when the channel is
   * not in the bridge (checked before the returned promise, which settles once the media applied it).
   */
  setVideoSource(bridge: Bridge, channelId: string): Promise<void> {
    const channel = this.#channelOrBadRequest(channelId);
    if (channel.application === undefined) throw unprocessable('Channel not in an application');
    if (!bridge.participants.has(channel.id)) throw unprocessable('Channel not in this bridge');
    const old = bridge.videoSourceId;
    // As in the reference, an explicit source switches the bridge to single-source video.
    if (bridge.videoMode !== 'none') bridge.videoMode = 'single';
    bridge.videoSourceId = channel.id;
    if (old !== channel.id) this.#videoSourceChanged(bridge, old);
    return this.#applyVideo(bridge);
  }

  /** Video follows the talker again (settles once the media applied it). */
  clearVideoSource(bridge: Bridge): Promise<void> {
    const old = bridge.videoSourceId;
    if (bridge.videoMode === 'single') bridge.videoMode = 'talker';
    bridge.videoSourceId = undefined;
    if (old !== undefined) this.#videoSourceChanged(bridge, old);
    return this.#applyVideo(bridge);
  }

  /** What the media engine must do with the bridge's video; `single` without a source follows the talker. */
  #videoRequest(bridge: Bridge): BridgeVideoRequest {
    const sourceId = bridge.videoSourceId;
    const sourceLegId = sourceId === undefined ? undefined : this.#channels.get(sourceId)?.tech.mediaLegId;
    if (bridge.videoMode === 'single') return sourceLegId === undefined ? { mode: 'talker' } : { mode: 'single', sourceLegId };
    return { mode: bridge.videoMode };
  }

  /** A new media bridge already follows the talker (mixing) or carries no video (holding). */
  #applyVideoIfNotDefault(bridge: Bridge): Promise<void> {
    const request = this.#videoRequest(bridge);
    const mediaDefault = bridge.type.kind === 'holding' ? 'none' : 'talker';
    return request.mode === mediaDefault ? Promise.resolve() : this.#applyVideo(bridge);
  }

  #applyVideo(bridge: Bridge): Promise<void> {
    if (bridge.isDestroyed) return Promise.resolve();
    return this.#media.setBridgeVideo(bridge.id, this.#videoRequest(bridge)).catch((err: unknown) => {
      this.#log.warn({ err, bridge: bridge.id }, 'media engine could not set the bridge video');
    });
  }

  startMusic(bridge: Bridge, mohClass?: string): Promise<void> {
    return this.#music.start(bridge.id, mohClass);
  }

  stopMusic(bridge: Bridge): Promise<void> {
    return this.#music.stop(bridge.id);
  }

  async #enter(bridge: Bridge, channel: Channel, options: AddChannelOptions): Promise<void> {
    if (bridge.isDestroyed || this.#bridges.get(bridge.id) !== bridge) throw notFound('Bridge not found');
    const participantOptions: ParticipantOptions = {
      role: options.role === undefined || options.role === '' ? undefined : options.role,
      mute: options.mute ?? false,
      absorbDtmf: options.absorbDtmf ?? false,
      inhibitConnectedLineUpdates: options.inhibitConnectedLineUpdates ?? false,
    };
    const mediaOptions = {
      role: participantOptions.role === 'announcer' && bridge.type.kind === 'holding' ? ('announcer' as const) : ('participant' as const),
      mute: participantOptions.mute,
      absorbDtmf: participantOptions.absorbDtmf,
    };
    const legId = channel.tech.mediaLegId;
    const existing = bridge.participants.get(channel.id);
    if (existing) {
      // Already here: the new request's options replace the old ones; nobody entered, so no event.
      existing.options = participantOptions;
      if (legId) await this.#media.setBridgeParticipant(bridge.id, legId, mediaOptions);
      return;
    }
    const previous = this.#membership.get(channel.id);
    if (previous) await this.#leave(previous, channel, false);
    // Media cannot flow to an inbound call that still rings; the reference answers it on entry.
    if (channel.direction === 'inbound' && channel.state !== 'Up' && options.keepUnanswered !== true) {
      await channel.answer().catch((err: unknown) => this.#log.warn({ err, channel: channel.id }, 'answer on bridge entry failed'));
    }
    if (channel.isDestroyed || bridge.isDestroyed || this.#bridges.get(bridge.id) !== bridge) return;
    bridge.participants.set(channel.id, { channel, options: participantOptions });
    this.#membership.set(channel.id, bridge);
    this.#hookHangup(channel);
    const app = channel.application === undefined ? undefined : this.#applications.get(channel.application);
    // Once per application, not once per channel: an explicit unsubscribe must be able to end it.
    if (app && !app.hasExactSubscription('bridge', bridge.id)) app.subscribe('bridge', bridge.id);
    if (legId) {
      try {
        await this.#media.joinBridge(bridge.id, legId, mediaOptions);
      } catch (err) {
        this.#log.warn({ err, channel: channel.id, bridge: bridge.id }, 'media engine could not join the leg to the bridge');
      }
    } else {
      this.#log.warn({ channel: channel.id, bridge: bridge.id }, 'channel has no media leg; it is in the bridge without audio');
    }
    this.#bus.publish({ type: 'ChannelEnteredBridge', bridge: bridge.snapshot(), channel: channel.snapshot() });
    this.#updateConnectedLines(bridge);
  }

  /**
   * Two parties in a mixing bridge are connected to each other: each one's connected line becomes
   * the other's caller id (ChannelConnectedLine when it changes). A participant added with
   * `inhibitConnectedLineUpdates` generates no such update (SPEC §4.5): its identity is not passed
   * to the other party, nor the other's to it, while it is in the bridge.
   */
  #updateConnectedLines(bridge: Bridge): void {
    if (bridge.type.kind !== 'mixing' || bridge.participants.size !== 2) return;
    const [a, b] = [...bridge.participants.values()];
    if (a.options.inhibitConnectedLineUpdates || b.options.inhibitConnectedLineUpdates) return;
    a.channel.setConnected(b.channel.caller);
    b.channel.setConnected(a.channel.caller);
  }

  /** `legLeavesByItself`: the leg is gone (hangup) or the whole media bridge is being destroyed. */
  async #leave(bridge: Bridge, channel: Channel, legLeavesByItself: boolean): Promise<void> {
    if (!bridge.participants.delete(channel.id)) return;
    if (this.#membership.get(channel.id) === bridge) this.#membership.delete(channel.id);
    if (bridge.videoSourceId === channel.id) void this.clearVideoSource(bridge);
    const legId = channel.tech.mediaLegId;
    this.#bus.publish({ type: 'ChannelLeftBridge', bridge: bridge.snapshot(), channel: channel.snapshot() });
    // A hung-up channel's leg goes away with it; the engine drops it from the bridge by itself.
    if (legId && !legLeavesByItself) {
      await this.#media.leaveBridge(bridge.id, legId).catch((err: unknown) => {
        this.#log.warn({ err, channel: channel.id, bridge: bridge.id }, 'media engine could not remove the leg from the bridge');
      });
    }
  }

  #hookHangup(channel: Channel): void {
    if (this.#hookedChannels.has(channel)) return;
    this.#hookedChannels.add(channel);
    channel.onHangup(() => {
      const bridge = this.#membership.get(channel.id);
      if (bridge) void this.#leave(bridge, channel, true);
    });
  }

  #videoSourceChanged(bridge: Bridge, old: string | undefined): void {
    this.#bus.publish({
      type: 'BridgeVideoSourceChanged',
      bridge: bridge.snapshot(),
      ...(old === undefined ? {} : { old_video_source_id: old }),
    });
  }

  #channelOrBadRequest(id: string): Channel {
    const channel = this.#channels.get(id);
    if (!channel) throw invalidArgument('Channel not found');
    return channel;
  }
}
