/**
 * User events (SPEC §4.2, reference events.md userEvent): an application asks the server to send
 * a ChannelUserevent to one application, optionally about a channel, a bridge and an endpoint.
 * Device states are not event sources here, as in the reference implementation (400).
 */
import type { ApplicationRegistry } from '../apps/application-registry.js';
import { invalidArgument, unprocessable } from '../errors.js';
import type { EventBus } from '../events/event-bus.js';
import type { BridgeSnapshot, ChannelSnapshot, EndpointSnapshot } from '../model/snapshots.js';
import { type EventSources, parseEventSource } from './event-sources.js';

export class UserEventService {
  readonly #bus: EventBus;
  readonly #applications: ApplicationRegistry;
  readonly #sources: EventSources;

  constructor(bus: EventBus, applications: ApplicationRegistry, sources: EventSources) {
    this.#bus = bus;
    this.#applications = applications;
    this.#sources = sources;
  }

  send(application: string, eventName: string, references: readonly string[], variables: Record<string, unknown>): void {
    this.#applications.require(application);
    let channel: ChannelSnapshot | undefined;
    let bridge: BridgeSnapshot | undefined;
    let endpoint: EndpointSnapshot | undefined;
    for (const ref of references.map(parseEventSource)) {
      if (ref.id === '') throw invalidArgument(`A user event source needs an id: ${ref.kind}:`);
      switch (ref.kind) {
        case 'channel':
          channel = this.#sources.channel(ref.id);
          if (!channel) throw unprocessable(`Channel ${ref.id} not found`);
          break;
        case 'bridge':
          bridge = this.#sources.bridge(ref.id);
          if (!bridge) throw unprocessable(`Bridge ${ref.id} not found`);
          break;
        case 'endpoint':
          endpoint = this.#sources.endpoint(ref.id);
          if (!endpoint) throw unprocessable(`Endpoint ${ref.id} not found`);
          break;
        case 'deviceState':
          throw invalidArgument('Device states cannot be user event sources');
      }
    }
    this.#bus.publish({
      type: 'ChannelUserevent',
      application,
      eventname: eventName,
      userevent: { ...variables, eventname: eventName },
      ...(channel ? { channel } : {}),
      ...(bridge ? { bridge } : {}),
      ...(endpoint ? { endpoint } : {}),
    });
  }
}
