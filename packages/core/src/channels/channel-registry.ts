import { type EndpointChannelCounts, isAlerting } from '../device-states/derived-state.js';
import { canonicalTechnology } from '../endpoints/technology.js';
import { conflict, invalidArgument, notFound } from '../errors.js';
import type { EventBus } from '../events/event-bus.js';
import type { Logger } from '../util/logger.js';
import { Channel, type ChannelInit } from './channel.js';

/** Caller-chosen identifiers are limited like the reference's (149 characters). */
export const MAX_CHANNEL_ID_LENGTH = 149;

/**
 * Every live channel, by id. Channels remove themselves on destruction. Generated ids take the
 * `<epoch seconds>.<sequence>` form that clients of the reference expect.
 */
export class ChannelRegistry {
  readonly #channels = new Map<string, Channel>();
  /**
   * `TECH/resource` → its live channels, in creation order: endpoint snapshots and device states
   * are read on every channel event, and a scan of all channels made each O(channels).
   */
  readonly #byEndpoint = new Map<string, Set<Channel>>();
  /**
   * The channels alerting their phone, and their number per endpoint: a device state is derived on
   * every channel state change, and counting an endpoint's channels each time made a call's events
   * O(calls) on an endpoint with many (a trunk, or every caller of an overloaded server).
   */
  readonly #alerting = new Set<Channel>();
  readonly #alertingByEndpoint = new Map<string, number>();
  readonly #bus: EventBus;
  readonly #log: Logger;
  readonly #epoch = Math.floor(Date.now() / 1000);
  #sequence = 0;

  constructor(bus: EventBus, log: Logger) {
    this.#bus = bus;
    this.#log = log;
    // Subscribed before anything that reads the counts (the registry is made first).
    bus.subscribe((event) => {
      if (event.type !== 'ChannelStateChange') return;
      const channel = this.#channels.get(event.channel.id);
      if (channel !== undefined) this.#classify(channel, isAlerting(channel));
    });
  }

  get size(): number {
    return this.#channels.size;
  }

  nextId(): string {
    this.#sequence += 1;
    return `${this.#epoch}.${this.#sequence}`;
  }

  /** Checks a caller-chosen id before anything is created for it. */
  assertIdAvailable(id: string): void {
    if (id.length === 0 || id.length > MAX_CHANNEL_ID_LENGTH) {
      throw invalidArgument(`Channel id must be 1 to ${MAX_CHANNEL_ID_LENGTH} characters`);
    }
    if (this.#channels.has(id)) throw conflict('Channel with the same id already exists');
  }

  create(init: Omit<ChannelInit, 'id'> & { id?: string }): Channel {
    const id = init.id ?? this.nextId();
    this.assertIdAvailable(id);
    const channel = new Channel({ ...init, id }, this.#bus, this.#log);
    this.#channels.set(id, channel);
    const endpointKey = `${canonicalTechnology(channel.technology)}/${channel.endpoint}`;
    let ofEndpoint = this.#byEndpoint.get(endpointKey);
    if (ofEndpoint === undefined) {
      ofEndpoint = new Set();
      this.#byEndpoint.set(endpointKey, ofEndpoint);
    }
    ofEndpoint.add(channel);
    this.#classify(channel, isAlerting(channel));
    channel.onHangup(() => {
      this.#channels.delete(id);
      this.#classify(channel, false);
      const set = this.#byEndpoint.get(endpointKey);
      set?.delete(channel);
      if (set?.size === 0) this.#byEndpoint.delete(endpointKey);
    });
    this.#bus.publish({ type: 'ChannelCreated', channel: channel.snapshot() });
    return channel;
  }

  get(id: string): Channel | undefined {
    return this.#channels.get(id);
  }

  require(id: string): Channel {
    const channel = this.#channels.get(id);
    if (!channel) throw notFound('Channel not found');
    return channel;
  }

  /**
   * The channel whose technology carries `legId` (media notifications name legs, not channels).
   * A scan is enough: legs are asked for on DTMF and talk events, not per packet.
   */
  findByMediaLeg(legId: string): Channel | undefined {
    for (const channel of this.#channels.values()) if (channel.tech.mediaLegId === legId) return channel;
    return undefined;
  }

  list(): Channel[] {
    return [...this.#channels.values()];
  }

  /** The live channels of one endpoint (`technology` as canonicalTechnology gives it), oldest first. */
  ofEndpoint(technology: string, resource: string): Channel[] {
    return [...this.endpointChannels(technology, resource)];
  }

  /** `ofEndpoint` without the copy, for a caller that only reads them before the next change. */
  endpointChannels(technology: string, resource: string): Iterable<Channel> {
    return this.#byEndpoint.get(`${technology}/${resource}`) ?? [];
  }

  /** How many live channels the endpoint has, and how many alert its phone (in constant time). */
  endpointChannelCounts(technology: string, resource: string): EndpointChannelCounts {
    const key = `${technology}/${resource}`;
    return { live: this.#byEndpoint.get(key)?.size ?? 0, alerting: this.#alertingByEndpoint.get(key) ?? 0 };
  }

  #classify(channel: Channel, alerting: boolean): void {
    if (alerting === this.#alerting.has(channel)) return;
    const key = `${canonicalTechnology(channel.technology)}/${channel.endpoint}`;
    const count = (this.#alertingByEndpoint.get(key) ?? 0) + (alerting ? 1 : -1);
    if (alerting) this.#alerting.add(channel);
    else this.#alerting.delete(channel);
    if (count > 0) this.#alertingByEndpoint.set(key, count);
    else this.#alertingByEndpoint.delete(key);
  }
}
