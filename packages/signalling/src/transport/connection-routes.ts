/**
 * The open connections of a connection-oriented transport (TCP, TLS: stream-transport.ts;
 * WebSocket: ws-transport.ts), kept by the peer's address and port, and the routes that send a
 * response back on the connection its request came in on while it is open (RFC 3261 §18.2.2).
 */
import type { Via } from '../message/via.js';
import type { PeerAddress } from './transport.js';
import { normaliseAddress } from './via-received.js';

/** Requests remembered per connection for response routing; older ones are forgotten first. */
const MAX_VIAS_PER_CONNECTION = 1000;

export interface RoutedConnection {
  key: string;
  remote: PeerAddress;
  /** Via keys of requests that came in on this connection (their responses go back here). */
  vias: Set<string>;
}

export function connectionKey(address: string, port: number): string {
  return `${normaliseAddress(address)}|${port}`;
}

/** A request's top Via as its response will carry it (branch and sent-by do not change). */
function viaKey(via: Via): string {
  return `${via.branch ?? ''}|${via.host}|${via.port ?? ''}`;
}

export class ConnectionTable<C extends RoutedConnection> {
  readonly #connections = new Map<string, C>();
  /** Via key → connection key, for responses (§18.2.2). */
  readonly #viaRoutes = new Map<string, string>();

  get size(): number {
    return this.#connections.size;
  }

  get(key: string): C | undefined {
    return this.#connections.get(key);
  }

  values(): IterableIterator<C> {
    return this.#connections.values();
  }

  add(connection: C): void {
    this.#connections.set(connection.key, connection);
  }

  /** The open connection a response goes back on, when its request came in on one. */
  routeFor(via: Via): C | undefined {
    const key = this.#viaRoutes.get(viaKey(via));
    return key === undefined ? undefined : this.#connections.get(key);
  }

  /** Remembers that a request with this top Via came in on the connection. */
  remember(connection: C, via: Via): void {
    const key = viaKey(via);
    this.#viaRoutes.set(key, connection.key);
    connection.vias.add(key);
    if (connection.vias.size > MAX_VIAS_PER_CONNECTION) {
      const oldest = connection.vias.values().next().value;
      if (oldest !== undefined) {
        connection.vias.delete(oldest);
        if (this.#viaRoutes.get(oldest) === connection.key) this.#viaRoutes.delete(oldest);
      }
    }
  }

  /** A closed connection and its routes are forgotten (a newer connection from the same peer stays). */
  forget(connection: C): void {
    if (this.#connections.get(connection.key) === connection) this.#connections.delete(connection.key);
    for (const via of connection.vias) if (this.#viaRoutes.get(via) === connection.key) this.#viaRoutes.delete(via);
  }

  clear(): void {
    this.#connections.clear();
    this.#viaRoutes.clear();
  }
}
