/** What the dialog layer needs from the UA core beneath the channel driver. */
import type { Clock, Logger } from '@switchboard/core';
import type { SipRequest } from '../message/sip-message.js';
import type { SipUri } from '../message/uri.js';
import type { InviteServerTransaction } from '../transaction/invite-server.js';
import type { ClientTransactionUser } from '../transaction/transaction-user.js';
import type { Transport } from '../transport/transport.js';
import type { Dialog } from './dialog.js';
import type { IncomingInvite } from './incoming-invite.js';

export interface DialogServices {
  clock: Clock;
  logger: Logger;
  /** Methods listed in Allow (RFC 3261 §20.5). */
  allow: readonly string[];
  /** Option tags listed in Supported (RFC 3261 §20.37). */
  supported: readonly string[];
  /** Server / User-Agent header value. */
  userAgent: string;
  /** Keeps the dialog table in step: dialogs are added once established and removed when terminated. */
  addDialog(dialog: Dialog): void;
  removeDialog(dialog: Dialog): void;
  /** Makes an INVITE findable by the CANCEL that may follow it (RFC 3261 §9.2). */
  trackInvite(transaction: InviteServerTransaction, invite: IncomingInvite): void;
  /** The INVITE has its final response: a CANCEL no longer needs it (its transaction lingers up to 32 s). */
  untrackInvite(transaction: InviteServerTransaction): void;
  /** Sends a request in a client transaction to the address `nextHop` resolves to (RFC 3261 §8.1.2). */
  sendRequest(request: SipRequest, transport: Transport, nextHop: SipUri, user: ClientTransactionUser): void;
}
