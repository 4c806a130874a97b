/**
 * The UA core (RFC 3261 §8.2, §12.2.2): the transaction user that receives every new request
 * from the transaction layer. It keeps the dialog table, sends the 100 Trying for INVITEs not answered at once,
 * handles CANCEL (§9.2) and OPTIONS (§11.2), refuses what it cannot do (416, 420, 481, 405, 501)
 * and hands INVITEs to its delegate — the channel driver — as IncomingInvite objects.
 * It knows nothing of channels.
 */
import type { Clock, Logger } from '@switchboard/core';
import { type Dialog, dialogKey, isKnownMethod } from '../dialog/dialog.js';
import { IncomingInvite } from '../dialog/incoming-invite.js';
import type { DialogServices } from '../dialog/services.js';
import { createResponse } from '../message/builders.js';
import { newTag } from '../message/ids.js';
import type { SipRequest, SipResponse } from '../message/sip-message.js';
import type { SipUri } from '../message/uri.js';
import type { InviteServerTransaction } from '../transaction/invite-server.js';
import type { ServerTransaction, TransactionLayer, TransactionLayerUser } from '../transaction/transaction-layer.js';
import type { ClientTransactionUser } from '../transaction/transaction-user.js';
import type { IncomingContext, PeerAddress, Transport } from '../transport/transport.js';

export interface UserAgentCoreDelegate {
  /**
   * An INVITE outside any dialog. A 100 Trying follows unless the delegate responds within
   * TRYING_DELAY_MS; the delegate must answer it (accept, reject) or it is left to the caller's timers.
   */
  onInvite(invite: IncomingInvite, context: IncomingContext): void;
  /**
   * A non-INVITE request outside any dialog that the UA core does not serve itself (REGISTER, for
   * the registrar above). Return true when the delegate answers it through `transaction`.
   */
  onRequest?(request: SipRequest, context: IncomingContext, transaction: ServerTransaction): boolean;
}

export interface UserAgentCoreOptions {
  transactions: TransactionLayer;
  clock: Clock;
  logger: Logger;
  userAgent?: string;
  /** Option tags we support (RFC 3261 §8.2.2.3); a Require naming anything else gets 420. */
  supported?: readonly string[];
  /** Methods listed in Allow; the driver adds REGISTER when it runs a registrar. */
  allow?: readonly string[];
}

/**
 * How long an INVITE may go without any response before the UA core sends 100 Trying. RFC 3261
 * §17.2.1 owes the 100 only when the TU will not answer within 200 ms; half of that leaves room for
 * a late event loop, and is far below the caller's first retransmission (T1, 500 ms).
 */
export const TRYING_DELAY_MS = 100;

/** Methods this UA serves in this slice; the Allow header lists them. */
export const ALLOWED_METHODS: readonly string[] = ['INVITE', 'ACK', 'CANCEL', 'BYE', 'OPTIONS'];

export class UserAgentCore implements TransactionLayerUser {
  delegate: UserAgentCoreDelegate | undefined;
  readonly #transactions: TransactionLayer;
  readonly #log: Logger;
  readonly #dialogs = new Map<string, Dialog>();
  readonly #invites = new WeakMap<InviteServerTransaction, IncomingInvite>();
  readonly #services: DialogServices;
  readonly #supported: ReadonlySet<string>;
  readonly #allow: readonly string[];

  constructor(options: UserAgentCoreOptions) {
    this.#transactions = options.transactions;
    this.#log = options.logger;
    this.#supported = new Set(options.supported ?? []);
    this.#allow = options.allow ?? ALLOWED_METHODS;
    this.#services = {
      clock: options.clock,
      logger: options.logger,
      allow: this.#allow,
      supported: options.supported ?? [],
      userAgent: options.userAgent ?? 'Switchboard',
      addDialog: (dialog) => this.#dialogs.set(dialog.id, dialog),
      removeDialog: (dialog) => {
        if (this.#dialogs.get(dialog.id) === dialog) this.#dialogs.delete(dialog.id);
      },
      trackInvite: (transaction, invite) => this.#invites.set(transaction, invite),
      untrackInvite: (transaction) => this.#invites.delete(transaction),
      sendRequest: (request, transport, nextHop, user) => this.#sendRequest(request, transport, nextHop, user),
    };
    options.transactions.user = this;
  }

  get dialogs(): ReadonlyMap<string, Dialog> {
    return this.#dialogs;
  }

  onRequest(request: SipRequest, context: IncomingContext, transaction: ServerTransaction | undefined): void {
    const method = request.method;
    if (method === 'ACK') {
      this.#receiveAck(request);
      return;
    }
    if (transaction === undefined) return;

    // §8.2.2.1: only SIP and SIPS Request-URIs are served.
    if (request.uri.kind !== 'sip') {
      this.#respond(transaction, request, 416);
      return;
    }
    if (method === 'CANCEL') {
      this.#receiveCancel(request, transaction);
      return;
    }
    // §8.2.2.3: every option tag in Require must be supported.
    const unsupported = request.getHeaderList('Require').filter((tag) => !this.#supported.has(tag.toLowerCase()));
    if (unsupported.length > 0) {
      this.#respond(transaction, request, 420, [['Unsupported', unsupported.join(', ')]]);
      return;
    }

    const toTag = request.to.tag;
    if (toTag !== undefined) {
      // §12.2.2: a request with a To tag belongs to a dialog, or gets 481.
      const dialog = this.#dialogs.get(dialogKey(request.callId, toTag, request.from.tag ?? ''));
      if (dialog === undefined) {
        this.#respond(transaction, request, 481);
        return;
      }
      dialog.receiveRequest(request, transaction);
      return;
    }

    switch (method) {
      case 'INVITE':
        this.#receiveInvite(request, context, transaction as InviteServerTransaction);
        return;
      case 'OPTIONS':
        // §11.2: the same answer an INVITE would get, with what we can do.
        this.#respond(transaction, request, 200, [
          ['Allow', this.#allow.join(', ')],
          ['Accept', 'application/sdp'],
          ['Accept-Language', 'en'],
          ...(this.#services.supported.length > 0 ? [['Supported', this.#services.supported.join(', ')] as const] : []),
        ]);
        return;
      case 'BYE':
        this.#respond(transaction, request, 481);
        return;
      default:
        if (this.delegate?.onRequest?.(request, context, transaction) === true) return;
        this.#respond(transaction, request, isKnownMethod(method) ? 405 : 501, [['Allow', this.#allow.join(', ')]]);
    }
  }

  /** What dialogs created above the UA core (UAC dialogs of outbound calls) need from it. */
  get services(): DialogServices {
    return this.#services;
  }

  /**
   * Sends a request outside any transaction (the ACK for a 2xx, RFC 3261 §13.2.2.4), to the address
   * `nextHop` resolves to (§8.1.2).
   */
  sendStateless(request: SipRequest, transport: Transport, nextHop: SipUri): Promise<void> {
    return transport.send(request, nextHopDestination(nextHop));
  }

  /** Starts a client transaction for a request built above the UA core (an initial INVITE, a CANCEL). */
  sendRequest(request: SipRequest, transport: Transport, nextHop: SipUri, user: ClientTransactionUser): void {
    this.#sendRequest(request, transport, nextHop, user);
  }

  onStrayResponse(response: SipResponse, context: IncomingContext): void {
    this.#log.trace(
      { status: response.status, callId: response.getHeader('Call-ID'), source: context.source },
      'response matched no transaction',
    );
  }

  /** Shutdown: stops every 2xx retransmission; dialogs are left to the owner to end first. */
  close(): void {
    for (const dialog of this.#dialogs.values()) dialog.pendingInvite?.abandon();
    this.#dialogs.clear();
  }

  #receiveAck(ack: SipRequest): void {
    const toTag = ack.to.tag;
    const dialog = toTag === undefined ? undefined : this.#dialogs.get(dialogKey(ack.callId, toTag, ack.from.tag ?? ''));
    if (dialog === undefined) {
      this.#log.trace({ callId: ack.callId }, 'ACK outside any dialog dropped');
      return;
    }
    dialog.receiveRequest(ack, undefined);
  }

  /** RFC 3261 §9.2. */
  #receiveCancel(cancel: SipRequest, transaction: ServerTransaction): void {
    const invite = this.#transactions.findInviteTransaction(cancel);
    if (invite === undefined) {
      this.#respond(transaction, cancel, 481);
      return;
    }
    const incoming = this.#invites.get(invite);
    // The 200 to the CANCEL carries the same To tag as the responses to the INVITE.
    this.#respond(transaction, cancel, 200, [], incoming?.toTag ?? invite.finalToTag);
    if (invite.finalResponseSent) return;
    if (incoming !== undefined) {
      incoming.cancel(cancel);
    } else if (invite.request !== undefined) {
      // Cancelled before the INVITE reached the delegate.
      invite.respond(createResponse(invite.request, 487, { toTag: newTag() }));
    }
  }

  #receiveInvite(request: SipRequest, context: IncomingContext, transaction: InviteServerTransaction): void {
    this.#scheduleTrying(transaction);
    const contact = request.contacts[0];
    if (contact === undefined || contact.uri.kind !== 'sip') {
      // §8.1.1.8: an INVITE must carry exactly one SIP Contact, which becomes the remote target.
      this.#respond(transaction, request, 400, [], newTag(), 'Missing Contact');
      return;
    }
    const delegate = this.delegate;
    if (delegate === undefined) {
      this.#respond(transaction, request, 503, [], newTag());
      return;
    }
    context.transport
      .advertisedHost(context.source.address)
      .then((localHost) => {
        if (transaction.finalResponseSent || transaction.terminated) return;
        const invite = new IncomingInvite({ request, transaction, transport: context.transport, localHost }, this.#services);
        delegate.onInvite(invite, context);
      })
      .catch((err: unknown) => {
        this.#log.error({ err, callId: request.callId }, 'INVITE handling failed');
        if (!transaction.finalResponseSent) this.#respond(transaction, request, 500, [], newTag());
      });
  }

  /**
   * §8.2.6.1 / §17.2.1: a 100 Trying stops the caller's INVITE retransmissions, but only an INVITE
   * still without a response needs one. A challenged or refused INVITE, and a call that rings or
   * is answered at once, are spared the datagram (a Dial() call between two phones: two of the nine
   * the server sent).
   */
  #scheduleTrying(transaction: InviteServerTransaction): void {
    // The transaction holds the request until its final response and then lets it go; the timer
    // must not hold it for its 100 ms beyond that (a refused INVITE is answered long before).
    this.#services.clock.setTimeout(() => {
      const request = transaction.request;
      if (!transaction.responded && request !== undefined) this.#respond(transaction, request, 100);
    }, TRYING_DELAY_MS);
  }

  #respond(
    transaction: ServerTransaction,
    request: SipRequest,
    status: number,
    headers: ReadonlyArray<readonly [string, string]> = [],
    toTag: string | undefined = status === 100 ? undefined : newTag(),
    reason?: string,
  ): void {
    const response = createResponse(request, status, {
      toTag,
      reason,
      headers: [...headers, ['Server', this.#services.userAgent]],
    });
    transaction.respond(response);
  }

  /** RFC 3261 §8.1.2: the next hop's maddr, host and port (5060 by default for UDP). */
  #sendRequest(request: SipRequest, transport: Transport, nextHop: SipUri, user: ClientTransactionUser): void {
    this.#transactions.sendRequest(request, transport, nextHopDestination(nextHop), user);
  }
}

/**
 * RFC 3261 §8.1.2 / RFC 3263 §4 reduced to what is implemented: maddr, else the host, at the
 * URI's port or 5060. A `received`/`rport`-style override is not a URI matter; callers that reach
 * a NAT'ed phone pass a URI with the observed address.
 */
export function nextHopDestination(nextHop: SipUri): PeerAddress {
  const maddr = nextHop.params.get('maddr');
  const address = maddr === undefined || maddr === null ? nextHop.host : maddr;
  // RFC 3263 §4.2: 5061 for TLS (sips or transport=tls), 5060 otherwise.
  const tls = nextHop.scheme === 'sips' || nextHop.params.get('transport')?.toLowerCase() === 'tls';
  return { address, port: nextHop.port ?? (tls ? 5061 : 5060) };
}
