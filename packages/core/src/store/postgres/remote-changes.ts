/**
 * Device state and mailbox changes told to the other nodes sharing a PostgreSQL store, so busy
 * lamps and message-waiting lights are cluster-wide; and application names claimed by a node. Each write carries a `pg_notify` on
 * STATE_CHANNEL in the same statement; every node's listener hands other nodes' changes to the
 * registries (a node already announced its own).
 */
import type { Logger } from '../../util/logger.js';
import type { DeviceStateRecord, MailboxRecord } from '../types.js';

export const STATE_CHANNEL = 'switchboard_state';

const MAX_ENDPOINT_SEQS = 100_000;

export type RemoteChange =
  | { kind: 'device'; name: string; record?: DeviceStateRecord }
  | { kind: 'mailbox'; name: string; record?: MailboxRecord }
  | { kind: 'application'; name: string; seq: number }
  /** The state a node derives for one of its endpoint devices from its own channels. */
  | { kind: 'endpoint'; name: string; state: string };

/** Told with the announcing node's id, so a merge keeps one value per node. */
export type RemoteEndpointListener = (nodeId: string, name: string, state: string) => void;

type Listener<T> = (name: string, record: T | undefined) => void;

export class RemoteChanges {
  readonly #nodeId: string;
  readonly #log: Logger;
  readonly #device = new Set<Listener<DeviceStateRecord>>();
  readonly #mailbox = new Set<Listener<MailboxRecord>>();
  readonly #application = new Set<(name: string, seq: number) => void>();
  readonly #endpoint = new Set<RemoteEndpointListener>();
  /** Numbers this node's notifications, so a receiver can tell an old one from a new one. */
  #sent = 0;
  /**
   * The newest endpoint announcement heard per node and device. Announcements go out on pooled
   * connections, so two sent 10 ms apart may arrive in either order: a call's RINGING overtook its
   * INUSE and left another node showing the lamp ringing for the whole call.
   */
  readonly #endpointSeq = new Map<string, number>();

  constructor(nodeId: string, log: Logger) {
    this.#nodeId = nodeId;
    this.#log = log;
  }

  /** The `pg_notify` payload of a change this node makes. */
  payload(change: RemoteChange): string {
    this.#sent += 1;
    return JSON.stringify({ n: this.#nodeId, s: this.#sent, c: change });
  }

  onDevice(listener: Listener<DeviceStateRecord>): () => void {
    this.#device.add(listener);
    return () => this.#device.delete(listener);
  }

  onMailbox(listener: Listener<MailboxRecord>): () => void {
    this.#mailbox.add(listener);
    return () => this.#mailbox.delete(listener);
  }

  onApplication(listener: (name: string, seq: number) => void): () => void {
    this.#application.add(listener);
    return () => this.#application.delete(listener);
  }

  onEndpoint(listener: RemoteEndpointListener): () => void {
    this.#endpoint.add(listener);
    return () => this.#endpoint.delete(listener);
  }

  receive(payload: string | undefined): void {
    let parsed: { n?: string; s?: number; c?: RemoteChange };
    try {
      parsed = JSON.parse(payload ?? '') as { n?: string; s?: number; c?: RemoteChange };
    } catch {
      this.#log.warn({ payload }, 'ignored a state notification that is not JSON');
      return;
    }
    const change = parsed.c;
    if (!change || parsed.n === this.#nodeId || typeof change.name !== 'string') return;
    if (change.kind === 'application') {
      for (const listener of this.#application) listener(change.name, Number(change.seq));
      return;
    }
    if (change.kind === 'endpoint') {
      if (typeof change.state !== 'string' || typeof parsed.n !== 'string') return;
      if (typeof parsed.s === 'number') {
        const key = `${parsed.n}\n${change.name}`;
        if (parsed.s <= (this.#endpointSeq.get(key) ?? 0)) return;
        // Nodes restart under new ids: a bound keeps the ids of long-gone nodes from piling up.
        if (this.#endpointSeq.size >= MAX_ENDPOINT_SEQS) this.#endpointSeq.clear();
        this.#endpointSeq.set(key, parsed.s);
      }
      for (const listener of this.#endpoint) listener(parsed.n, change.name, change.state);
      return;
    }
    const listeners: Set<Listener<never>> = change.kind === 'device' ? this.#device : this.#mailbox;
    for (const listener of listeners) {
      try {
        (listener as Listener<DeviceStateRecord | MailboxRecord>)(change.name, change.record);
      } catch (err) {
        this.#log.error({ err, change }, 'state change listener failed');
      }
    }
  }
}
