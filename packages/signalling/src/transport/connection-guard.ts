/**
 * Limits that keep connection-oriented SIP transports (TCP, TLS, WS, WSS) from being exhausted by
 * clients that connect and then say nothing, or say it very slowly:
 * - ConnectionCounter: connections accepted per source address are capped;
 * - ConnectionDeadlines: a connection is closed after an idle period, which is short until the
 *   connection has carried a 2xx response from us (so a peer that never got anything done
 *   through it cannot hold it for long), and a message once begun must be complete within a
 *   deadline (a client dripping a header byte by byte).
 * Timers run on an injected clock; one timer per connection is re-armed lazily, so traffic does
 * not cost a timer operation per chunk.
 */
import type { Clock } from '@switchboard/core';

export interface StreamConnectionLimits {
  /** Connections accepted at once from one address (pjsip.conf transport `max_connections_per_address`). */
  maxConnectionsPerAddress: number;
  /** Idle time allowed once the connection has carried a 2xx response (`idle_timeout`). */
  idleTimeoutMs: number;
  /** Idle time allowed before that (`unauthenticated_idle_timeout`). */
  unauthenticatedIdleTimeoutMs: number;
  /** Time allowed to complete a message once its first bytes arrived (`header_timeout`). */
  messageTimeoutMs: number;
}

export const DEFAULT_STREAM_CONNECTION_LIMITS: Readonly<StreamConnectionLimits> = Object.freeze({
  maxConnectionsPerAddress: 32,
  idleTimeoutMs: 15 * 60_000,
  unauthenticatedIdleTimeoutMs: 60_000,
  messageTimeoutMs: 10_000,
});

export class ConnectionCounter {
  readonly #max: number;
  readonly #open = new Map<string, number>();

  constructor(maxPerAddress: number) {
    this.#max = maxPerAddress;
  }

  /** Counts a new connection from `address`; false (and nothing counted) when it is over the cap. */
  tryOpen(address: string): boolean {
    const count = (this.#open.get(address) ?? 0) + 1;
    if (count > this.#max) return false;
    this.#open.set(address, count);
    return true;
  }

  close(address: string): void {
    const left = (this.#open.get(address) ?? 1) - 1;
    if (left <= 0) this.#open.delete(address);
    else this.#open.set(address, left);
  }

  countFor(address: string): number {
    return this.#open.get(address) ?? 0;
  }
}

export type DeadlineReason = 'idle' | 'message-timeout';

export class ConnectionDeadlines {
  readonly #limits: StreamConnectionLimits;
  readonly #clock: Clock;
  readonly #expire: (reason: DeadlineReason) => void;
  #trusted: boolean;
  #lastActivity: number;
  /** When the message now being received began, if one is incomplete. */
  #messageStarted: number | undefined;
  #timer: unknown;
  #stopped = false;

  constructor(limits: StreamConnectionLimits, clock: Clock, expire: (reason: DeadlineReason) => void, trusted = false) {
    this.#limits = limits;
    this.#clock = clock;
    this.#expire = expire;
    this.#trusted = trusted;
    this.#lastActivity = clock.now();
    this.#arm();
  }

  get trusted(): boolean {
    return this.#trusted;
  }

  /** Bytes arrived; `partial` says whether an incomplete message is now buffered. */
  received(partial: boolean): void {
    const now = this.#clock.now();
    this.#lastActivity = now;
    if (!partial) this.#messageStarted = undefined;
    else this.#messageStarted ??= now;
    if (partial) this.#arm();
  }

  /** A message was sent on the connection (activity too). */
  sent(): void {
    this.#lastActivity = this.#clock.now();
  }

  /** The connection carried a 2xx response from us: the long idle limit applies from now on. */
  trust(): void {
    this.#trusted = true;
  }

  stop(): void {
    this.#stopped = true;
    if (this.#timer !== undefined) this.#clock.clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  /** The next moment a limit could be reached. */
  #due(): { at: number; reason: DeadlineReason } {
    const idle = this.#trusted ? this.#limits.idleTimeoutMs : this.#limits.unauthenticatedIdleTimeoutMs;
    const idleAt = this.#lastActivity + idle;
    if (this.#messageStarted !== undefined) {
      const messageAt = this.#messageStarted + this.#limits.messageTimeoutMs;
      if (messageAt < idleAt) return { at: messageAt, reason: 'message-timeout' };
    }
    return { at: idleAt, reason: 'idle' };
  }

  #arm(): void {
    if (this.#stopped) return;
    if (this.#timer !== undefined) this.#clock.clearTimeout(this.#timer);
    const { at } = this.#due();
    this.#timer = this.#clock.setTimeout(() => this.#check(), Math.max(0, at - this.#clock.now()));
  }

  #check(): void {
    this.#timer = undefined;
    if (this.#stopped) return;
    const { at, reason } = this.#due();
    if (this.#clock.now() >= at) {
      this.stop();
      this.#expire(reason);
      return;
    }
    this.#arm();
  }
}
