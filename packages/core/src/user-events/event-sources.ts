/**
 * Event source references (SPEC §4.1): `<kind>:<id>` with kinds channel, bridge, endpoint and
 * deviceState; a blank id (`channel:`, `channels:`) means every resource of the kind. Used by
 * application subscriptions and by user events, which both answer 422 for a source that does not
 * exist.
 */
import type { EventSourceKind } from '../apps/application.js';
import type { ChannelRegistry } from '../channels/channel-registry.js';
import type { EndpointRegistry } from '../endpoints/endpoint-registry.js';
import { canonicalDeviceName, canonicalTechnology } from '../endpoints/technology.js';
import { invalidArgument } from '../errors.js';
import type { BridgeSnapshot, ChannelSnapshot, EndpointSnapshot } from '../model/snapshots.js';

export interface EventSourceRef {
  kind: EventSourceKind;
  /** Empty: every resource of the kind. Endpoint ids are `TECH/resource` or `TECH`. */
  id: string;
}

const KINDS: Readonly<Record<string, EventSourceKind>> = {
  channel: 'channel',
  channels: 'channel',
  bridge: 'bridge',
  bridges: 'bridge',
  endpoint: 'endpoint',
  endpoints: 'endpoint',
  deviceState: 'deviceState',
  deviceStates: 'deviceState',
};

export function parseEventSource(text: string): EventSourceRef {
  const colon = text.indexOf(':');
  const kind = colon > 0 ? KINDS[text.slice(0, colon)] : undefined;
  if (kind === undefined) throw invalidArgument(`Invalid event source '${text}': use channel:, bridge:, endpoint: or deviceState:`);
  const id = text.slice(colon + 1);
  if (kind === 'endpoint' && id !== '') {
    const slash = id.indexOf('/');
    const technology = canonicalTechnology(slash < 0 ? id : id.slice(0, slash));
    return { kind, id: slash < 0 ? technology : `${technology}/${id.slice(slash + 1)}` };
  }
  if (kind === 'deviceState') return { kind, id: canonicalDeviceName(id) };
  return { kind, id };
}

export type BridgeLookup = (id: string) => BridgeSnapshot | undefined;

/** Finds the objects references name; bridges come from whoever owns them (setBridgeLookup). */
export class EventSources {
  readonly #channels: ChannelRegistry;
  readonly #endpoints: EndpointRegistry;
  #bridges: BridgeLookup = () => undefined;

  constructor(channels: ChannelRegistry, endpoints: EndpointRegistry) {
    this.#channels = channels;
    this.#endpoints = endpoints;
  }

  setBridgeLookup(lookup: BridgeLookup): void {
    this.#bridges = lookup;
  }

  channel(id: string): ChannelSnapshot | undefined {
    const channel = this.#channels.get(id);
    return channel && !channel.isDestroyed ? channel.snapshot() : undefined;
  }

  bridge(id: string): BridgeSnapshot | undefined {
    return this.#bridges(id);
  }

  /** `TECH/resource` → the endpoint; `TECH` alone is a technology, which has no snapshot. */
  endpoint(id: string): EndpointSnapshot | undefined {
    const slash = id.indexOf('/');
    return slash < 0 ? undefined : this.#endpoints.get(id.slice(0, slash), id.slice(slash + 1));
  }

  /**
   * Whether an application may subscribe to the source. Any device name may be subscribed to, as
   * applications commonly subscribe to an `App:` device before they first set it.
   */
  exists(ref: EventSourceRef): boolean {
    if (ref.id === '') return true;
    switch (ref.kind) {
      case 'channel':
        return this.channel(ref.id) !== undefined;
      case 'bridge':
        return this.bridge(ref.id) !== undefined;
      case 'endpoint':
        return ref.id.includes('/') ? this.endpoint(ref.id) !== undefined : this.#endpoints.has(ref.id);
      case 'deviceState':
        return true;
    }
  }
}
