/**
 * Global variables (SPEC §4.3, reference system.md getGlobalVar/setGlobalVar). The dialplan reads
 * them from the core's `globals` map (`${NAME}`); values set through the API are also kept in the
 * store, so they survive a restart and win over extensions.conf `[globals]` after it. Each change
 * is announced as a ChannelVarset without a channel.
 */
import { CoreError, invalidArgument } from '../errors.js';
import type { EventBus } from '../events/event-bus.js';
import type { GlobalVariableStore } from '../store/types.js';

export class GlobalVariables {
  readonly #bus: EventBus;
  readonly #store: GlobalVariableStore | undefined;
  readonly #values: Map<string, string>;

  constructor(bus: EventBus, store: GlobalVariableStore | undefined, values: Map<string, string>) {
    this.#bus = bus;
    this.#store = store;
    this.#values = values;
  }

  /** An unknown variable reads as the empty string (reference: not an error). */
  get(name: string): string {
    if (name === '') throw invalidArgument('Variable name is required');
    return this.#values.get(name) ?? '';
  }

  /** `value` undefined removes the variable. */
  async set(name: string, value: string | undefined): Promise<void> {
    if (name === '') throw invalidArgument('Variable name is required');
    if (!this.#store) throw new CoreError('unavailable', 'Global variable storage is not configured');
    if (value === undefined) {
      await this.#store.delete(name);
      this.#values.delete(name);
    } else {
      await this.#store.set(name, value);
      this.#values.set(name, value);
    }
    this.#bus.publish({ type: 'ChannelVarset', variable: name, value: value ?? '' });
  }

  /** Loads the stored values over those of extensions.conf (startup). */
  async restore(): Promise<void> {
    if (!this.#store) return;
    for (const { name, value } of await this.#store.all()) this.#values.set(name, value);
  }
}
