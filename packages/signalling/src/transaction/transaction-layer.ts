/**
 * The transaction layer (RFC 3261 §17): it sits on the transports, matches every message to a
 * transaction, creates server transactions for new requests, and hands the transaction user
 * only what it must see. Retransmitted requests never reach the TU.
 */
import { detachedText } from '../message/detached-text.js';
import { registerTransactionCounts, transactionStats } from './transaction-stats.js';
import { type Clock, type Logger, SampledLog } from '@switchboard/core';
import { SipParseError } from '../errors.js';
import { createResponse } from '../message/builders.js';
import { newTag } from '../message/ids.js';
import type { SipRequest, SipResponse } from '../message/sip-message.js';
import type { IncomingContext, PeerAddress, Transport, TransportDelegate } from '../transport/transport.js';
import { InviteClientTransaction } from './invite-client.js';
import { InviteServerTransaction } from './invite-server.js';
import { clientTransactionKey, responseClientKey, serverTransactionKey } from './keys.js';
import { NonInviteClientTransaction } from './non-invite-client.js';
import { NonInviteServerTransaction } from './non-invite-server.js';
import { LoopLagSampler, OverloadControl, type OverloadLimits } from './overload-control.js';
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
  /** See TransactionEnvironment.afterPendingIo; the SIP driver passes `setImmediate`. */
  afterPendingIo?(fn: () => void): void;
  /** Live server transactions beyond which new requests are refused (default MAX_SERVER_TRANSACTIONS). */
  maxServerTransactions?: number;
  /** When new INVITEs are shed with 503 (overload-control.ts). */
  overload?: Partial<OverloadLimits>;
  /** Measure main-loop lag on `clock` (the server does; fake-clock tests feed `overload` themselves). */
  measureLoopLag?: boolean;
  /**
   * pjsip.conf `[global] max_forwards`: the Max-Forwards of every request we send in a client
   * transaction (we originate them all: a B2BUA never proxies). Absent: as the request was built.
   */
  maxForwards?: number;
}

/** How often the main-loop lag is sampled. */
const LAG_SAMPLE_INTERVAL_MS = 20;

/**
 * A completed UDP transaction lives on for 32 s (Timer J, RFC 3261 §17.2.2), about 3 KiB each, so
 * memory follows the request rate; past this many the server refuses new requests with 503 and
 * Retry-After (RFC 3261 §21.5.4) instead of growing without bound (~450 MiB at the limit).
 */
export const MAX_SERVER_TRANSACTIONS = 150_000;
const OVERLOAD_RETRY_AFTER_S = 5;
/** Verified source addresses remembered; the least recently verified is forgotten first. */
const MAX_VERIFIED_SOURCES = 10_000;
const OVERLOAD_LOG_INTERVAL_MS = 10_000;

export class TransactionLayer implements TransportDelegate {
  user: TransactionLayerUser | undefined;
  readonly #servers = new Map<string, ServerTransaction>();
  readonly #clients = new Map<string, ClientTransaction>();
  readonly #log: Logger;
  readonly #env: TransactionEnvironment;
  readonly #maxServerTransactions: number;
  readonly #unregisterCounts: () => void;
  readonly #sampled: SampledLog;
  /** Source addresses known to receive our responses, oldest first (insertion order). */
  readonly #verified = new Set<string>();
  readonly overload: OverloadControl;
  readonly #lagSampler: LoopLagSampler | undefined;
  /** INVITE server transactions in Proceeding: calls being set up. */
  #invitesInProgress = 0;
  #refusedSinceLog = 0;
  #lastOverloadLog = Number.NEGATIVE_INFINITY;

  readonly #maxForwards: number | undefined;

  constructor(options: TransactionLayerOptions) {
    this.#log = options.logger;
    this.#maxServerTransactions = options.maxServerTransactions ?? MAX_SERVER_TRANSACTIONS;
    this.#sampled = new SampledLog(options.logger, options.clock);
    this.#maxForwards = options.maxForwards;
    this.#env = {
      clock: options.clock,
      logger: options.logger,
      onTerminated: (transaction: Transaction<string>) => this.#forget(transaction),
      afterPendingIo: options.afterPendingIo,
      onStateChange: (transaction, from) => {
        if (transaction.kind === 'invite-server' && from === 'proceeding') this.#invitesInProgress--;
      },
    };
    this.#unregisterCounts = registerTransactionCounts(() => ({ server: this.#servers.size, client: this.#clients.size }));
    this.overload = new OverloadControl(options.overload, options.clock);
    if (options.measureLoopLag === true) {
      this.#lagSampler = new LoopLagSampler(
        options.clock,
        LAG_SAMPLE_INTERVAL_MS,
        (lag) => this.overload.recordLag(lag),
        (utilization) => this.overload.recordUtilization(utilization),
      );
      this.#lagSampler.start();
    }
  }

  get serverTransactionCount(): number {
    return this.#servers.size;
  }

  get invitesInProgress(): number {
    return this.#invitesInProgress;
  }

  get clientTransactionCount(): number {
    return this.#clients.size;
  }

  onRequest(request: SipRequest, context: IncomingContext): void {
    const key = serverTransactionKey(request);
    const existing = this.#servers.get(key);
    if (existing !== undefined) {
      this.#log.trace({ transaction: key, method: request.method }, 'request matched a transaction');
      if (request.method !== 'ACK') transactionStats.retransmissionsReceived += 1;
      if (request.method === 'ACK' && existing.state === 'completed') this.markVerified(context.source.address);
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
    if (this.#servers.size >= this.#maxServerTransactions) {
      this.#refuseOverloaded(
        request,
        context,
        OVERLOAD_RETRY_AFTER_S,
        'too many SIP transactions in progress; new requests refused with 503',
      );
      return;
    }
    // A new call (INVITE outside a dialog) is the load that can be refused without harm.
    if (
      request.method === 'INVITE' &&
      request.to.tag === undefined &&
      this.overload.shouldShed(
        this.#invitesInProgress,
        request.hasHeader('Authorization') || request.hasHeader('Proxy-Authorization'),
        context.source.address,
      )
    ) {
      this.#refuseOverloaded(request, context, this.overload.limits.retryAfterS, 'overloaded; new calls refused with 503');
      return;
    }
    let transaction: ServerTransaction;
    // The key outlives the request by up to 32 s (Timers H, I, J, L): a string of its own, not views
    // of the request's header text.
    const id = detachedText(key);
    if (request.method === 'INVITE') {
      const invite = new InviteServerTransaction(id, request, context.transport, this.#env);
      invite.retransmitsFinal = this.#verified.has(context.source.address);
      this.#invitesInProgress++;
      transaction = invite;
    } else {
      transaction = new NonInviteServerTransaction(id, context.transport, this.#env);
    }
    this.#servers.set(id, transaction);
    if (this.user === undefined) {
      this.#log.debug({ method: request.method }, 'request without a transaction user dropped');
      return;
    }
    try {
      this.user.onRequest(request, context, transaction);
    } catch (err) {
      this.#failedInUser(request, context, transaction, err);
    }
  }

  /**
   * A transaction user that throws must not leave its transaction in Trying/Proceeding for ever
   * (each one would hold a slot of the transaction table and its memory until restart): the
   * request gets a final response — 400 when a header it needed did not parse, 500 otherwise —
   * so the transaction runs to Completed and Terminated on its own timers (RFC 3261 §17.2).
   */
  #failedInUser(request: SipRequest, context: IncomingContext, transaction: ServerTransaction, err: unknown): void {
    const malformed = err instanceof SipParseError;
    this.#sampled.write(
      malformed ? 'debug' : 'error',
      malformed ? 'tu-malformed' : 'tu-failed',
      { err, method: request.method, source: context.source.address },
      malformed ? 'request with a malformed header answered 400' : 'request handling failed; answered 500',
    );
    if (transaction.terminated || transaction.finalResponseSent) return;
    const status = malformed ? 400 : 500;
    const headers: Array<[string, string]> = malformed ? [['Warning', `399 switchboard "${err.message.replace(/["\\]/g, '')}"`]] : [];
    try {
      transaction.respond(createResponse(request, status, { toTag: newTag(), headers }));
    } catch (respondErr) {
      // Not even a response could be built: end the transaction rather than keep it.
      this.#sampled.write('error', 'tu-respond-failed', { err: respondErr }, 'final response after a failure not sent');
      transaction.abort();
    }
  }

  onQueueDelay(delayMs: number): void {
    this.overload.recordQueueDelay(delayMs);
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
    if (this.#maxForwards !== undefined) request.setHeader('Max-Forwards', String(this.#maxForwards));
    // The address often came out of a peer's message (a Contact); the transaction keeps it up to 32 s.
    const to = { address: detachedText(destination.address), port: destination.port };
    const transaction =
      request.method === 'INVITE'
        ? new InviteClientTransaction(key, request, transport, to, user, this.#env)
        : new NonInviteClientTransaction(key, request, transport, to, user, this.#env);
    this.#clients.set(key, transaction);
    transaction.start();
    return transaction;
  }

  /**
   * Records that `address` receives what we send: it acknowledged a final response (its ACK
   * carries the To tag only that response held) or proved it in another way (an authenticated
   * request carries our nonce). Final responses to INVITEs from it are then retransmitted on
   * Timer G as usual; see InviteServerTransaction.retransmitsFinal.
   */
  markVerified(address: string): void {
    this.#verified.delete(address);
    this.#verified.add(address);
    if (this.#verified.size > MAX_VERIFIED_SOURCES) {
      const oldest = this.#verified.values().next().value;
      if (oldest !== undefined) this.#verified.delete(oldest);
    }
  }

  /** The INVITE server transaction a CANCEL refers to (RFC 3261 §9.2), if it still exists. */
  findInviteTransaction(cancel: SipRequest): InviteServerTransaction | undefined {
    const transaction = this.#servers.get(serverTransactionKey(cancel, 'INVITE'));
    return transaction?.kind === 'invite-server' ? transaction : undefined;
  }

  /** Terminates every transaction without further sends (shutdown). */
  close(): void {
    this.#lagSampler?.stop();
    for (const transaction of [...this.#servers.values(), ...this.#clients.values()]) transaction.abort();
    this.#servers.clear();
    this.#clients.clear();
    this.#unregisterCounts();
  }

  /** Answered without a transaction: a retransmission simply gets another 503. */
  #refuseOverloaded(request: SipRequest, context: IncomingContext, retryAfterS: number, message: string): void {
    const response = createResponse(request, 503, { toTag: newTag(), headers: [['Retry-After', String(retryAfterS)]] });
    context.transport.sendResponse(response).catch((err: unknown) => this.#log.debug({ err }, 'overload 503 not sent'));
    this.#refusedSinceLog++;
    const now = this.#env.clock.now();
    if (now - this.#lastOverloadLog >= OVERLOAD_LOG_INTERVAL_MS) {
      this.#log.warn(
        {
          live: this.#servers.size,
          limit: this.#maxServerTransactions,
          invitesInProgress: this.#invitesInProgress,
          loopLagMs: Math.round(this.overload.loopLagMs),
          queueDelayMs: Math.round(this.overload.queueDelayMs),
          admissionRate: Math.round(this.overload.admissionRate),
          state: this.overload.state,
          refused: this.#refusedSinceLog,
        },
        message,
      );
      this.#lastOverloadLog = now;
      this.#refusedSinceLog = 0;
    }
  }

  #forget(transaction: Transaction<string>): void {
    if (transaction.kind === 'invite-server' || transaction.kind === 'non-invite-server') {
      if (this.#servers.get(transaction.id) === transaction) this.#servers.delete(transaction.id);
    } else if (this.#clients.get(transaction.id) === transaction) {
      this.#clients.delete(transaction.id);
    }
  }
}
