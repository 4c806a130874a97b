/**
 * A node's copy of the subscriptions applications made through the API, as the cluster shares them
 * (store ApplicationSubscriptionStore): the count of each (application, kind, source), kept current
 * by the store's notifications, and applied to the Application objects of this node.
 */
import type { SharedSubscription, SharedSubscriptionKind } from '../store/types.js';
import type { Application } from './application.js';

const key = (kind: SharedSubscriptionKind, source: string) => `${kind}\n${source}`;

function splitKey(text: string): [SharedSubscriptionKind, string] {
  const newline = text.indexOf('\n');
  return [text.slice(0, newline) as SharedSubscriptionKind, text.slice(newline + 1)];
}

export class SharedSubscriptions {
  readonly #counts = new Map<string, Map<string, number>>();

  /** Records a count; returns the one it replaces (0 when there was none). */
  set(subscription: SharedSubscription): number {
    let counts = this.#counts.get(subscription.application);
    const k = key(subscription.kind, subscription.source);
    const previous = counts?.get(k) ?? 0;
    if (subscription.count > 0) {
      if (!counts) {
        counts = new Map();
        this.#counts.set(subscription.application, counts);
      }
      counts.set(k, subscription.count);
    } else if (counts) {
      counts.delete(k);
      if (counts.size === 0) this.#counts.delete(subscription.application);
    }
    return previous;
  }

  has(application: string): boolean {
    return this.#counts.has(application);
  }

  /** Whether any application subscribed to the source (a channel or bridge that ends). */
  anyTo(kind: SharedSubscriptionKind, source: string): boolean {
    const k = key(kind, source);
    for (const counts of this.#counts.values()) if (counts.has(k)) return true;
    return false;
  }

  /** Gives a new Application object of `application` every shared subscription. */
  applyAll(application: string, app: Application): void {
    for (const [k, count] of this.#counts.get(application) ?? []) {
      const [kind, source] = splitKey(k);
      applyDelta(app, { application, kind, source, count }, 0);
    }
  }
}

/** Brings an Application from `previous` subscriptions of a source to `subscription.count`. */
export function applyDelta(app: Application, subscription: SharedSubscription, previous: number): void {
  const { kind, source, count } = subscription;
  if (kind === 'all') {
    app.subscribeAll = count > 0;
    return;
  }
  for (let n = previous; n < count; n += 1) app.subscribe(kind, source);
  for (let n = count; n < previous; n += 1) app.unsubscribe(kind, source);
}
