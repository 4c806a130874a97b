/**
 * INVITE server transaction, RFC 3261 §17.2.1 (Figure 7) as updated by RFC 6026 §7.1 (the
 * Accepted state: after a 2xx the transaction lives on to absorb INVITE retransmissions, while
 * the TU retransmits the 2xx until its ACK arrives, RFC 3261 §13.3.1.4).
 *
 *                     |INVITE, pass to TU
 *                     V
 *               +-----------+ INVITE: send last provisional
 *               |Proceeding |<-----+
 *               +-----------+------+ 1xx from TU: send
 *        2xx from TU|     | 300-699 from TU: send
 *                   |     V
 *                   |   +-----------+ INVITE: send final response again
 *                   |   | Completed | Timer G: send final again, G = min(2G, T2)
 *                   |   +-----------+ Timer H: tell TU (no ACK), -> Terminated
 *                   |     | ACK
 *                   |     V
 *                   |   +-----------+ ACK: absorbed
 *                   |   | Confirmed |
 *                   |   +-----------+
 *                   |     | Timer I
 *                   V     V
 *    +-----------+      Terminated
 *    | Accepted  |-- Timer L --^
 *    +-----------+ INVITE: absorbed; 2xx from TU: send
 */
import { detachedText } from '../message/detached-text.js';
import { EncodedResponse } from '../message/encoded-message.js';
import type { SipRequest, SipResponse } from '../message/sip-message.js';
import type { Transport } from '../transport/transport.js';
import { T2, TIMER_G, TIMER_H, TIMER_I, TIMER_L } from './timers.js';
import { Transaction, type TransactionEnvironment } from './transaction.js';
import type { ServerTransactionUser } from './transaction-user.js';

export type InviteServerState = 'proceeding' | 'completed' | 'confirmed' | 'accepted' | 'terminated';

const TRANSITIONS: Record<InviteServerState, readonly InviteServerState[]> = {
  proceeding: ['completed', 'accepted', 'terminated'],
  completed: ['confirmed', 'terminated'],
  confirmed: ['terminated'],
  accepted: ['terminated'],
  terminated: [],
};

export class InviteServerTransaction extends Transaction<InviteServerState> {
  readonly kind = 'invite-server';
  protected readonly transitions = TRANSITIONS;
  user: ServerTransactionUser = {};
  /**
   * Whether Timer G retransmits a non-2xx final response. Off for a source that has not shown it
   * receives what we send (see TransactionLayer): a spoofed INVITE must not make us send a dozen
   * responses to its victim. The response is still sent again for every retransmitted INVITE
   * (below), which is all a real client whose response was lost needs (RFC 3261 §17.1.1.2).
   */
  retransmitsFinal = true;
  #lastProvisional: SipResponse | undefined;
  /** A non-2xx final response as sent, kept for retransmissions until the ACK or Timer H (32 s). */
  #finalResponse: EncodedResponse | undefined;
  #finalToTag: string | undefined;
  #timerG = TIMER_G;

  #request: SipRequest | undefined;

  constructor(id: string, request: SipRequest, transport: Transport, env: TransactionEnvironment) {
    super(id, transport, 'proceeding', env);
    this.#request = request;
  }

  /**
   * The INVITE, until the final response is sent; then it is let go. Retransmissions match by the
   * transaction's key, and an answered INVITE's transaction lingers 64·T1 (Timer L): keeping the
   * request that long held every call's INVITE, its text and parsed headers, for 32 s.
   */
  get request(): SipRequest | undefined {
    return this.#request;
  }

  /** Whether a final response went out (so a CANCEL no longer has an effect, RFC 3261 §9.2). */
  get finalResponseSent(): boolean {
    return this.state !== 'proceeding';
  }

  /** Whether any response, provisional or final, went out (and so no 100 Trying is owed). */
  get responded(): boolean {
    return this.state !== 'proceeding' || this.#lastProvisional !== undefined;
  }

  /** The To tag of the final response (a late CANCEL's 200 carries it), kept after the response itself is dropped. */
  get finalToTag(): string | undefined {
    return this.#finalToTag;
  }

  respond(response: SipResponse): void {
    if (this.state === 'accepted' && response.status >= 200 && response.status < 300) {
      // RFC 6026 §7.1: 2xx retransmissions from the TU pass through the Accepted state.
      this.transmit(this.transport.sendResponse(response));
      return;
    }
    if (this.state !== 'proceeding') {
      this.env.logger.debug({ transaction: this.id, status: response.status }, 'response after the final one dropped');
      return;
    }
    if (response.status < 200) {
      this.transmit(this.transport.sendResponse(response));
      this.#lastProvisional = response;
      return;
    }
    const tag = response.to.tag;
    this.#finalToTag = tag === undefined ? undefined : detachedText(tag);
    // Nothing sends a provisional response again from here on, nor answers the request anew.
    this.#lastProvisional = undefined;
    this.#request = undefined;
    if (response.status < 300) {
      this.transmit(this.transport.sendResponse(response));
      // RFC 6026 §7.1: the TU sends the 2xx again, not the transaction, so it keeps no copy.
      this.transition('accepted');
      this.startTimer('L', TIMER_L, () => this.transition('terminated'));
      return;
    }
    // Serialised once and kept as bytes: a refused INVITE's transaction waits up to 32 s for its
    // ACK (Timer H), and the parsed response would hold its header list and parsed views that long.
    const encoded = new EncodedResponse(response);
    this.transmit(this.transport.sendResponse(encoded));
    this.#finalResponse = encoded;
    this.transition('completed');
    if (!this.transport.reliable && this.retransmitsFinal) this.startRetransmitTimer('G', this.#timerG, () => this.#fireTimerG());
    this.startTimer('H', TIMER_H, () => {
      // RFC 3261 §17.2.1: no ACK within 64*T1; the TU learns of the failure.
      this.transition('terminated');
      this.user.onTimeout?.();
    });
  }

  /** An INVITE retransmission or the ACK for a non-2xx final response. */
  receiveRequest(request: SipRequest): void {
    if (request.method === 'ACK') {
      if (this.state !== 'completed') return;
      this.transition('confirmed');
      this.#finalResponse = undefined;
      this.stopTimer('G');
      this.stopTimer('H');
      if (this.transport.reliable) this.transition('terminated');
      else this.startTimer('I', TIMER_I, () => this.transition('terminated'));
      return;
    }
    if (this.state === 'proceeding' && this.#lastProvisional !== undefined) {
      this.transmit(this.transport.sendResponse(this.#lastProvisional));
    } else if (this.state === 'completed' && this.#finalResponse !== undefined) {
      this.transmit(this.transport.sendResponse(this.#finalResponse));
    }
    // Confirmed and Accepted: absorbed.
  }

  #fireTimerG(): void {
    if (this.state !== 'completed' || this.#finalResponse === undefined) return;
    this.transmit(this.transport.sendResponse(this.#finalResponse));
    this.#timerG = Math.min(this.#timerG * 2, T2);
    this.startRetransmitTimer('G', this.#timerG, () => this.#fireTimerG());
  }

  protected onTransportError(err: unknown): void {
    this.transition('terminated');
    this.user.onTransportError?.(err);
  }
}
