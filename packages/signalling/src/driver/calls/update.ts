/**
 * UPDATE inside a call (RFC 3311): a new offer without a new INVITE transaction, which some phones
 * use for hold. It is a target refresh request (§5.2: the remote target follows its Contact, and our
 * 2xx carries a Contact). An UPDATE while an offer of ours or theirs is still unanswered gets 500
 * with Retry-After (§5.2); an UPDATE without a body only refreshes the target (and the session, for
 * session timers).
 */
import type { Dialog } from '../../dialog/dialog.js';
import { createResponse } from '../../message/builders.js';
import type { SipRequest } from '../../message/sip-message.js';
import type { NonInviteServerTransaction } from '../../transaction/non-invite-server.js';

/** Headers for the 2xx of a refresh, or the status (and headers) it is refused with. */
export type RefreshOutcome =
  | { headers: Array<[string, string]>; status?: undefined }
  | { status: number; headers: Array<[string, string]> };

export interface UpdateContext {
  dialog: Dialog;
  userAgent: string;
  /** True while a re-INVITE's offer/answer is unfinished. */
  offerPending: boolean;
  /** True while an offer of ours (a re-INVITE we sent) awaits its answer: an offer meets 491. */
  localOfferPending?: boolean;
  /**
   * Every accepted UPDATE is a session refresh (RFC 4028 §7.4); returns the headers for our 2xx
   * (Session-Expires), or a status to refuse it with (422 and its headers).
   */
  onRefresh?(request: SipRequest): RefreshOutcome;
  /**
   * Answers the SDP offer: resolves with our answer, or a failure status (488 when nothing fits).
   * Called only for an UPDATE with an `application/sdp` body.
   */
  answer(offer: string): Promise<{ ok: true; body: Buffer } | { ok: false; status: number; warning?: string }>;
}

export function handleUpdate(request: SipRequest, transaction: NonInviteServerTransaction, update: UpdateContext): void {
  const respond = (status: number, headers: ReadonlyArray<readonly [string, string]> = [], body?: Buffer) =>
    transaction.respond(
      createResponse(request, status, {
        headers: [...headers, ['Contact', update.dialog.localContact], ['Server', update.userAgent]],
        ...(body !== undefined ? { body, contentType: 'application/sdp' } : {}),
      }),
    );
  if (update.localOfferPending === true && request.body.length > 0) {
    // RFC 3311 §5.2: an offer while our own offer is unanswered is refused with 491.
    respond(491);
    return;
  }
  if (update.offerPending) {
    respond(500, [['Retry-After', String(Math.floor(Math.random() * 10))]]);
    return;
  }
  const contact = request.contacts[0];
  if (contact !== undefined && contact.uri.kind === 'sip' && update.dialog.flowTarget === undefined) {
    update.dialog.remoteTarget = contact.uri;
  }
  if (request.body.length > 0 && request.contentType !== 'application/sdp') {
    respond(415, [['Accept', 'application/sdp']]);
    return;
  }
  const refresh: RefreshOutcome = update.onRefresh?.(request) ?? { headers: [] };
  if (refresh.status !== undefined) {
    respond(refresh.status, refresh.headers);
    return;
  }
  if (request.body.length === 0) {
    respond(200, refresh.headers);
    return;
  }
  update
    .answer(request.bodyText)
    .then((outcome) => {
      if (outcome.ok) respond(200, refresh.headers, outcome.body);
      else respond(outcome.status, outcome.warning === undefined ? [] : [['Warning', `305 switchboard "${outcome.warning}"`]]);
    })
    .catch(() => respond(500));
}
