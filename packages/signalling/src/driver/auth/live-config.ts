/**
 * The driver's SIP objects as they change at run time (dynamic configuration, `module reload
 * res_pjsip`). One mutable SipConfig and one endpoint map are shared by every part of the driver;
 * `apply` replaces their contents in place, so a part that looks objects up per request sees the
 * new ones at once, and parts that index objects up front are rebuilt through `onChange`. Calls
 * in progress keep the endpoint objects they started with: objects are replaced, never edited.
 *
 * Transports and outbound registrations are bound at start and stay as they are until a restart.
 */
import type { SipConfig, SipEndpointConfig } from '@switchboard/core';

export type SipObjectsListener = (config: SipConfig) => void;

export class LiveSipConfig {
  /** Arrays are the driver's own copies: their contents change, the arrays stay. */
  readonly config: SipConfig;
  readonly endpoints = new Map<string, SipEndpointConfig>();
  readonly #listeners: SipObjectsListener[] = [];

  constructor(initial: SipConfig) {
    this.config = {
      ...initial,
      endpoints: [...initial.endpoints],
      aors: [...initial.aors],
      auths: [...initial.auths],
      identifies: [...initial.identifies],
    };
    for (const endpoint of this.config.endpoints) this.endpoints.set(endpoint.name, endpoint);
  }

  onChange(listener: SipObjectsListener): void {
    this.#listeners.push(listener);
  }

  /** Puts `next`'s endpoints, aors, auths and identifies in force; returns what changed, by name. */
  apply(next: SipConfig): { added: string[]; removed: string[]; changed: string[] } {
    const before = new Map(this.config.endpoints.map((e) => [e.name, e]));
    replaceAll(this.config.endpoints, next.endpoints);
    replaceAll(this.config.aors, next.aors);
    replaceAll(this.config.auths, next.auths);
    replaceAll(this.config.identifies, next.identifies);
    this.endpoints.clear();
    for (const endpoint of next.endpoints) this.endpoints.set(endpoint.name, endpoint);
    for (const listener of this.#listeners) listener(this.config);
    const added = next.endpoints.filter((e) => !before.has(e.name)).map((e) => e.name);
    const changed = next.endpoints
      .filter((e) => before.has(e.name) && JSON.stringify(before.get(e.name)) !== JSON.stringify(e))
      .map((e) => e.name);
    const removed = [...before.keys()].filter((name) => !this.endpoints.has(name));
    return { added, removed, changed };
  }
}

function replaceAll<T>(target: T[], items: readonly T[]): void {
  target.splice(0, target.length, ...items);
}
