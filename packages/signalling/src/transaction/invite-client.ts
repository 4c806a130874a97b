/**
 * INVITE client transaction, RFC 3261 §17.1.1 (Figure 5) as updated by RFC 6026 §7.2 (the
 * Accepted state: 2xx responses, including retransmissions and other forks, go to the TU, which
 * sends the ACK itself, RFC 3261 §13.2.2.4).
 *
 *                     |INVITE from TU: send, Timer A (UDP), Timer B
 *                     V
 *               +-----------+ Timer A: send INVITE, A = 2A
 *               |  Calling  | Timer B or transport error: inform TU -> Terminated
 *               +-----------+
 *           1xx: to TU |   \  300-699: send ACK, to TU -> Completed
 *                      V    \ 2xx: to TU -> Accepted
 *               +-----------+
 *               |Proceeding | 1xx: to TU
 *               +-----------+
 *   300-699: send ACK, to TU |  2xx: to TU
 *                      V     V
 *  +-----------+         +-----------+
 *  | Completed |         | Accepted  | 2xx: to TU
 *  +-----------+         +-----------+
 *  300-699: ACK again         | Timer M
 *  Timer D -> Terminated      V
 *                         Terminated
 */
import type { SipRequest, SipResponse } from '../message/sip-message.js';
import type { PeerAddress, Transport } from '../transport/transport.js';
import { buildAckForNon2xx } from './ack.js';
import { TIMER_A, TIMER_B, TIMER_D, TIMER_M } from './timers.js';
import { Transaction, type TransactionEnvironment } from './transaction.js';
import { type ClientTransactionUser, NO_USER } from './transaction-user.js';

export type InviteClientState = 'calling' | 'proceeding' | 'completed' | 'accepted' | 'terminated';

const TRANSITIONS: Record<InviteClientState, readonly InviteClientState[]> = {
  calling: ['proceeding', 'completed', 'accepted', 'terminated'],
  proceeding: ['completed', 'accepted', 'terminated'],
  completed: ['terminated'],
  accepted: ['terminated'],
  terminated: [],
};

export class InviteClientTransaction extends Transaction<InviteClientState> {
  readonly kind = 'invite-client';
  protected readonly transitions = TRANSITIONS;
  readonly destination: PeerAddress;
  /** Until a final response: then only its ACK (for a non-2xx) is needed, and the 2xx goes to the TU. */
  #request: SipRequest | undefined;
  /** Let go at a non-2xx final response: Completed only absorbs retransmissions for Timer D (32 s). */
  #user: ClientTransactionUser;
  #timerA = TIMER_A;
  #ack: SipRequest | undefined;

  constructor(
    id: string,
    request: SipRequest,
    transport: Transport,
    destination: PeerAddress,
    user: ClientTransactionUser,
    env: TransactionEnvironment,
  ) {
    super(id, transport, 'calling', env);
    this.#request = request;
    this.destination = destination;
    this.#user = user;
  }

  start(): void {
    this.#sendInvite();
    if (!this.transport.reliable) this.startRetransmitTimer('A', this.#timerA, () => this.#fireTimerA());
    this.startTimer('B', TIMER_B, () => {
      this.transition('terminated');
      this.#user.onTimeout();
    });
  }

  receiveResponse(response: SipResponse): void {
    const status = response.status;
    switch (this.state) {
      case 'calling':
      case 'proceeding':
        if (status < 200) {
          if (this.state === 'calling') {
            this.transition('proceeding');
            // §17.1.1.2: Timer A and B only run while Calling.
            this.stopTimer('A');
            this.stopTimer('B');
          }
          this.#user.onResponse(response);
        } else if (status < 300) {
          this.transition('accepted');
          this.stopTimer('A');
          this.stopTimer('B');
          // Timer M keeps the transaction 64·T1 for retransmitted 2xx; the INVITE is not sent again.
          this.#request = undefined;
          this.startTimer('M', TIMER_M, () => this.transition('terminated'));
          this.#user.onResponse(response);
        } else {
          this.transition('completed');
          this.stopTimer('A');
          this.stopTimer('B');
          // Calling and Proceeding always hold the request; from here on only its ACK is sent.
          const ack = this.#request === undefined ? undefined : buildAckForNon2xx(this.#request, response);
          this.#ack = ack;
          this.#request = undefined;
          if (ack !== undefined) this.transmit(this.transport.send(ack, this.destination));
          if (this.transport.reliable) this.transition('terminated');
          else this.startTimer('D', TIMER_D, () => this.transition('terminated'));
          const user = this.#user;
          this.#user = NO_USER;
          user.onResponse(response);
        }
        return;
      case 'completed':
        // A retransmitted final response: the ACK was lost (§17.1.1.2).
        if (status >= 300 && this.#ack !== undefined) this.transmit(this.transport.send(this.#ack, this.destination));
        return;
      case 'accepted':
        if (status >= 200 && status < 300) this.#user.onResponse(response);
        return;
      case 'terminated':
        return;
    }
  }

  #sendInvite(): void {
    if (this.#request !== undefined) this.transmit(this.transport.send(this.#request, this.destination));
  }

  #fireTimerA(): void {
    if (this.state !== 'calling') return;
    this.#sendInvite();
    this.#timerA *= 2;
    this.startRetransmitTimer('A', this.#timerA, () => this.#fireTimerA());
  }

  protected onTransportError(err: unknown): void {
    this.transition('terminated');
    this.#user.onTransportError(err);
  }
}
