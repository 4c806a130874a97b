/**
 * Non-INVITE server transaction, RFC 3261 §17.2.2 (Figure 8).
 *
 *                 |Request received, pass to TU
 *                 V
 *           +-----------+
 *           |  Trying   |-------------+
 *           +-----------+             |
 *             | 1xx from TU           | 200-699 from TU, send response
 *             V                       |
 *           +-----------+  1xx from TU, send response
 *           | Proceeding|-----+       |
 *           +-----------+<----+       |
 *             | 200-699 from TU       |
 *             V                       V
 *           +-----------+  Request: send last response
 *           | Completed |<------------+
 *           +-----------+
 *             | Timer J fires (0 s on reliable transports)
 *             V
 *           Terminated
 */
import { EncodedResponse } from '../message/encoded-message.js';
import type { SipRequest, SipResponse } from '../message/sip-message.js';
import type { Transport } from '../transport/transport.js';
import { TIMER_J } from './timers.js';
import { Transaction, type TransactionEnvironment } from './transaction.js';
import type { ServerTransactionUser } from './transaction-user.js';

export type NonInviteServerState = 'trying' | 'proceeding' | 'completed' | 'terminated';

const TRANSITIONS: Record<NonInviteServerState, readonly NonInviteServerState[]> = {
  trying: ['proceeding', 'completed', 'terminated'],
  proceeding: ['completed', 'terminated'],
  completed: ['terminated'],
  terminated: [],
};

export class NonInviteServerTransaction extends Transaction<NonInviteServerState> {
  readonly kind = 'non-invite-server';
  protected readonly transitions = TRANSITIONS;
  user: ServerTransactionUser = {};
  /** Kept encoded: a completed transaction lives on for Timer J holding only what it resends. */
  #lastResponse: SipResponse | EncodedResponse | undefined;

  constructor(id: string, transport: Transport, env: TransactionEnvironment) {
    super(id, transport, 'trying', env);
  }

  get finalResponseSent(): boolean {
    return this.state === 'completed' || this.state === 'terminated';
  }

  /** A response from the TU. After the final one, further responses are ignored (RFC 3261 §17.2.2). */
  respond(response: SipResponse): void {
    if (this.state !== 'trying' && this.state !== 'proceeding') {
      this.env.logger.debug({ transaction: this.id, status: response.status }, 'response after the final one dropped');
      return;
    }
    if (response.status < 200) {
      this.#lastResponse = response;
      this.transmit(this.transport.sendResponse(response));
      if (this.state === 'trying') this.transition('proceeding');
      return;
    }
    const encoded = new EncodedResponse(response);
    this.#lastResponse = encoded;
    this.transmit(this.transport.sendResponse(encoded));
    this.transition('completed');
    if (this.transport.reliable) this.transition('terminated');
    else this.startTimer('J', TIMER_J, () => this.transition('terminated'));
  }

  /** A retransmission of the request (same branch, sent-by and method). */
  receiveRequest(_request: SipRequest): void {
    // Trying: absorbed. Proceeding and Completed: the last response is sent again.
    if ((this.state === 'proceeding' || this.state === 'completed') && this.#lastResponse !== undefined) {
      this.transmit(this.transport.sendResponse(this.#lastResponse));
    }
  }

  protected onTransportError(err: unknown): void {
    this.transition('terminated');
    this.user.onTransportError?.(err);
  }
}
