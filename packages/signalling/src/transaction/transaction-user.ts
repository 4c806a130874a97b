/** How server and client transactions report to their transaction user (RFC 3261 §17). */
import type { SipResponse } from '../message/sip-message.js';

export interface ServerTransactionUser {
  /** INVITE server: Timer H fired, no ACK came for a non-2xx final response (RFC 3261 §17.2.1). */
  onTimeout?(): void;
  /** The response could not be sent (RFC 3261 §17.2.4). */
  onTransportError?(err: unknown): void;
}

export interface ClientTransactionUser {
  /** Every response the TU must see: provisional, final, and (INVITE) 2xx retransmissions. */
  onResponse(response: SipResponse): void;
  /** Timer B / Timer F fired without a final response: treat as 408 (RFC 3261 §8.1.3.1). */
  onTimeout(): void;
  onTransportError(err: unknown): void;
}

/**
 * The user of a client transaction that has told its user everything: after a final response that
 * ends the exchange, the transaction only absorbs retransmissions until its timer ends it, and its
 * user (a call, a dialog) need not live that long with it.
 */
export const NO_USER: ClientTransactionUser = {
  onResponse: () => {},
  onTimeout: () => {},
  onTransportError: () => {},
};
