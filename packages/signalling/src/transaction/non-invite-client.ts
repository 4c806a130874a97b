/**
 * Non-INVITE client transaction, RFC 3261 §17.1.2 (Figure 6).
 *
 *                     |Request from TU: send request, start Timer E (UDP) and F
 *                     V
 *               +-----------+ Timer E: send request, E = min(2E, T2)
 *               |  Trying   |
 *               +-----------+ Timer F or transport error: inform TU -> Terminated
 *          1xx: to TU |   | 200-699: to TU
 *                     V   |
 *               +-----------+ Timer E: send request, E = T2
 *               | Proceeding| 1xx: to TU
 *               +-----------+ Timer F or transport error: inform TU -> Terminated
 *         200-699: to TU |
 *                        V
 *               +-----------+ responses: absorbed
 *               | Completed |
 *               +-----------+
 *                     | Timer K (T4 on UDP, 0 on reliable)
 *                     V
 *                 Terminated
 */
import type { SipRequest, SipResponse } from '../message/sip-message.js';
import type { PeerAddress, Transport } from '../transport/transport.js';
import { T2, TIMER_E, TIMER_F, TIMER_K } from './timers.js';
import { Transaction, type TransactionEnvironment } from './transaction.js';
import { type ClientTransactionUser, NO_USER } from './transaction-user.js';

export type NonInviteClientState = 'trying' | 'proceeding' | 'completed' | 'terminated';

const TRANSITIONS: Record<NonInviteClientState, readonly NonInviteClientState[]> = {
  trying: ['proceeding', 'completed', 'terminated'],
  proceeding: ['completed', 'terminated'],
  completed: ['terminated'],
  terminated: [],
};

export class NonInviteClientTransaction extends Transaction<NonInviteClientState> {
  readonly kind = 'non-invite-client';
  protected readonly transitions = TRANSITIONS;
  /** Until a final response: in Completed (Timer K) nothing is sent again. */
  #request: SipRequest | undefined;
  readonly destination: PeerAddress;
  /** Let go at the final response: Completed only absorbs retransmissions for Timer K (5 s). */
  #user: ClientTransactionUser;
  #timerE = TIMER_E;

  constructor(
    id: string,
    request: SipRequest,
    transport: Transport,
    destination: PeerAddress,
    user: ClientTransactionUser,
    env: TransactionEnvironment,
  ) {
    super(id, transport, 'trying', env);
    this.#request = request;
    this.destination = destination;
    this.#user = user;
  }

  /** Sends the request and starts the timers; called once by the transaction layer. */
  start(): void {
    this.#send();
    if (!this.transport.reliable) this.startRetransmitTimer('E', this.#timerE, () => this.#fireTimerE());
    this.startTimer('F', TIMER_F, () => {
      this.transition('terminated');
      this.#user.onTimeout();
    });
  }

  receiveResponse(response: SipResponse): void {
    if (this.state === 'completed' || this.state === 'terminated') return;
    if (response.status < 200) {
      if (this.state === 'trying') this.transition('proceeding');
      this.#user.onResponse(response);
      return;
    }
    this.transition('completed');
    this.#request = undefined;
    this.stopTimer('E');
    this.stopTimer('F');
    if (this.transport.reliable) this.transition('terminated');
    else this.startTimer('K', TIMER_K, () => this.transition('terminated'));
    const user = this.#user;
    this.#user = NO_USER;
    user.onResponse(response);
  }

  #send(): void {
    if (this.#request !== undefined) this.transmit(this.transport.send(this.#request, this.destination));
  }

  #fireTimerE(): void {
    if (this.state !== 'trying' && this.state !== 'proceeding') return;
    this.#send();
    // §17.1.2.2: doubling up to T2 while Trying; in Proceeding the interval is T2.
    this.#timerE = this.state === 'proceeding' ? T2 : Math.min(this.#timerE * 2, T2);
    this.startRetransmitTimer('E', this.#timerE, () => this.#fireTimerE());
  }

  protected onTransportError(err: unknown): void {
    this.transition('terminated');
    this.#user.onTransportError(err);
  }
}
