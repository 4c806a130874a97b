/**
 * Blind transfer by REFER inside a call (RFC 3515, RFC 5589 §6): the phone asks us to send the
 * other party to the Refer-To extension. The SIP side is here: the REFER is checked, accepted with
 * 202, and the implicit subscription gets a NOTIFY `message/sipfrag` of 100 Trying and then of
 * 200 OK or 503 (RFC 3515 §2.4.4, §2.4.5), unless the phone asked for none with `Refer-Sub: false`
 * (RFC 4488 §4). What the transfer does is decided by whoever owns the call's bridge (Dial()),
 * which sets `transferHandler` on the call while it is bridged; without one the REFER gets 603.
 *
 * Attended transfer (a Refer-To with `Replaces`, RFC 3891) is answered 501: it needs the
 * replaced dialog matched to a channel of another bridge, which this driver does not do.
 */
import type { Logger } from '@switchboard/core';
import { SipParseError } from '../errors.js';
import type { Dialog } from '../dialog/dialog.js';
import { createResponse } from '../message/builders.js';
import { parseNameAddr } from '../message/name-addr.js';
import type { SipRequest } from '../message/sip-message.js';
import type { NonInviteServerTransaction } from '../transaction/non-invite-server.js';

/** Where the transferee goes: an extension in the transferer's dialplan context. */
export interface BlindTransferTarget {
  exten: string;
  context: string;
}

/** Resolves true when the transferee was sent on its way, false when the transfer failed. */
export type TransferHandler = (target: BlindTransferTarget) => Promise<boolean>;

/** A call that can be asked to transfer; the bridge owner sets the handler while it bridges it. */
export interface TransferSource {
  transferHandler: TransferHandler | undefined;
}

export function isTransferSource(tech: unknown): tech is TransferSource {
  return typeof tech === 'object' && tech !== null && 'transferHandler' in tech;
}

const EXTEN = /^[0-9A-Za-z*#+_.-]{1,64}$/;
const SIPFRAG = 'message/sipfrag;version=2.0';

export interface ReferContext {
  dialog: Dialog;
  /** The transferer's dialplan context (its endpoint's `context=`). */
  context: string;
  handler: TransferHandler | undefined;
  userAgent: string;
  logger: Logger;
}

/** Answers an in-dialog REFER and runs the transfer it asks for. */
export function handleRefer(request: SipRequest, transaction: NonInviteServerTransaction, refer: ReferContext): void {
  const respond = (status: number, extra: { reason?: string; headers?: ReadonlyArray<readonly [string, string]> } = {}) =>
    transaction.respond(
      createResponse(request, status, {
        ...(extra.reason !== undefined ? { reason: extra.reason } : {}),
        headers: [...(extra.headers ?? []), ['Server', refer.userAgent]],
      }),
    );
  const referTo = request.getHeaderFields('Refer-To');
  // RFC 3515 §2.4.1: exactly one Refer-To.
  if (referTo.length !== 1 || referTo[0] === undefined) {
    respond(400, { reason: 'Bad Refer-To' });
    return;
  }
  let exten: string | undefined;
  let replaces = false;
  try {
    const value = referTo[0].trim();
    const target = parseNameAddr(value.includes('<') ? value : `<${value}>`).uri;
    if (target.kind === 'sip') {
      exten = target.user;
      replaces = target.headers !== undefined && /(^|&)replaces=/i.test(target.headers);
    }
  } catch (err) {
    if (!(err instanceof SipParseError)) throw err;
  }
  if (replaces) {
    respond(501, { reason: 'Attended Transfer Not Implemented' });
    return;
  }
  if (exten === undefined || !EXTEN.test(exten)) {
    respond(400, { reason: 'Bad Refer-To' });
    return;
  }
  const handler = refer.handler;
  if (handler === undefined) {
    // Nothing bridges this call, so there is nobody to transfer (RFC 3515 §2.4.2 allows refusing).
    respond(603, { reason: 'Transfer Not Available' });
    return;
  }
  const subscribe = request.getHeader('Refer-Sub')?.trim().toLowerCase() !== 'false';
  respond(202, subscribe ? {} : { headers: [['Refer-Sub', 'false']] });
  const id = String(request.cseq.seq);
  const notify = async (fragment: string, state: string) => {
    if (!subscribe || refer.dialog.state === 'terminated') return;
    await refer.dialog.sendRequest('NOTIFY', {
      headers: [
        ['Event', `refer;id=${id}`],
        ['Subscription-State', state],
      ],
      body: Buffer.from(`${fragment}\r\n`),
      contentType: SIPFRAG,
    });
  };
  const target: BlindTransferTarget = { exten, context: refer.context };
  void (async () => {
    const trying = notify('SIP/2.0 100 Trying', 'active;expires=60');
    let ok = false;
    try {
      ok = await handler(target);
    } catch (err) {
      refer.logger.warn({ err }, 'transfer failed');
    }
    refer.logger.info({ ...target, ok }, 'blind transfer');
    await trying;
    await notify(ok ? 'SIP/2.0 200 OK' : 'SIP/2.0 503 Service Unavailable', 'terminated;reason=noresource');
  })();
}
