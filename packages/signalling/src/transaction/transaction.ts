/**
 * What the four transaction state machines share: the state, one transition table per kind,
 * one `transition()` that refuses a move the table does not allow, and the named timers, which
 * run on an injected clock and are all cancelled when the transaction terminates.
 */
import { transactionStats } from './transaction-stats.js';
import type { Clock, Logger } from '@switchboard/core';
import type { Transport } from '../transport/transport.js';
import { TIMER_NAMES, type TimerName } from './timers.js';

export type TransactionKind = 'invite-client' | 'non-invite-client' | 'invite-server' | 'non-invite-server';

export interface TransactionEnvironment {
  clock: Clock;
  logger: Logger;
  /** Called once when the transaction reaches Terminated, so its owner can forget it. */
  onTerminated(transaction: Transaction<string>): void;
  /**
   * Runs a callback once the sockets have been read (`setImmediate` in the server). Without it,
   * retransmission timers act at once (tests on a fake clock).
   */
  afterPendingIo?(fn: () => void): void;
  /** Called on every state change (the layer counts INVITEs still in Proceeding). */
  onStateChange?(transaction: Transaction<string>, from: string, to: string): void;
}

export abstract class Transaction<S extends string> {
  abstract readonly kind: TransactionKind;
  readonly id: string;
  readonly transport: Transport;
  protected readonly env: TransactionEnvironment;
  protected abstract readonly transitions: Readonly<Record<S, readonly S[]>>;
  #state: S;
  /**
   * The running timers' handles, one field per timer name. Not a Map: a transaction outlives its call
   * by 5 to 32 s (Timers I, J, K, L), and a Map whose entries come and go reallocates its hash table on
   * the way, garbage the young-generation collector copies for that long (bench/README.md).
   */
  readonly #timers: Record<TimerName, unknown> = noTimers();

  constructor(id: string, transport: Transport, initial: S, env: TransactionEnvironment) {
    this.id = id;
    this.transport = transport;
    this.#state = initial;
    this.env = env;
  }

  get state(): S {
    return this.#state;
  }

  get terminated(): boolean {
    return this.#state === 'terminated';
  }

  protected transition(to: S): void {
    const from = this.#state;
    if (!this.transitions[from].includes(to)) {
      throw new Error(`${this.kind} transaction ${this.id}: illegal transition ${from} -> ${to}`);
    }
    this.#state = to;
    this.env.logger.trace({ transaction: this.id, kind: this.kind, from, to }, 'transaction state');
    this.env.onStateChange?.(this, from, to);
    if (to === 'terminated') {
      for (const name of TIMER_NAMES) this.stopTimer(name);
      this.env.onTerminated(this);
    }
  }

  protected startTimer(name: TimerName, ms: number, fire: () => void): void {
    this.stopTimer(name);
    const handle = this.env.clock.setTimeout(() => {
      this.#timers[name] = undefined;
      if (!this.terminated) fire();
    }, ms);
    this.#timers[name] = handle;
  }

  /**
   * A retransmission timer. After a pause of the event loop, expired timers run before the sockets
   * are read, so the response (or ACK) that makes the retransmission pointless may already be
   * waiting; the retransmission therefore waits for pending input to be handled first, and `fire`
   * must check that it is still wanted.
   */
  protected startRetransmitTimer(name: TimerName, ms: number, fire: () => void): void {
    this.startTimer(name, ms, () => {
      transactionStats.retransmissionsSent += 1;
      const defer = this.env.afterPendingIo;
      if (defer === undefined) fire();
      else defer(() => !this.terminated && fire());
    });
  }

  protected stopTimer(name: TimerName): void {
    const handle = this.#timers[name];
    if (handle !== undefined) {
      this.env.clock.clearTimeout(handle);
      this.#timers[name] = undefined;
    }
  }

  protected hasTimer(name: TimerName): boolean {
    return this.#timers[name] !== undefined;
  }

  /** Watches a send; a failure is reported through `onTransportError` (RFC 3261 §17.1.4, §17.2.4). */
  protected transmit(sending: Promise<void>): void {
    sending.catch((err: unknown) => {
      if (!this.terminated) this.onTransportError(err);
    });
  }

  /** RFC 3261 §17.1.4 / §17.2.4: a transport failure terminates the transaction and informs the TU. */
  protected abstract onTransportError(err: unknown): void;

  /** Ends the transaction at once (the owner is shutting down). No TU callback follows. */
  abort(): void {
    if (!this.terminated) this.transition('terminated' as S);
  }
}

/** Every timer stopped: all fields present from the start, so the object keeps one shape. */
function noTimers(): Record<TimerName, unknown> {
  return {
    A: undefined,
    B: undefined,
    D: undefined,
    E: undefined,
    F: undefined,
    G: undefined,
    H: undefined,
    I: undefined,
    J: undefined,
    K: undefined,
    L: undefined,
    M: undefined,
  };
}
