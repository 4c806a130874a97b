/**
 * Transfer by REFER inside a call (RFC 3515, RFC 5589): the phone asks us to send the other party
 * elsewhere. The SIP side is here: the REFER is checked, accepted with 202, and the implicit
 * subscription gets a NOTIFY `message/sipfrag` of 100 Trying and then of the final outcome
 * (RFC 3515 §2.4.4, §2.4.5), unless the phone asked for none with `Refer-Sub: false` (RFC 4488 §4).
 *
 * - Blind (RFC 5589 §6): the Refer-To names an extension of the transferer's dialplan context.
 * - Attended (RFC 5589 §7): the Refer-To carries `Replaces` (RFC 3891) naming the transferer's
 *   other call with us; the transferee and that call's other party are connected.
 *
 * What the transfer does is decided by whoever owns the call's bridge (Dial()), which sets
 * `transferHandler` on the call while it is bridged; without one the REFER gets 603.
 */
import type { ChannelTechnology, Logger, TransferDecision, TransferProgressState, TransferRequestInfo } from '@switchboard/core';
import { SipParseError } from '../../errors.js';
import type { Dialog } from '../../dialog/dialog.js';
import { createResponse } from '../../message/builders.js';
import { parseNameAddr } from '../../message/name-addr.js';
import type { SipRequest } from '../../message/sip-message.js';
import type { SipUri } from '../../message/uri.js';
import type { NonInviteServerTransaction } from '../../transaction/non-invite-server.js';
import { type ReplacesTarget, replacesFromUri } from './replaces.js';

/** Where the transferee goes: an extension in the transferer's dialplan context. */
export interface BlindTransferTarget {
  exten: string;
  context: string;
}

/** What a REFER asks of the bridge owner. */
export type TransferRequest =
  | ({ kind: 'blind' } & BlindTransferTarget)
  | {
      kind: 'attended';
      /** The transferer's other call, whose dialog the Refer-To's Replaces names. */
      replaced: ChannelTechnology;
      replaces: ReplacesTarget;
    };

/**
 * How the transfer went. `afterNotify` runs once the final NOTIFY was answered (or could not be
 * sent): the transferer's leg is ended there, so that the NOTIFY goes before the BYE.
 */
export interface TransferOutcome {
  ok: boolean;
  afterNotify?: () => void;
}

export type TransferHandler = (request: TransferRequest) => Promise<TransferOutcome>;

/** A call that can be asked to transfer; the bridge owner sets the handler while it bridges it. */
export interface TransferSource {
  transferHandler: TransferHandler | undefined;
}

export function isTransferSource(tech: unknown): tech is TransferSource {
  return typeof tech === 'object' && tech !== null && 'transferHandler' in tech;
}

const EXTEN = /^[0-9A-Za-z*#+_.-]{1,64}$/;
const SIPFRAG = 'message/sipfrag;version=2.0';
/** How long the final NOTIFY waits for the 100 Trying one to be answered, so they arrive in order. */
const TRYING_WAIT_MS = 2000;

export interface ReferContext {
  dialog: Dialog;
  /** The call the REFER arrived on. */
  self: ChannelTechnology;
  /** The transferer's dialplan context (its endpoint's `context=`). */
  context: string;
  handler: TransferHandler | undefined;
  /** The confirmed call of ours whose dialog a Replaces names (RFC 3891 §3), if any. */
  findDialog(target: ReplacesTarget): ChannelTechnology | undefined;
  /**
   * Without a handler, core decides (its `transferRequested`): the channel's application may take
   * the transfer over (PJSIP_TRANSFER_HANDLING ari-only), `accepted` then gets the subscription its
   * transfer_progress is reported on; or core carries a blind transfer out in the channel's bridge.
   */
  application?: { offer(request: TransferRequestInfo): TransferDecision; accepted(subscription: ReferSubscription): void } | undefined;
  userAgent: string;
  logger: Logger;
}

type ParsedReferTo =
  | { kind: 'blind'; exten: string }
  | { kind: 'attended'; replaces: ReplacesTarget }
  | { kind: 'bad'; status: number; reason: string };

/** RFC 3515 §2.4.1: exactly one Refer-To, a SIP URI with an extension or a Replaces header. */
export function parseReferTo(values: readonly string[]): ParsedReferTo {
  const bad = { kind: 'bad', status: 400, reason: 'Bad Refer-To' } as const;
  if (values.length !== 1 || values[0] === undefined) return bad;
  let target: SipUri;
  try {
    const value = values[0].trim();
    const uri = parseNameAddr(value.includes('<') ? value : `<${value}>`).uri;
    if (uri.kind !== 'sip') return bad;
    target = uri;
  } catch (err) {
    if (!(err instanceof SipParseError)) throw err;
    return bad;
  }
  const replaces = replacesFromUri(target);
  if (replaces.kind === 'malformed') return { kind: 'bad', status: 400, reason: 'Bad Replaces' };
  if (replaces.kind === 'replaces') return { kind: 'attended', replaces: replaces.target };
  const exten = target.user;
  if (exten === undefined || !EXTEN.test(exten)) return bad;
  return { kind: 'blind', exten };
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
  const parsed = parseReferTo(request.getHeaderFields('Refer-To'));
  if (parsed.kind === 'bad') {
    respond(parsed.status, { reason: parsed.reason });
    return;
  }
  const subscribe = request.getHeader('Refer-Sub')?.trim().toLowerCase() !== 'false';
  const accept = () => respond(202, subscribe ? {} : { headers: [['Refer-Sub', 'false']] });
  const subscription = new ReferSubscription(refer.dialog, String(request.cseq.seq), subscribe);
  const handler = refer.handler;
  if (handler === undefined) {
    const decision = refer.application?.offer(describeTransfer(parsed, refer)) ?? { kind: 'refused' };
    if (decision.kind === 'application') {
      // The application decides; RFC 3515 §2.4.4 wants the subscription's first NOTIFY at once.
      accept();
      refer.application?.accepted(subscription);
      void subscription.progress('channel_progress');
      return;
    }
    if (decision.kind === 'started') {
      accept();
      void (async () => {
        // The 100 goes first, so the transferer sees it before anything the transfer does.
        await boundedWait(subscription.notify('SIP/2.0 100 Trying', false), TRYING_WAIT_MS);
        const outcome = await decision.run().catch((err: unknown) => {
          refer.logger.warn({ err }, 'transfer failed');
          return { ok: false, afterNotify: undefined };
        });
        refer.logger.info({ kind: parsed.kind, ok: outcome.ok }, 'transfer carried out by core');
        await subscription.notify(outcome.ok ? 'SIP/2.0 200 OK' : 'SIP/2.0 503 Service Unavailable', true);
        outcome.afterNotify?.();
      })();
      return;
    }
    // Nothing bridges this call, so there is nobody to transfer (RFC 3515 §2.4.2 allows refusing).
    respond(603, { reason: 'Transfer Not Available' });
    return;
  }
  accept();
  const final = (status: string) => subscription.notify(`SIP/2.0 ${status}`, true);

  void (async () => {
    const trying = subscription.notify('SIP/2.0 100 Trying', false);
    let outcome: TransferOutcome = { ok: false };
    if (parsed.kind === 'blind') {
      const target: BlindTransferTarget = { exten: parsed.exten, context: refer.context };
      outcome = await runHandler(handler, { kind: 'blind', ...target }, refer.logger);
      refer.logger.info({ ...target, ok: outcome.ok }, 'blind transfer');
      await trying;
      await final(outcome.ok ? '200 OK' : '503 Service Unavailable');
      outcome.afterNotify?.();
      return;
    }
    // Attended: the 100 goes first, so the transferer sees it before its other dialog's BYE.
    await boundedWait(trying, TRYING_WAIT_MS);
    const replaced = refer.findDialog(parsed.replaces);
    if (replaced === undefined || replaced === refer.self) {
      // The INVITE with Replaces this REFER stands for would have got 481 (RFC 3891 §3).
      refer.logger.info({ replaces: parsed.replaces.callId }, 'attended transfer: no such dialog');
      await final('481 Call/Transaction Does Not Exist');
      return;
    }
    outcome = await runHandler(handler, { kind: 'attended', replaced, replaces: parsed.replaces }, refer.logger);
    refer.logger.info({ replaces: parsed.replaces.callId, ok: outcome.ok }, 'attended transfer');
    await final(outcome.ok ? '200 OK' : '503 Service Unavailable');
    outcome.afterNotify?.();
  })();
}

/** The transfer as core's application hand-off sees it (ChannelTransfer's requested_destination). */
function describeTransfer(parsed: Exclude<ParsedReferTo, { kind: 'bad' }>, refer: ReferContext): TransferRequestInfo {
  if (parsed.kind === 'blind') return { kind: 'blind', destination: parsed.exten, context: refer.context };
  const replaced = refer.findDialog(parsed.replaces);
  return { kind: 'attended', protocolId: parsed.replaces.callId, ...(replaced !== undefined ? { replaced } : {}) };
}

async function runHandler(handler: TransferHandler, request: TransferRequest, logger: Logger): Promise<TransferOutcome> {
  try {
    return await handler(request);
  } catch (err) {
    logger.warn({ err }, 'transfer failed');
    return { ok: false };
  }
}

async function boundedWait(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    work,
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms);
      timer.unref();
    }),
  ]);
  clearTimeout(timer);
}

const PROGRESS_FRAGMENTS: Record<TransferProgressState, { fragment: string; final: boolean }> = {
  channel_progress: { fragment: 'SIP/2.0 100 Trying', final: false },
  channel_answered: { fragment: 'SIP/2.0 200 OK', final: true },
  channel_unavailable: { fragment: 'SIP/2.0 503 Service Unavailable', final: true },
  channel_declined: { fragment: 'SIP/2.0 603 Declined', final: true },
};

/**
 * The implicit subscription a REFER creates (RFC 3515 §2.4.4): NOTIFYs `message/sipfrag` with the
 * outcome, `Event: refer;id=<REFER CSeq>`, ended by the first final status. With `Refer-Sub: false`
 * (RFC 4488) there is none and nothing is sent.
 */
export class ReferSubscription {
  readonly #dialog: Dialog;
  readonly #id: string;
  readonly #active: boolean;
  #terminated = false;

  constructor(dialog: Dialog, id: string, active: boolean) {
    this.#dialog = dialog;
    this.#id = id;
    this.#active = active;
  }

  /** Whether a NOTIFY can still be sent on it. */
  get ended(): boolean {
    return this.#terminated || this.#dialog.state === 'terminated';
  }

  /** The application's transfer_progress, as a sipfrag (100, 200, 503, 603). */
  progress(state: TransferProgressState): Promise<void> {
    const { fragment, final } = PROGRESS_FRAGMENTS[state];
    return this.notify(fragment, final);
  }

  async notify(fragment: string, final: boolean): Promise<void> {
    if (this.ended) return;
    if (final) this.#terminated = true;
    if (!this.#active) return;
    await this.#dialog.sendRequest('NOTIFY', {
      headers: [
        ['Event', `refer;id=${this.#id}`],
        ['Subscription-State', final ? 'terminated;reason=noresource' : 'active;expires=60'],
      ],
      body: Buffer.from(`${fragment}\r\n`),
      contentType: SIPFRAG,
    });
  }
}
