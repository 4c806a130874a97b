/**
 * The UAS side of one INVITE, initial or re-INVITE (RFC 3261 §13.3): provisional responses,
 * the 2xx and its retransmission until the ACK arrives (§13.3.1.4), or a final error. It creates
 * the dialog with the first response that carries a To tag (§12.1.1).
 *
 *   proceeding ──1xx──> proceeding
 *   proceeding ──2xx──> accepted ──ACK──> confirmed
 *                          └──no ACK for 64*T1──> ack-timeout
 *   proceeding ──300-699 (CANCEL: 487)──> rejected
 */
import type { Logger } from '@switchboard/core';
import { copyRecordRoute, createResponse } from '../message/builders.js';
import { newTag } from '../message/ids.js';
import type { SipRequest, SipResponse } from '../message/sip-message.js';
import type { SipUri } from '../message/uri.js';
import type { InviteServerTransaction } from '../transaction/invite-server.js';
import { T1, T2 } from '../transaction/timers.js';
import type { Transport } from '../transport/transport.js';
import { Dialog } from './dialog.js';
import type { DialogServices } from './services.js';

export type IncomingInviteState = 'proceeding' | 'accepted' | 'confirmed' | 'rejected' | 'ack-timeout';

const TRANSITIONS: Record<IncomingInviteState, readonly IncomingInviteState[]> = {
  proceeding: ['accepted', 'rejected'],
  accepted: ['confirmed', 'ack-timeout'],
  confirmed: [],
  rejected: [],
  'ack-timeout': [],
};

export interface IncomingInviteDelegate {
  /** The caller cancelled (RFC 3261 §9.2); 200 to the CANCEL and 487 to the INVITE are sent. */
  onCancel?(cancel: SipRequest): void;
  /** The ACK for our 2xx arrived (it carries the SDP answer when the 2xx carried the offer). */
  onAck?(ack: SipRequest): void;
  /** 64*T1 passed without an ACK (RFC 3261 §13.3.1.4): the session should be ended with a BYE. */
  onAckTimeout?(): void;
  onTransportError?(err: unknown): void;
}

export interface ResponseContent {
  reason?: string;
  headers?: ReadonlyArray<readonly [string, string]>;
  body?: Buffer;
  contentType?: string;
}

export interface IncomingInviteInit {
  request: SipRequest;
  transaction: InviteServerTransaction;
  transport: Transport;
  /** The dialog a re-INVITE belongs to; absent for an initial INVITE. */
  dialog?: Dialog;
  /** Host written in our Contact and Via (initial INVITE only; a dialog knows its own). */
  localHost?: string;
}

export class IncomingInvite {
  readonly request: SipRequest;
  readonly transaction: InviteServerTransaction;
  readonly transport: Transport;
  readonly isReinvite: boolean;
  /** Our tag: the dialog's local tag for a re-INVITE, a fresh one otherwise. */
  readonly toTag: string;
  delegate: IncomingInviteDelegate = {};
  #dialog: Dialog | undefined;
  #state: IncomingInviteState = 'proceeding';
  readonly #localHost: string;
  readonly #services: DialogServices;
  readonly #log: Logger;
  #okResponse: SipResponse | undefined;
  #retransmitTimer: unknown;
  #giveUpTimer: unknown;
  #interval = T1;

  constructor(init: IncomingInviteInit, services: DialogServices) {
    this.request = init.request;
    this.transaction = init.transaction;
    this.transport = init.transport;
    this.isReinvite = init.dialog !== undefined;
    this.#dialog = init.dialog;
    this.toTag = init.dialog?.localTag ?? newTag();
    this.#localHost = init.dialog?.localHost ?? init.localHost ?? init.transport.localAddress;
    this.#services = services;
    this.#log = services.logger;
    init.dialog?.setPendingInvite(this);
    services.trackInvite(init.transaction, this);
    this.transaction.user = {
      onTransportError: (err) => this.delegate.onTransportError?.(err),
    };
  }

  get state(): IncomingInviteState {
    return this.#state;
  }

  get dialog(): Dialog | undefined {
    return this.#dialog;
  }

  /** A provisional response (101-199; the 100 Trying is the UA core's). */
  progress(status: number, content: ResponseContent = {}): void {
    if (status <= 100 || status >= 200) throw new Error(`progress() takes 101-199, not ${status}`);
    if (this.#state !== 'proceeding') return;
    const dialog = this.#ensureDialog();
    this.transaction.respond(this.#build(status, content, dialog));
  }

  /** Sends the 2xx and retransmits it until the ACK (RFC 3261 §13.3.1.4). Returns the confirmed dialog. */
  accept(content: ResponseContent = {}): Dialog {
    if (this.#state !== 'proceeding') throw new Error(`accept() in state ${this.#state}`);
    const dialog = this.#ensureDialog();
    const response = this.#build(200, content, dialog);
    response.addHeader('Allow', this.#services.allow.join(', '));
    if (this.#services.supported.length > 0) response.addHeader('Supported', this.#services.supported.join(', '));
    this.#okResponse = response;
    this.#transition('accepted');
    dialog.confirm();
    dialog.awaitAck(this.request.cseq.seq, this);
    this.transaction.respond(response);
    const clock = this.#services.clock;
    this.#retransmitTimer = clock.setTimeout(() => this.#retransmit(), this.#interval);
    this.#giveUpTimer = clock.setTimeout(() => this.#giveUp(), 64 * T1);
    return dialog;
  }

  /** A final error response (300-699). The early dialog, if any, ends; a re-INVITE's dialog stays. */
  reject(status: number, content: ResponseContent = {}): void {
    if (status < 300 || status > 699) throw new Error(`reject() takes 300-699, not ${status}`);
    if (this.#state !== 'proceeding') return;
    this.#transition('rejected');
    this.transaction.respond(this.#build(status, content, undefined));
    const dialog = this.#dialog;
    if (dialog !== undefined) {
      dialog.setPendingInvite(undefined);
      if (!this.isReinvite) dialog.terminate();
    }
    this.#release();
  }

  /** The UA core matched a CANCEL to this INVITE (RFC 3261 §9.2). */
  cancel(cancel: SipRequest): void {
    if (this.#state !== 'proceeding') return;
    const delegate = this.delegate;
    this.reject(487);
    delegate.onCancel?.(cancel);
  }

  /** The dialog matched the ACK for our 2xx. */
  receiveAck(ack: SipRequest): void {
    if (this.#state !== 'accepted') return;
    this.#stopTimers();
    this.#transition('confirmed');
    this.#dialog?.setPendingInvite(undefined);
    this.delegate.onAck?.(ack);
    this.#release();
  }

  /** Stops 2xx retransmission without waiting further (the owner is shutting down). */
  abandon(): void {
    this.#stopTimers();
    if (this.#state === 'accepted') {
      this.#dialog?.stopAwaitingAck(this.request.cseq.seq);
      this.#dialog?.setPendingInvite(undefined);
    }
  }

  #retransmit(): void {
    if (this.#state !== 'accepted' || this.#okResponse === undefined) return;
    this.#log.trace({ callId: this.request.callId, interval: this.#interval }, '2xx retransmitted');
    this.transaction.respond(this.#okResponse);
    if (this.transaction.terminated) {
      this.transport.sendResponse(this.#okResponse).catch((err: unknown) => this.delegate.onTransportError?.(err));
    }
    // §13.3.1.4: the interval starts at T1 and doubles up to T2.
    this.#interval = Math.min(this.#interval * 2, T2);
    this.#retransmitTimer = this.#services.clock.setTimeout(() => this.#retransmit(), this.#interval);
  }

  #giveUp(): void {
    if (this.#state !== 'accepted') return;
    this.#stopTimers();
    this.#transition('ack-timeout');
    this.#dialog?.stopAwaitingAck(this.request.cseq.seq);
    this.#dialog?.setPendingInvite(undefined);
    this.#log.debug({ callId: this.request.callId }, 'no ACK for the 2xx within 64*T1');
    this.delegate.onAckTimeout?.();
    this.#release();
  }

  /**
   * Done: nothing more is reported to the call, and neither the transaction (Timer L or H, up to
   * 32 s) nor the UA core's INVITE table keeps this object or the call with it any longer (see
   * driver/calls/branch-link.ts for the figures).
   */
  #release(): void {
    this.delegate = {};
    this.transaction.user = {};
    this.#okResponse = undefined;
    this.#services.untrackInvite(this.transaction);
  }

  #stopTimers(): void {
    const clock = this.#services.clock;
    if (this.#retransmitTimer !== undefined) clock.clearTimeout(this.#retransmitTimer);
    if (this.#giveUpTimer !== undefined) clock.clearTimeout(this.#giveUpTimer);
    this.#retransmitTimer = undefined;
    this.#giveUpTimer = undefined;
  }

  /** The dialog the first tagged response creates (RFC 3261 §12.1.1). */
  #ensureDialog(): Dialog {
    if (this.#dialog !== undefined) return this.#dialog;
    const request = this.request;
    const contact = request.contacts[0];
    const target: SipUri | undefined = contact?.uri.kind === 'sip' ? contact.uri : undefined;
    const fallback = request.uri;
    const remoteTarget = target ?? (fallback.kind === 'sip' ? fallback : undefined);
    if (remoteTarget === undefined) throw new Error('INVITE without a SIP Contact reached dialog creation');
    const localUri = request.to.clone();
    localUri.tag = undefined;
    const remoteUri = request.from.clone();
    remoteUri.tag = undefined;
    const dialog = new Dialog(
      {
        callId: request.callId,
        localTag: this.toTag,
        remoteTag: request.from.tag ?? '',
        localUri,
        remoteUri,
        remoteTarget,
        routeSet: request.recordRoutes,
        remoteSeq: request.cseq.seq,
        transport: this.transport,
        localHost: this.#localHost,
        localPort: this.transport.localPort,
      },
      this.#services,
    );
    dialog.setPendingInvite(this);
    this.#services.addDialog(dialog);
    this.#dialog = dialog;
    return dialog;
  }

  #build(status: number, content: ResponseContent, dialog: Dialog | undefined): SipResponse {
    const response = createResponse(this.request, status, {
      reason: content.reason,
      toTag: this.toTag,
      body: content.body,
      contentType: content.contentType,
    });
    if (dialog !== undefined) {
      copyRecordRoute(this.request, response);
      response.addHeader('Contact', dialog.localContact);
    }
    response.addHeader('Server', this.#services.userAgent);
    for (const [name, value] of content.headers ?? []) response.addHeader(name, value);
    return response;
  }

  #transition(to: IncomingInviteState): void {
    const from = this.#state;
    if (!TRANSITIONS[from].includes(to)) throw new Error(`INVITE ${this.request.callId}: illegal transition ${from} -> ${to}`);
    this.#state = to;
  }
}
