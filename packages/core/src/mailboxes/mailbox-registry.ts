/**
 * Mailboxes controlled through the API (SPEC §4.10, reference mailboxes.md): message counts kept in
 * the store, announced to listeners (the SIP driver turns them into MWI NOTIFYs). They have an
 * effect only while the external-mailbox module is loaded: without it reads show no mailbox (empty
 * list, 404) and writes are refused with 409; the stored counts come back when it is loaded again.
 */
import { conflict, CoreError, invalidArgument, notFound } from '../errors.js';
import type { MailboxSnapshot } from '../model/snapshots.js';
import type { MailboxRecord, MailboxStore } from '../store/types.js';
import type { Logger } from '../util/logger.js';

/** The module that provides API-controlled mailboxes (the reference's `res_mwi_external`). */
export const MAILBOX_MODULE = 'res_mwi_external';

/**
 * Told about every change of a mailbox: its new counts, or `undefined` when it was deleted (a
 * phone should then see no waiting messages).
 */
export type MailboxListener = (name: string, mailbox: MailboxSnapshot | undefined) => void;

export interface MailboxRegistryOptions {
  store: MailboxStore | undefined;
  /** Whether the external-mailbox module is loaded now. */
  enabled: () => boolean;
  log: Logger;
}

export class MailboxRegistry {
  readonly #store: MailboxStore | undefined;
  readonly #enabled: () => boolean;
  readonly #log: Logger;
  readonly #listeners = new Set<MailboxListener>();

  constructor(options: MailboxRegistryOptions) {
    this.#store = options.store;
    this.#enabled = options.enabled;
    this.#log = options.log;
    // A store shared by a cluster tells of other nodes' changes: message-waiting is cluster-wide.
    options.store?.onRemoteChange?.((name, record) => {
      if (this.#enabled()) this.#announce(name, record && toSnapshot(record));
    });
  }

  /** The hook the SIP driver uses for MWI; returns the function that removes it. */
  onMailboxChanged(listener: MailboxListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  get listenerCount(): number {
    return this.#listeners.size;
  }

  async list(): Promise<MailboxSnapshot[]> {
    if (!this.#enabled()) return [];
    return (await this.#requireStore().all()).map(toSnapshot);
  }

  /** Reads work for whoever needs the counts (a phone subscribing to MWI). */
  async get(name: string): Promise<MailboxSnapshot> {
    if (!this.#enabled()) throw notFound('Mailbox not found');
    const record = await this.#requireStore().get(name);
    if (!record) throw notFound('Mailbox not found');
    return toSnapshot(record);
  }

  async update(name: string, oldMessages: number, newMessages: number): Promise<void> {
    this.#assertEnabled();
    if (!isCount(oldMessages) || !isCount(newMessages)) throw invalidArgument('Message counts must be integers of at least 0');
    await this.#requireStore().set({ name, oldMessages, newMessages });
    this.#announce(name, { name, old_messages: oldMessages, new_messages: newMessages });
  }

  async delete(name: string): Promise<void> {
    this.#assertEnabled();
    if (!(await this.#requireStore().delete(name))) throw notFound('Mailbox not found');
    this.#announce(name, undefined);
  }

  /** Announces every stored mailbox again (the module was loaded or reloaded). */
  async announceAll(): Promise<void> {
    if (!this.#store) return;
    for (const record of await this.#store.all()) this.#announce(record.name, toSnapshot(record));
  }

  #assertEnabled(): void {
    if (!this.#enabled()) throw conflict(`Mailboxes are unavailable: module ${MAILBOX_MODULE} is not loaded`);
  }

  #announce(name: string, mailbox: MailboxSnapshot | undefined): void {
    for (const listener of this.#listeners) {
      try {
        listener(name, mailbox);
      } catch (err) {
        this.#log.error({ err, mailbox: name }, 'mailbox listener failed');
      }
    }
  }

  #requireStore(): MailboxStore {
    if (!this.#store) throw new CoreError('unavailable', 'Mailbox storage is not configured');
    return this.#store;
  }
}

function isCount(n: number): boolean {
  return Number.isSafeInteger(n) && n >= 0;
}

function toSnapshot(record: MailboxRecord): MailboxSnapshot {
  return { name: record.name, old_messages: record.oldMessages, new_messages: record.newMessages };
}
