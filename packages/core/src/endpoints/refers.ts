/**
 * REFER outside a call (reference endpoints.md `refer`, `referToEndpoint`): an application asks a
 * party to call somewhere else. A channel driver registers a ReferSender for its technology; the
 * API hands it requests addressed `<technology>:<destination>` like text messages.
 */
import { invalidArgument, notFound } from '../errors.js';
import { canonicalTechnology } from './technology.js';

export interface OutboundRefer {
  /** The canonical technology the REFER was routed by (`SIP`). */
  technology: string;
  /** The party to refer, after `<technology>:` (`alice`, `sip:bob@host`). */
  destination: string;
  /** The sender identity (an endpoint name or a URI). */
  from: string;
  /** Where the referred party should go: an endpoint name or a URI, optionally `<technology>:`-prefixed. */
  referTo: string;
  /** `referTo` names one of our endpoints: point the Refer-To at this server, not at the endpoint's contact. */
  toSelf: boolean;
  /** Display name written in front of the Refer-To URI. */
  displayName?: string;
  /** Technology-specific values; SIP sends them as headers. */
  variables: Record<string, string>;
}

/** Implemented by a driver; rejects with `not_found` when a party cannot be resolved. */
export interface ReferSender {
  refer(request: OutboundRefer): Promise<void>;
}

export class ReferService {
  readonly #senders = new Map<string, ReferSender>();

  /** Returns the function that unregisters it (driver shutdown). */
  registerSender(technology: string, sender: ReferSender): () => void {
    const tech = canonicalTechnology(technology);
    this.#senders.set(tech, sender);
    return () => {
      if (this.#senders.get(tech) === sender) this.#senders.delete(tech);
    };
  }

  /** `to` is `<technology>:<destination>` (`pjsip:alice`). */
  async refer(request: Omit<OutboundRefer, 'technology' | 'destination'> & { to: string }): Promise<void> {
    const colon = request.to.indexOf(':');
    if (colon <= 0 || colon === request.to.length - 1)
      throw invalidArgument(`'to' must be <technology>:<destination>, got '${request.to}'`);
    if (request.referTo.trim() === '') throw invalidArgument("'refer_to' is required");
    const technology = canonicalTechnology(request.to.slice(0, colon));
    const sender = this.#senders.get(technology);
    if (!sender) throw notFound(`No REFER support for technology '${request.to.slice(0, colon)}'`);
    const { to: _to, ...rest } = request;
    await sender.refer({ ...rest, technology, destination: request.to.slice(colon + 1) });
  }
}
