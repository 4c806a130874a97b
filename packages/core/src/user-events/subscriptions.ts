/**
 * Subscribing applications to event sources over the API (SPEC §4.1, reference applications.md):
 * every reference is checked before any is applied, so a request either subscribes to all its
 * sources or to none. Counting is the Application's (each subscribe adds one, each unsubscribe
 * removes one). In a cluster a channel or bridge may belong to another node (the directory says
 * which), and every subscription is also counted in the store the nodes share, so the owner of the
 * source sends its events to the node serving the application (apps/shared-subscriptions.ts).
 */
import type { Application } from '../apps/application.js';
import type { ApplicationRegistry } from '../apps/application-registry.js';
import type { ClusterView } from '../cluster/object-ownership.js';
import { unprocessable } from '../errors.js';
import { type EventSourceRef, type EventSources, parseEventSource } from './event-sources.js';

export class SubscriptionService {
  readonly #applications: ApplicationRegistry;
  readonly #sources: EventSources;
  readonly #cluster: ClusterView | undefined;

  constructor(applications: ApplicationRegistry, sources: EventSources, cluster?: ClusterView) {
    this.#applications = applications;
    this.#sources = sources;
    this.#cluster = cluster;
  }

  /** Sources of this node only (a source elsewhere in a cluster is 422 here: see subscribeAnywhere). */
  subscribe(application: string, references: readonly string[]): Application {
    const app = this.#applications.require(application);
    const refs = references.map(parseEventSource);
    for (const ref of refs) if (!this.#sources.exists(ref)) throw unprocessable(`Event source ${describe(ref)} does not exist`);
    return this.#apply(
      app,
      refs.map((ref) => ({ ref, node: this.#cluster?.nodeName })),
    );
  }

  /** As subscribe, and a channel or bridge another node of the cluster owns is found there. */
  async subscribeAnywhere(application: string, references: readonly string[]): Promise<Application> {
    const app = this.#applications.require(application);
    const refs = references.map(parseEventSource);
    const owned: { ref: EventSourceRef; node: string | undefined }[] = [];
    for (const ref of refs) {
      if (this.#sources.exists(ref)) {
        owned.push({ ref, node: this.#cluster?.nodeName });
        continue;
      }
      const owner = ref.kind === 'channel' || ref.kind === 'bridge' ? await this.#cluster?.ownerOf(ref.kind, ref.id) : undefined;
      if (!owner) throw unprocessable(`Event source ${describe(ref)} does not exist`);
      owned.push({ ref, node: owner.name });
    }
    return this.#apply(app, owned);
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
    for (const ref of refs) {
      app.unsubscribe(ref.kind, ref.id);
      this.#applications.shareSubscription(app.name, ref.kind, ref.id, -1);
    }
    return app;
  }

  /** `node`: the owner of a channel or bridge source (endpoints and device states are every node's). */
  #apply(app: Application, sources: readonly { ref: EventSourceRef; node: string | undefined }[]): Application {
    for (const { ref, node } of sources) {
      app.subscribe(ref.kind, ref.id);
      const owner = ref.kind === 'channel' || ref.kind === 'bridge' ? node : undefined;
      this.#applications.shareSubscription(app.name, ref.kind, ref.id, 1, owner);
    }
    return app;
  }
}

const describe = (ref: EventSourceRef) => `${ref.kind}:${ref.id}`;
