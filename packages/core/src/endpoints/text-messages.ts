/**
 * Out-of-call text messages (SPEC §2.5, §4.6). A channel driver registers a TextMessageSender for
 * its technology; the API hands it messages addressed `<technology>:<destination>`. Inbound
 * messages come back through `received`, which publishes TextMessageReceived for the applications
 * subscribed to the receiving endpoint (SPEC §6.3 rule 5).
 */
import { invalidArgument, notFound } from '../errors.js';
import type { EventBus } from '../events/event-bus.js';
import type { TextMessageSnapshot } from '../model/snapshots.js';
import type { EndpointRegistry } from './endpoint-registry.js';
import { canonicalTechnology } from './technology.js';

export interface OutboundTextMessage {
  /** The canonical technology the message was routed by (`SIP`). */
  technology: string;
  /** The destination after `<technology>:`, e.g. `alice` or `sip:bob@example.com`. */
  destination: string;
  /** As the application gave it (`pjsip:alice`). */
  to: string;
  from: string;
  body: string;
  /** Technology-specific values; SIP sends them as headers. */
  variables: Record<string, string>;
}

/**
 * Implemented by a channel driver. `send` resolves once the message is handed to the network; it
 * rejects with CoreError `not_found` when the destination cannot be resolved, `invalid_argument`
 * when the message is unusable.
 */
export interface TextMessageSender {
  send(message: OutboundTextMessage): Promise<void>;
}

export interface InboundTextMessage {
  from: string;
  to: string;
  body: string;
  variables?: Record<string, string>;
}

export class TextMessageService {
  readonly #senders = new Map<string, TextMessageSender>();
  readonly #bus: EventBus;
  readonly #endpoints: EndpointRegistry;

  constructor(bus: EventBus, endpoints: EndpointRegistry) {
    this.#bus = bus;
    this.#endpoints = endpoints;
  }

  /** Returns the function that unregisters it (driver shutdown). */
  registerSender(technology: string, sender: TextMessageSender): () => void {
    const tech = canonicalTechnology(technology);
    this.#senders.set(tech, sender);
    return () => {
      if (this.#senders.get(tech) === sender) this.#senders.delete(tech);
    };
  }

  /** `to` is `<technology>:<destination>` (`pjsip:alice`, `sip:sip:bob@host`). */
  async send(message: { to: string; from: string; body: string; variables: Record<string, string> }): Promise<void> {
    const colon = message.to.indexOf(':');
    if (colon <= 0 || colon === message.to.length - 1)
      throw invalidArgument(`'to' must be <technology>:<destination>, got '${message.to}'`);
    const technology = canonicalTechnology(message.to.slice(0, colon));
    const sender = this.#senders.get(technology);
    if (!sender) throw notFound(`No text message support for technology '${message.to.slice(0, colon)}'`);
    await sender.send({ ...message, technology, destination: message.to.slice(colon + 1) });
  }

  /** Called by a driver for a message received from one of our endpoints. */
  received(technology: string, resource: string, message: InboundTextMessage): void {
    const snapshot: TextMessageSnapshot = { from: message.from, to: message.to, body: message.body };
    if (message.variables && Object.keys(message.variables).length > 0) snapshot.variables = { ...message.variables };
    const endpoint = this.#endpoints.get(technology, resource);
    this.#bus.publish(
      endpoint ? { type: 'TextMessageReceived', message: snapshot, endpoint } : { type: 'TextMessageReceived', message: snapshot },
    );
  }
}
