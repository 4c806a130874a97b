/**
 * Subscribing applications to event sources over the API (SPEC §4.1, reference applications.md):
 * every reference is checked before any is applied, so a request either subscribes to all its
 * sources or to none. Counting is the Application's (each subscribe adds one, each unsubscribe
 * removes one).
 */
import type { Application } from '../apps/application.js';
import type { ApplicationRegistry } from '../apps/application-registry.js';
import { unprocessable } from '../errors.js';
import { type EventSourceRef, type EventSources, parseEventSource } from './event-sources.js';

export class SubscriptionService {
  readonly #applications: ApplicationRegistry;
  readonly #sources: EventSources;

  constructor(applications: ApplicationRegistry, sources: EventSources) {
    this.#applications = applications;
    this.#sources = sources;
  }

  subscribe(application: string, references: readonly string[]): Application {
    const app = this.#applications.require(application);
    const refs = references.map(parseEventSource);
    for (const ref of refs) if (!this.#sources.exists(ref)) throw unprocessable(`Event source ${describe(ref)} does not exist`);
    for (const ref of refs) app.subscribe(ref.kind, ref.id);
    return app;
  }

  /** 422 for a source that does not exist or that the application is not subscribed to. */
  unsubscribe(application: string, references: readonly string[]): Application {
    const app = this.#applications.require(application);
    const refs = references.map(parseEventSource);
    for (const ref of refs) {
      if (!this.#sources.exists(ref) && !app.hasExactSubscription(ref.kind, ref.id))
        throw unprocessable(`Event source ${describe(ref)} does not exist`);
      if (!app.hasExactSubscription(ref.kind, ref.id)) throw unprocessable(`Application is not subscribed to ${describe(ref)}`);
    }
    for (const ref of refs) app.unsubscribe(ref.kind, ref.id);
    return app;
  }
}

const describe = (ref: EventSourceRef) => `${ref.kind}:${ref.id}`;
