import type { Logger } from '../util/logger.js';
import { silentLogger } from '../util/logger.js';
import type { DomainEvent, TimedDomainEvent } from './domain-events.js';

export type DomainEventListener = (event: TimedDomainEvent) => void;

/**
 * Synchronous in-process fan-out. It is narrow on purpose: a multi-node deployment replaces it
 * with a broker-backed bus of the same shape. One listener's exception never reaches the others.
 */
export class EventBus {
  readonly #listeners = new Set<DomainEventListener>();
  readonly #log: Logger;

  constructor(log: Logger = silentLogger) {
    this.#log = log;
  }

  publish(event: DomainEvent): void {
    const timed = { ...event, timestamp: new Date() } as TimedDomainEvent;
    for (const listener of this.#listeners) {
      try {
        listener(timed);
      } catch (err) {
        this.#log.error({ err, eventType: event.type }, 'event listener failed');
      }
    }
  }

  subscribe(listener: DomainEventListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}
