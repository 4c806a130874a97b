/**
 * Store latency: every repository method of the store is timed as it is called, by repository
 * and operation (`contacts`/`put`), whatever backend implements it. The wrapped store is what the
 * server hands to core and signalling, so no caller changes.
 */
import type { Store } from '@switchboard/core';
import { Histogram, type Registry } from 'prom-client';

const REPOSITORIES = ['globals', 'deviceStates', 'mailboxes', 'contacts', 'cdr', 'configObjects', 'astdb'] as const;

export function timedStore(store: Store, registry: Registry): Store {
  const latency = new Histogram({
    name: 'switchboard_store_operation_seconds',
    help: 'Store operation latency by repository and operation',
    labelNames: ['repository', 'operation'],
    buckets: [0.0001, 0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1],
    registers: [registry],
  });
  const wrap = <T extends object>(repository: string, target: T): T =>
    new Proxy(target, {
      get(object, property, receiver) {
        const value: unknown = Reflect.get(object, property, receiver);
        if (typeof value !== 'function' || typeof property !== 'string') return value;
        return (...args: unknown[]) => {
          const end = latency.startTimer({ repository, operation: property });
          const result: unknown = (value as (...a: unknown[]) => unknown).apply(object, args);
          if (result instanceof Promise) return result.finally(() => end());
          end();
          return result;
        };
      },
    });
  const timed = Object.create(store) as Store;
  for (const name of REPOSITORIES) Object.defineProperty(timed, name, { value: wrap(name, store[name]), enumerable: true });
  Object.defineProperty(timed, 'close', { value: () => store.close() });
  return timed;
}
