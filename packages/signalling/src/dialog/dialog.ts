/**
 * A dialog (RFC 3261 §12): the peer-to-peer relationship an INVITE establishes. It holds the
 * dialog state — Call-ID, tags, local and remote URI, remote target, route set, sequence numbers —
 * builds in-dialog requests (§12.2.1.1), checks and dispatches in-dialog requests (§12.2.2) and
 * answers BYE (§15.1.2). It knows nothing of calls or channels; its delegate does.
 *
 *   first response with a To tag     2xx sent
 *   ──────────────────────────> early ─────────> confirmed
 *                                 |                 |
 *         non-2xx final, BYE,     |                 | BYE sent or received
 *         CANCEL                  v                 v
 *                             terminated <──────────┘
 *
 * The dialog is in the dialog table (so in-dialog requests find it) from creation to termination.
 */
import type { Logger } from '@switchboard/core';
import { createResponse } from '../message/builders.js';
import { newBranch } from '../message/ids.js';
import type { NameAddr } from '../message/name-addr.js';
import { SipRequest, type SipResponse, headerFields } from '../message/sip-message.js';
import { SipUri } from '../message/uri.js';
import { Via } from '../message/via.js';
import type { InviteServerTransaction } from '../transaction/invite-server.js';
import type { NonInviteServerTransaction } from '../transaction/non-invite-server.js';
import type { Transport } from '../transport/transport.js';
import { IncomingInvite } from './incoming-invite.js';
import type { DialogServices } from './services.js';

export type DialogState = 'early' | 'confirmed' | 'terminated';

const TRANSITIONS: Record<DialogState, readonly DialogState[]> = {
  early: ['confirmed', 'terminated'],
  confirmed: ['terminated'],
  terminated: [],
};

export interface DialogDelegate {
  /** The peer ended the dialog; the 200 OK to its BYE has been sent. */
  onBye?(request: SipRequest): void;
  /** A re-INVITE arrived (RFC 3261 §14.2); the delegate must answer it. */
  onReinvite?(invite: IncomingInvite): void;
  /** Any other in-dialog request; return false to have it refused with 405/501. */
  onRequest?(request: SipRequest, transaction: NonInviteServerTransaction): boolean;
}

/** How a request sent inside the dialog ended. */
/**
 * Answers a 401/407 to a request of the dialog (RFC 3261 §22.2): the Authorization or
 * Proxy-Authorization header to send the request again with, or undefined to give up.
 */
export type ChallengeAnswerer = (
  response: SipResponse,
  request: { method: string; uri: string },
) => { name: string; value: string } | undefined;

export type DialogRequestOutcome =
  | { kind: 'response'; response: SipResponse }
  | { kind: 'timeout' }
  | { kind: 'transport-error'; error: unknown };

export interface DialogInit {
  callId: string;
  localTag: string;
  remoteTag: string;
  localUri: NameAddr;
  remoteUri: NameAddr;
  remoteTarget: SipUri;
  routeSet: NameAddr[];
  remoteSeq: number | undefined;
  transport: Transport;
  /** Host (and port) we write in Via sent-by and Contact. */
  localHost: string;
  localPort: number;
  /** A UAC dialog continues the CSeq of its INVITE (RFC 3261 §12.1.2); a UAS dialog starts with none. */
  localSeq?: number;
}

/** Methods this stack recognises by name; other unknown methods are answered 501 (RFC 3261 §8.2.1). */
const KNOWN_METHODS = new Set([
  'INVITE',
  'ACK',
  'BYE',
  'CANCEL',
  'OPTIONS',
  'REGISTER',
  'PRACK',
  'SUBSCRIBE',
  'NOTIFY',
  'PUBLISH',
  'INFO',
  'REFER',
  'MESSAGE',
  'UPDATE',
]);

export function isKnownMethod(method: string): boolean {
  return KNOWN_METHODS.has(method);
}

export function dialogKey(callId: string, localTag: string, remoteTag: string): string {
  return `${callId}|${localTag}|${remoteTag}`;
}

export class Dialog {
  readonly id: string;
  readonly callId: string;
  readonly localTag: string;
  readonly remoteTag: string;
  readonly localUri: NameAddr;
  readonly remoteUri: NameAddr;
  /** Where in-dialog requests go (the peer's Contact); the driver may rewrite it for NAT. */
  remoteTarget: SipUri;
  /**
   * Where in-dialog requests are sent whatever the remote target and route set say: the address a
   * phone behind NAT registered from (the flow it keeps open). The Request-URI is not changed.
   */
  flowTarget: SipUri | undefined;
  readonly routeSet: NameAddr[];
  readonly transport: Transport;
  readonly localHost: string;
  readonly localPort: number;
  delegate: DialogDelegate = {};
  /**
   * Makes one answerer per request we send (pjsip.conf `outbound_auth` of the far end): a
   * challenged in-dialog request is sent again with credentials, with the next CSeq.
   */
  challengeAnswerer: (() => ChallengeAnswerer) | undefined;
  /** Set while a re-INVITE we sent is unanswered: the peer's INVITE then meets glare (§14.2). */
  outgoingInvitePending = false;
  #state: DialogState = 'early';
  #localSeq: number | undefined;
  #remoteSeq: number | undefined;
  readonly #services: DialogServices;
  readonly #log: Logger;
  /** INVITEs (initial or re-INVITE) answered 2xx and waiting for their ACK, by CSeq number. */
  readonly #awaitingAck = new Map<number, IncomingInvite>();
  /** The INVITE this dialog is still answering, if any (RFC 3261 §14.2 glare check, §15.1.2). */
  #pendingInvite: IncomingInvite | undefined;

  constructor(init: DialogInit, services: DialogServices) {
    this.callId = init.callId;
    this.localTag = init.localTag;
    this.remoteTag = init.remoteTag;
    this.localUri = init.localUri;
    this.remoteUri = init.remoteUri;
    this.remoteTarget = init.remoteTarget;
    this.routeSet = init.routeSet;
    this.#remoteSeq = init.remoteSeq;
    this.#localSeq = init.localSeq;
    this.transport = init.transport;
    this.localHost = init.localHost;
    this.localPort = init.localPort;
    this.id = dialogKey(this.callId, this.localTag, this.remoteTag);
    this.#services = services;
    this.#log = services.logger;
  }

  get state(): DialogState {
    return this.#state;
  }

  /** Our Contact (RFC 3261 §12.1.1: a SIP URI where the peer reaches us for the rest of the dialog). */
  get localContact(): string {
    const uri = new SipUri({ host: this.localHost, port: this.localPort });
    // §19.1.4: over TCP/TLS the Contact names the transport, or the peer would come back over UDP.
    if (this.transport.protocol !== 'udp') uri.params.set('transport', this.transport.protocol);
    return `<${uri.toString()}>`;
  }

  get localHostPort(): string {
    const host = this.localHost.includes(':') ? `[${this.localHost}]` : this.localHost;
    return `${host}:${this.localPort}`;
  }

  confirm(): void {
    if (this.#state === 'early') this.#transition('confirmed');
  }

  /**
   * A terminated dialog reports nothing more, so it lets go of its delegate (the call): the UA core
   * and transactions lingering for their timers (up to 32 s) may still hold the dialog itself.
   */
  terminate(): void {
    if (this.#state === 'terminated') return;
    this.#transition('terminated');
    this.delegate = {};
  }

  /** An INVITE of this dialog is being answered (set by IncomingInvite). */
  setPendingInvite(invite: IncomingInvite | undefined): void {
    this.#pendingInvite = invite;
  }

  get pendingInvite(): IncomingInvite | undefined {
    return this.#pendingInvite;
  }

  /** An INVITE answered 2xx now waits for its ACK (RFC 3261 §13.3.1.4). */
  awaitAck(cseq: number, invite: IncomingInvite): void {
    this.#awaitingAck.set(cseq, invite);
  }

  stopAwaitingAck(cseq: number): void {
    this.#awaitingAck.delete(cseq);
  }

  /** Builds a request within the dialog (RFC 3261 §12.2.1.1) and returns it with its next hop. */
  createRequest(
    method: string,
    options: { headers?: ReadonlyArray<readonly [string, string]>; body?: Buffer; contentType?: string } = {},
  ): { request: SipRequest; nextHop: SipUri } {
    // §12.2.1.1: the local sequence number is incremented for each request (ACK and CANCEL excepted,
    // which reuse the INVITE's). A UAS dialog starts with none; any value below 2**31 will do.
    if (method !== 'ACK' && method !== 'CANCEL') {
      this.#localSeq = this.#localSeq === undefined ? Math.floor(Math.random() * 0x7fff) + 1 : this.#localSeq + 1;
    }
    const seq = this.#localSeq ?? 1;

    let requestUri: SipUri = this.remoteTarget;
    const routes: string[] = this.routeSet.map((route) => route.toString());
    const first = this.routeSet[0];
    if (first !== undefined && first.uri.kind === 'sip' && !first.uri.params.has('lr')) {
      // Strict routing (RFC 2543 proxies): the first route becomes the Request-URI and the
      // remote target goes to the end of the Route set.
      requestUri = first.uri.clone();
      requestUri.headers = undefined;
      routes.shift();
      routes.push(`<${this.remoteTarget.toString()}>`);
    }

    const to = this.remoteUri.clone();
    to.tag = this.remoteTag;
    const from = this.localUri.clone();
    from.tag = this.localTag;
    const via = new Via(
      this.transport.viaTransport,
      this.localHost,
      this.localPort,
      new Map([
        ['branch', newBranch()],
        ['rport', null],
      ]),
    );
    const request = new SipRequest(
      method,
      requestUri,
      headerFields([
        ['Via', via.toString()],
        ['Max-Forwards', '70'],
        ['From', from.toString()],
        ['To', to.toString()],
        ['Call-ID', this.callId],
        ['CSeq', `${seq} ${method}`],
        ...routes.map((route) => ['Route', route] as const),
      ]),
    );
    if (method === 'INVITE' || method === 'UPDATE' || method === 'REFER' || method === 'NOTIFY') {
      request.addHeader('Contact', this.localContact);
    }
    request.addHeader('User-Agent', this.#services.userAgent);
    for (const [name, value] of options.headers ?? []) request.addHeader(name, value);
    if (options.body !== undefined && options.body.length > 0) {
      request.addHeader('Content-Type', options.contentType ?? 'application/sdp');
      request.body = options.body;
    }

    const firstRoute = request.routes[0];
    const routed = firstRoute !== undefined && firstRoute.uri.kind === 'sip' ? firstRoute.uri : requestUri;
    return { request, nextHop: this.flowTarget ?? routed };
  }

  /**
   * Sends a request inside the dialog and resolves when its transaction ends. A BYE terminates
   * the dialog as it is sent (RFC 3261 §15.1.1: the session ends without waiting for the 200).
   */
  sendRequest(
    method: string,
    options: { headers?: ReadonlyArray<readonly [string, string]>; body?: Buffer; contentType?: string } = {},
  ): Promise<DialogRequestOutcome> {
    const first = this.createRequest(method, options);
    if (method === 'BYE') this.terminate();
    const answerer = this.challengeAnswerer?.();
    return new Promise((resolve) => {
      const send = ({ request, nextHop }: { request: SipRequest; nextHop: SipUri }) =>
        this.#services.sendRequest(request, this.transport, nextHop, {
          onResponse: (response) => {
            if (response.status < 200) return;
            const authorization =
              (response.status === 401 || response.status === 407) && answerer !== undefined
                ? answerer(response, { method, uri: request.requestUri })
                : undefined;
            if (authorization === undefined) {
              resolve({ kind: 'response', response });
              return;
            }
            // §22.2: the same request again with credentials, as a new request of the dialog (next CSeq).
            send(
              this.createRequest(method, { ...options, headers: [...(options.headers ?? []), [authorization.name, authorization.value]] }),
            );
          },
          onTimeout: () => resolve({ kind: 'timeout' }),
          onTransportError: (error) => resolve({ kind: 'transport-error', error }),
        });
      send(first);
    });
  }

  /** An in-dialog request other than CANCEL (RFC 3261 §12.2.2). ACK comes with no transaction. */
  receiveRequest(request: SipRequest, transaction: InviteServerTransaction | NonInviteServerTransaction | undefined): void {
    if (request.method === 'ACK') {
      const waiting = this.#awaitingAck.get(request.cseq.seq);
      if (waiting !== undefined) {
        this.#awaitingAck.delete(request.cseq.seq);
        waiting.receiveAck(request);
      } else {
        this.#log.trace({ dialog: this.id }, 'ACK without a 2xx waiting for it absorbed');
      }
      return;
    }
    if (transaction === undefined) return;

    // §12.2.2: a lower CSeq than the last one seen is out of order.
    const seq = request.cseq.seq;
    if (this.#remoteSeq !== undefined && seq < this.#remoteSeq) {
      this.#respond(transaction, request, 500, { reason: 'Out of Order' });
      return;
    }
    this.#remoteSeq = seq;

    switch (request.method) {
      case 'BYE':
        this.#receiveBye(request, transaction as NonInviteServerTransaction);
        return;
      case 'INVITE':
        this.#receiveReinvite(request, transaction as InviteServerTransaction);
        return;
      case 'OPTIONS':
        this.#respond(transaction, request, 200, {
          headers: [
            ['Allow', this.#services.allow.join(', ')],
            ['Accept', 'application/sdp'],
          ],
        });
        return;
      default: {
        const nist = transaction as NonInviteServerTransaction;
        if (this.delegate.onRequest?.(request, nist) === true) return;
        const status = isKnownMethod(request.method) ? 405 : 501;
        this.#respond(transaction, request, status, { headers: [['Allow', this.#services.allow.join(', ')]] });
      }
    }
  }

  #receiveBye(request: SipRequest, transaction: NonInviteServerTransaction): void {
    this.#respond(transaction, request, 200);
    // §15.1.2: requests still pending in the dialog are answered; 487 is recommended.
    const pending = this.#pendingInvite;
    if (pending !== undefined && pending.state === 'proceeding') pending.reject(487);
    const delegate = this.delegate;
    this.terminate();
    delegate.onBye?.(request);
  }

  #receiveReinvite(request: SipRequest, transaction: InviteServerTransaction): void {
    if (this.#state !== 'confirmed') {
      // A re-INVITE on an early dialog is not allowed (RFC 3261 §14.2 applies to confirmed dialogs).
      this.#respond(transaction, request, 491);
      return;
    }
    if (this.outgoingInvitePending) {
      // §14.2: an INVITE while ours is in progress gets 491; both sides retry after a random delay.
      this.#respond(transaction, request, 491);
      return;
    }
    if (this.#pendingInvite !== undefined || this.#awaitingAck.size > 0) {
      // §14.2: a second INVITE before the first was answered (or acknowledged) is refused with
      // 500 and a Retry-After between 0 and 10 s.
      this.#respond(transaction, request, 500, {
        headers: [['Retry-After', String(Math.floor(Math.random() * 10))]],
      });
      return;
    }
    // §17.2.1: a 100 Trying at once, as the answer may wait for the media to be changed.
    this.#respond(transaction, request, 100);
    // §12.2.2: a target refresh request updates the remote target from its Contact.
    const contact = request.contacts[0];
    if (contact !== undefined && contact.uri.kind === 'sip') this.remoteTarget = contact.uri;
    const onReinvite = this.delegate.onReinvite;
    const invite = new IncomingInvite({ request, transaction, transport: this.transport, dialog: this }, this.#services);
    if (onReinvite === undefined) {
      invite.reject(488);
      return;
    }
    onReinvite(invite);
  }

  #respond(
    transaction: InviteServerTransaction | NonInviteServerTransaction,
    request: SipRequest,
    status: number,
    options: { reason?: string; headers?: ReadonlyArray<readonly [string, string]> } = {},
  ): void {
    const response = createResponse(request, status, {
      ...options,
      headers: [...(options.headers ?? []), ['Server', this.#services.userAgent]],
    });
    transaction.respond(response);
  }

  #transition(to: DialogState): void {
    const from = this.#state;
    if (!TRANSITIONS[from].includes(to)) throw new Error(`dialog ${this.id}: illegal transition ${from} -> ${to}`);
    this.#state = to;
    this.#log.trace({ dialog: this.id, from, to }, 'dialog state');
    if (to === 'terminated') {
      this.#awaitingAck.clear();
      this.#services.removeDialog(this);
    }
  }
}
