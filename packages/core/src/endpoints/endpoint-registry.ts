/**
 * Endpoints (SPEC §2.4, §4.6): every configured SIP endpoint is `SIP/<name>`; more can be added at
 * run time (dynamic configuration). The channel driver reports reachability through
 * `setEndpointState`; `channel_ids` are read from the live channels. A change of either is published
 * as EndpointStateChange. Technology endpoints (`SIP` alone) are implicit aggregation points: they
 * exist while one endpoint of the technology exists and are only used as subscription targets.
 */
import type { ChannelRegistry } from '../channels/channel-registry.js';
import { notFound } from '../errors.js';
import type { TimedDomainEvent } from '../events/domain-events.js';
import type { EventBus } from '../events/event-bus.js';
import type { ContactInfoSnapshot, EndpointSnapshot, EndpointState, PeerSnapshot } from '../model/snapshots.js';
import { canonicalTechnology } from './technology.js';

/** What a channel driver calls when it learns an endpoint's reachability (registration, qualify). */
export interface EndpointStateReporter {
  setEndpointState(technology: string, resource: string, state: EndpointState): void;
  /** A contact of the endpoint was added, removed, or changed reachability (ContactStatusChange). */
  contactStatusChanged(technology: string, resource: string, contact: ContactInfoSnapshot): void;
  /** The endpoint as a peer changed status (PeerStatusChange), e.g. Reachable/Unreachable. */
  peerStatusChanged(technology: string, resource: string, peer: PeerSnapshot): void;
}

const key = (technology: string, resource: string) => `${technology}/${resource}`;

export class EndpointRegistry implements EndpointStateReporter {
  /** `TECH/resource` → state; insertion order is the listing order. */
  readonly #endpoints = new Map<string, { technology: string; resource: string; state: EndpointState }>();
  readonly #channels: ChannelRegistry;
  readonly #bus: EventBus;
  #wanted: (technology: string, resource: string) => boolean = () => true;

  constructor(bus: EventBus, channels: ChannelRegistry) {
    this.#bus = bus;
    this.#channels = channels;
    bus.subscribe((event) => this.#onEvent(event));
  }

  /**
   * Who takes EndpointStateChange (the applications subscribed to endpoints). A channel's coming and
   * going is published only for an endpoint someone takes it for: the snapshot lists every channel
   * of the endpoint, and building it for each of a trunk's calls made a call's events O(calls).
   */
  publishChannelChangesWhen(wanted: (technology: string, resource: string) => boolean): void {
    this.#wanted = wanted;
  }

  /** Declares an endpoint (from configuration); an existing one keeps its state. */
  add(technology: string, resource: string): void {
    const tech = canonicalTechnology(technology);
    if (!this.#endpoints.has(key(tech, resource)))
      this.#endpoints.set(key(tech, resource), { technology: tech, resource, state: 'unknown' });
  }

  /** Removes an endpoint (its dynamic configuration object was deleted). */
  remove(technology: string, resource: string): boolean {
    return this.#endpoints.delete(key(canonicalTechnology(technology), resource));
  }

  has(technology: string, resource?: string): boolean {
    const tech = canonicalTechnology(technology);
    if (resource !== undefined) return this.#endpoints.has(key(tech, resource));
    return this.technologies().includes(tech);
  }

  technologies(): string[] {
    return [...new Set([...this.#endpoints.values()].map((e) => e.technology))];
  }

  list(): EndpointSnapshot[] {
    return [...this.#endpoints.values()].map((e) => this.#snapshot(e.technology, e.resource));
  }

  /** 404 when the technology has no endpoint (SPEC §4.6). */
  listByTechnology(technology: string): EndpointSnapshot[] {
    const tech = canonicalTechnology(technology);
    const found = this.list().filter((e) => e.technology === tech);
    if (found.length === 0) throw notFound('Endpoint technology not found');
    return found;
  }

  get(technology: string, resource: string): EndpointSnapshot | undefined {
    const tech = canonicalTechnology(technology);
    return this.#endpoints.has(key(tech, resource)) ? this.#snapshot(tech, resource) : undefined;
  }

  require(technology: string, resource: string): EndpointSnapshot {
    const endpoint = this.get(technology, resource);
    if (!endpoint) throw notFound('Endpoint not found');
    return endpoint;
  }

  stateOf(technology: string, resource: string): EndpointState | undefined {
    return this.#endpoints.get(key(canonicalTechnology(technology), resource))?.state;
  }

  /** Called by the channel driver; an unknown endpoint is declared on the way (a dynamic one). */
  setEndpointState(technology: string, resource: string, state: EndpointState): void {
    const tech = canonicalTechnology(technology);
    this.add(tech, resource);
    const entry = this.#endpoints.get(key(tech, resource));
    if (!entry || entry.state === state) return;
    entry.state = state;
    this.#publish(this.#snapshot(tech, resource));
  }

  contactStatusChanged(technology: string, resource: string, contact: ContactInfoSnapshot): void {
    const endpoint = this.get(technology, resource);
    if (endpoint) this.#bus.publish({ type: 'ContactStatusChange', endpoint, contact_info: { ...contact } });
  }

  peerStatusChanged(technology: string, resource: string, peer: PeerSnapshot): void {
    const endpoint = this.get(technology, resource);
    if (endpoint) this.#bus.publish({ type: 'PeerStatusChange', endpoint, peer: { ...peer } });
  }

  #snapshot(technology: string, resource: string, without?: string): EndpointSnapshot {
    const entry = this.#endpoints.get(key(technology, resource));
    const channel_ids: string[] = [];
    for (const c of this.#channels.endpointChannels(technology, resource)) if (!c.isDestroyed && c.id !== without) channel_ids.push(c.id);
    return { technology, resource, state: entry?.state ?? 'unknown', channel_ids };
  }

  /** The channel list is part of the snapshot, so channels coming and going change it too. */
  #onEvent(event: TimedDomainEvent): void {
    if (event.type !== 'ChannelCreated' && event.type !== 'ChannelDestroyed') return;
    const channel = this.#channels.get(event.channel.id);
    const technology = canonicalTechnology(channel?.technology ?? event.channel.name.split('/')[0] ?? '');
    const resource = channel?.endpoint ?? endpointResource(event.channel.name);
    if (resource === undefined || !this.#endpoints.has(key(technology, resource)) || !this.#wanted(technology, resource)) return;
    const without = event.type === 'ChannelDestroyed' ? event.channel.id : undefined;
    this.#publish(this.#snapshot(technology, resource, without));
  }

  #publish(endpoint: EndpointSnapshot): void {
    this.#bus.publish({ type: 'EndpointStateChange', endpoint });
  }
}

/** `SIP/alice-0000000a` → `alice` */
function endpointResource(channelName: string): string | undefined {
  const slash = channelName.indexOf('/');
  if (slash <= 0) return undefined;
  const rest = channelName.slice(slash + 1);
  const dash = rest.lastIndexOf('-');
  return dash > 0 ? rest.slice(0, dash) : rest;
}
