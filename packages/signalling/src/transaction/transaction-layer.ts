/**
 * The transaction layer (RFC 3261 §17): it sits on the transports, matches every message to a
 * transaction, creates server transactions for new requests, and hands the transaction user
 * only what it must see. Retransmitted requests never reach the TU.
 */
import type { Clock, Logger } from '@switchboard/core';
import type { SipRequest, SipResponse } from '../message/sip-message.js';
import type { IncomingContext, PeerAddress, Transport, TransportDelegate } from '../transport/transport.js';
import { InviteClientTransaction } from './invite-client.js';
import { InviteServerTransaction } from './invite-server.js';
import { clientTransactionKey, responseClientKey, serverTransactionKey } from './keys.js';
import { NonInviteClientTransaction } from './non-invite-client.js';
import { NonInviteServerTransaction } from './non-invite-server.js';
import type { Transaction, TransactionEnvironment } from './transaction.js';
import type { ClientTransactionUser } from './transaction-user.js';

export type ServerTransaction = InviteServerTransaction | NonInviteServerTransaction;
export type ClientTransaction = InviteClientTransaction | NonInviteClientTransaction;

export interface TransactionLayerUser {
  /**
   * A request that is not a retransmission. It comes with its new server transaction, except an
   * ACK that matched none (the ACK for a 2xx, RFC 3261 §17.1.1.3 / §13.3.1.4), which comes alone.
   */
  onRequest(request: SipRequest, context: IncomingContext, transaction: ServerTransaction | undefined): void;
  /** A response that matched no client transaction (RFC 3261 §18.1.2: handed to the core). */
  onStrayResponse(response: SipResponse, context: IncomingContext): void;
}

export interface TransactionLayerOptions {
  clock: Clock;
  logger: Logger;
}

export class TransactionLayer implements TransportDelegate {
  user: TransactionLayerUser | undefined;
  readonly #servers = new Map<string, ServerTransaction>();
  readonly #clients = new Map<string, ClientTransaction>();
  readonly #log: Logger;
  readonly #env: TransactionEnvironment;

  constructor(options: TransactionLayerOptions) {
    this.#log = options.logger;
    this.#env = {
      clock: options.clock,
      logger: options.logger,
      onTerminated: (transaction: Transaction<string>) => this.#forget(transaction),
    };
  }

  get serverTransactionCount(): number {
    return this.#servers.size;
  }

  get clientTransactionCount(): number {
    return this.#clients.size;
  }

  onRequest(request: SipRequest, context: IncomingContext): void {
    const key = serverTransactionKey(request);
    const existing = this.#servers.get(key);
    if (existing !== undefined) {
      this.#log.trace({ transaction: key, method: request.method }, 'request matched a transaction');
      if (request.method === 'ACK' && existing.state === 'accepted') {
        // Only an RFC 2543 peer (no branch cookie) can match an ACK for a 2xx to the INVITE
        // transaction; that ACK belongs to the TU (RFC 3261 §13.3.1.4, RFC 6026 §7.1).
        this.user?.onRequest(request, context, undefined);
        return;
      }
      existing.receiveRequest(request);
      return;
    }
    if (request.method === 'ACK') {
      this.user?.onRequest(request, context, undefined);
      return;
    }
    const transaction =
      request.method === 'INVITE'
        ? new InviteServerTransaction(key, request, context.transport, this.#env)
        : new NonInviteServerTransaction(key, request, context.transport, this.#env);
    this.#servers.set(key, transaction);
    if (this.user === undefined) {
      this.#log.debug({ method: request.method }, 'request without a transaction user dropped');
      return;
    }
    this.user.onRequest(request, context, transaction);
  }

  onResponse(response: SipResponse, context: IncomingContext): void {
    const key = responseClientKey(response);
    const transaction = key === undefined ? undefined : this.#clients.get(key);
    if (transaction !== undefined) {
      transaction.receiveResponse(response);
      return;
    }
    this.user?.onStrayResponse(response, context);
  }

  /**
   * Starts a client transaction for a request whose top Via already carries a fresh branch
   * (RFC 3261 §8.1.1.7). The request is sent at once.
   */
  sendRequest(request: SipRequest, transport: Transport, destination: PeerAddress, user: ClientTransactionUser): ClientTransaction {
    const branch = request.topVia.branch;
    if (branch === undefined) throw new Error('a client request needs a branch in its top Via');
    const key = clientTransactionKey(branch, request.method);
    const transaction =
      request.method === 'INVITE'
        ? new InviteClientTransaction(key, request, transport, destination, user, this.#env)
        : new NonInviteClientTransaction(key, request, transport, destination, user, this.#env);
    this.#clients.set(key, transaction);
    transaction.start();
    return transaction;
  }

  /** The INVITE server transaction a CANCEL refers to (RFC 3261 §9.2), if it still exists. */
  findInviteTransaction(cancel: SipRequest): InviteServerTransaction | undefined {
    const transaction = this.#servers.get(serverTransactionKey(cancel, 'INVITE'));
    return transaction?.kind === 'invite-server' ? transaction : undefined;
  }

  /** Terminates every transaction without further sends (shutdown). */
  close(): void {
    for (const transaction of [...this.#servers.values(), ...this.#clients.values()]) transaction.abort();
    this.#servers.clear();
    this.#clients.clear();
  }

  #forget(transaction: Transaction<string>): void {
    if (transaction.kind === 'invite-server' || transaction.kind === 'non-invite-server') {
      if (this.#servers.get(transaction.id) === transaction) this.#servers.delete(transaction.id);
    } else if (this.#clients.get(transaction.id) === transaction) {
      this.#clients.delete(transaction.id);
    }
  }
}
