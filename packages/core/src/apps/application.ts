import type { ApplicationSnapshot } from '../model/snapshots.js';
import type { OfficeEvent } from '../events/office-events.js';
import type { TimedDomainEvent } from '../events/domain-events.js';

/**
 * An event as an application receives it: a domain event (but not the office features' ones,
 * office-events.ts), or a notice about the application itself.
 */
export type ApplicationEvent = Exclude<TimedDomainEvent, { type: OfficeEvent['type'] }> | { type: 'ApplicationReplaced'; timestamp: Date };

/** Delivery of events to whatever connection serves the application (the events WebSocket). */
export type ApplicationSink = (event: ApplicationEvent) => void;

export type EventSourceKind = 'channel' | 'bridge' | 'endpoint' | 'deviceState';

/** Identifiers meaning "every resource of that kind" in the snapshot (the reference's "all" topics). */
export const ALL_SOURCES_MARKER: Record<EventSourceKind, string> = {
  channel: '__AST_CHANNEL_ALL_TOPIC',
  bridge: '__AST_BRIDGE_ALL_TOPIC',
  endpoint: '__AST_ENDPOINT_ALL_TOPIC',
  deviceState: '__AST_DEVICE_STATE_ALL_TOPIC',
};

/**
 * An application registered by a control connection. Subscriptions are counted (SPEC §3): every
 * subscribe adds one, every unsubscribe removes one, and events stop only at zero.
 */
export class Application {
  readonly name: string;
  sink: ApplicationSink;
  subscribeAll: boolean;
  readonly #subscriptions: Record<EventSourceKind, Map<string, number>> = {
    channel: new Map(),
    bridge: new Map(),
    endpoint: new Map(),
    deviceState: new Map(),
  };
  #allowed: string[] = [];
  #disallowed: string[] = [];

  constructor(name: string, sink: ApplicationSink, subscribeAll: boolean) {
    this.name = name;
    this.sink = sink;
    this.subscribeAll = subscribeAll;
  }

  /** `id` empty means every resource of the kind. */
  subscribe(kind: EventSourceKind, id: string): void {
    const map = this.#subscriptions[kind];
    map.set(id, (map.get(id) ?? 0) + 1);
  }

  /** Returns false when the application was not subscribed to that source. */
  unsubscribe(kind: EventSourceKind, id: string): boolean {
    const map = this.#subscriptions[kind];
    const count = map.get(id);
    if (count === undefined) return false;
    if (count <= 1) map.delete(id);
    else map.set(id, count - 1);
    return true;
  }

  /** Drops a source whatever its count (the resource is gone). */
  forget(kind: EventSourceKind, id: string): void {
    this.#subscriptions[kind].delete(id);
  }

  isSubscribed(kind: EventSourceKind, id: string): boolean {
    const map = this.#subscriptions[kind];
    return this.subscribeAll || map.has('') || map.has(id);
  }

  /** Subscribed to exactly this id (not through "all" or subscribeAll). */
  hasExactSubscription(kind: EventSourceKind, id: string): boolean {
    return this.#subscriptions[kind].has(id);
  }

  setEventFilter(allowed: string[] | undefined, disallowed: string[] | undefined): void {
    if (allowed !== undefined) this.#allowed = [...new Set(allowed)];
    if (disallowed !== undefined) this.#disallowed = [...new Set(disallowed)];
  }

  /** The deny list wins over the allow list; an empty allow list allows everything. */
  passesFilter(eventType: string): boolean {
    if (this.#disallowed.includes(eventType)) return false;
    return this.#allowed.length === 0 || this.#allowed.includes(eventType);
  }

  snapshot(): ApplicationSnapshot {
    const ids = (kind: EventSourceKind) => [...this.#subscriptions[kind].keys()].map((id) => (id === '' ? ALL_SOURCES_MARKER[kind] : id));
    return {
      name: this.name,
      channel_ids: ids('channel'),
      bridge_ids: ids('bridge'),
      endpoint_ids: ids('endpoint'),
      device_names: ids('deviceState'),
      events_allowed: this.#allowed.map((type) => ({ type })),
      events_disallowed: this.#disallowed.map((type) => ({ type })),
    };
  }
}
