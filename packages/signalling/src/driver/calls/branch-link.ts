/**
 * What a call's INVITE client transaction reports to, kept apart from the call so the call can let
 * go of it. An answered INVITE's transaction lives on in Accepted for Timer M (64*T1 = 32 s,
 * RFC 6026 §7.2) to pass on retransmitted 2xx responses, and while its user was a closure over the
 * call, every ended call stayed in memory for those 32 s with its channel, dialog and media state:
 * about 70 KB a call, over a gigabyte at 450 calls/s (bench/README.md, sipp-overload).
 *
 * The transaction's user is built here, outside any method of the call, so its closures hold the
 * link alone (a closure keeps its whole enclosing scope). When the call ends it releases the link:
 * a retransmitted 2xx of the answer gets the same ACK again (RFC 3261 §13.2.2.4) and nothing
 * else of the call is reachable.
 */
import { detachedText } from '../../message/detached-text.js';
import type { EncodedRequest } from '../../message/encoded-message.js';
import type { SipResponse } from '../../message/sip-message.js';
import type { ClientTransactionUser } from '../../transaction/transaction-user.js';
import type { PeerAddress, Transport } from '../../transport/transport.js';

export interface TransactionLink {
  onResponse(response: SipResponse): void;
  onTimeout(): void;
  onTransportError(err: unknown): void;
}

/** The ACK sent for a 2xx, to send again as it was (as bytes: it may wait 32 s for a retransmitted 2xx). */
export interface SentAck {
  readonly toTag: string;
  readonly request: EncodedRequest;
  readonly transport: Transport;
  readonly destination: PeerAddress;
}

/** A transaction user that calls whatever the link holds now. */
export function linkedUser(link: TransactionLink): ClientTransactionUser {
  return {
    onResponse: (response) => link.onResponse(response),
    onTimeout: () => link.onTimeout(),
    onTransportError: (err) => link.onTransportError(err),
  };
}

/**
 * Points the link away from the call: only a retransmitted 2xx of `ack`'s dialog is answered. What
 * the link keeps for Timer M's 32 s are strings of their own: the tag and address came out of the
 * callee's 2xx, and as views of its header text they would keep all of it.
 */
export function releaseLink(link: TransactionLink, ack: SentAck | undefined): void {
  link.onTimeout = ignore;
  link.onTransportError = ignore;
  if (ack === undefined) {
    link.onResponse = ignore;
    return;
  }
  const { request, transport } = ack;
  const toTag = detachedText(ack.toTag);
  const destination = { address: detachedText(ack.destination.address), port: ack.destination.port };
  link.onResponse = (response) => {
    if (response.status >= 200 && response.status < 300 && response.to.tag === toTag) {
      transport.send(request, destination).catch(ignore);
    }
  };
}

function ignore(): void {}
