/**
 * The API's redirect of an answered SIP call: we send REFER (RFC 3515) asking the phone to call
 * the target itself, and follow the implicit subscription's NOTIFYs (`message/sipfrag`, §2.4.5).
 * A final 2xx in a NOTIFY means the phone reached the target: our call is then ended. Any other
 * final status leaves the call as it is. (An unanswered inbound call is redirected with a 302
 * instead; that is the call's own business.)
 */
import { CoreError, type Logger } from '@switchboard/core';
import type { Dialog } from '../../dialog/dialog.js';
import { createResponse } from '../../message/builders.js';
import type { SipRequest } from '../../message/sip-message.js';
import type { SipUri } from '../../message/uri.js';
import type { NonInviteServerTransaction } from '../../transaction/non-invite-server.js';

export type ReferOutcome = 'succeeded' | 'failed';

export class OutgoingRefer {
  readonly #dialog: Dialog;
  readonly #target: SipUri;
  readonly #userAgent: string;
  readonly #log: Logger;
  readonly #onOutcome: (outcome: ReferOutcome) => void;
  #seq: number | undefined;
  #settled = false;

  constructor(options: { dialog: Dialog; target: SipUri; userAgent: string; logger: Logger; onOutcome: (outcome: ReferOutcome) => void }) {
    this.#dialog = options.dialog;
    this.#target = options.target;
    this.#userAgent = options.userAgent;
    this.#log = options.logger;
    this.#onOutcome = options.onOutcome;
  }

  get settled(): boolean {
    return this.#settled;
  }

  /** Sends the REFER; resolves on 2xx, throws a CoreError when the phone refuses it. */
  async send(): Promise<void> {
    const local = this.#dialog.localUri.clone();
    local.tag = undefined;
    const outcome = await this.#dialog.sendRequest('REFER', {
      headers: [
        ['Refer-To', `<${this.#target.toString()}>`],
        ['Referred-By', local.toString()],
        ['User-Agent', this.#userAgent],
      ],
    });
    if (outcome.kind !== 'response') throw new CoreError('unavailable', `the REFER got no answer (${outcome.kind})`);
    const status = outcome.response.status;
    if (status < 200 || status >= 300) {
      this.#settled = true;
      throw new CoreError('conflict', `the far end refused the transfer (${status})`);
    }
    this.#seq = outcome.response.cseq.seq;
  }

  /**
   * An in-dialog NOTIFY: when it belongs to our REFER's subscription (`Event: refer`, with the
   * REFER's CSeq as id when one is given, RFC 3515 §2.4.6) it is answered here and true is returned.
   */
  receiveNotify(request: SipRequest, transaction: NonInviteServerTransaction): boolean {
    const event = request.getHeader('Event')?.trim().toLowerCase() ?? '';
    if (!event.startsWith('refer')) return false;
    const id = /;\s*id=(\d+)/.exec(event)?.[1];
    if (id !== undefined && this.#seq !== undefined && Number(id) !== this.#seq) return false;
    transaction.respond(createResponse(request, 200, { headers: [['Server', this.#userAgent]] }));
    const status = Number(/^SIP\/2\.0\s+(\d{3})/.exec(request.bodyText.trim())?.[1] ?? 'NaN');
    const terminated = (request.getHeader('Subscription-State') ?? '').trim().toLowerCase().startsWith('terminated');
    if (Number.isFinite(status) && status >= 200) this.#settle(status < 300 ? 'succeeded' : 'failed', status);
    else if (terminated) this.#settle('failed', undefined);
    return true;
  }

  #settle(outcome: ReferOutcome, status: number | undefined): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#log.info({ target: this.#target.toString(), status, outcome }, 'redirect by REFER');
    this.#onOutcome(outcome);
  }
}
