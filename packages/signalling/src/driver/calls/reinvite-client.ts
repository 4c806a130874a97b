/**
 * Re-INVITEs we send in a confirmed dialog (RFC 3261 §14.1): a session refresh (RFC 4028) or a new
 * offer. The 2xx is acknowledged by us (§13.2.2.4: the ACK of a 2xx is the UAC core's job, again for
 * every retransmission of it); a 401/407 is answered through the dialog's challenge answerer.
 *
 * Glare: while our re-INVITE is unanswered the dialog refuses the peer's INVITE with 491
 * (`Dialog.outgoingInvitePending`, §14.2); when ours is answered 491 we try again after the §14.1
 * delay — 2.1 to 4 s if we generated the Call-ID, else 0 to 2 s, in units of 10 ms — so that the
 * two sides do not collide again.
 *
 *   idle ──send()──> pending ──2xx: ACK──> idle (answered)
 *                      │ 491 → waiting (random delay) → pending (bounded attempts)
 *                      │ other final, timeout → idle (failed)
 */
import type { Clock, Logger } from '@switchboard/core';
import type { Dialog } from '../../dialog/dialog.js';
import type { SipRequest, SipResponse } from '../../message/sip-message.js';
import type { SipUri } from '../../message/uri.js';
import type { UserAgentCore } from '../../ua/user-agent-core.js';

export type ReinviteResult =
  | { kind: 'answered'; response: SipResponse }
  /** A final non-2xx status, or 0 when no response came (timeout or transport error). */
  | { kind: 'failed'; status: number; response?: SipResponse };

/** A re-INVITE answered 491 is tried this many times in all before we give up. */
export const MAX_GLARE_ATTEMPTS = 3;

/** RFC 3261 §14.1: the wait before retrying a re-INVITE answered 491, in ms (10 ms units). */
export function glareRetryDelayMs(ownsCallId: boolean, random: () => number = Math.random): number {
  const [low, high] = ownsCallId ? [210, 400] : [0, 200];
  return (low + Math.floor(random() * (high - low + 1))) * 10;
}

/**
 * Runs `attempt` (an in-dialog request resolving with its final status, 0 for none) again after
 * the §14.1 delay while it is answered 491 (RFC 3311 §5.2 applies the same rule to UPDATE), up to
 * MAX_GLARE_ATTEMPTS times; resolves with the last status.
 */
export async function retryOnGlare(
  attempt: () => Promise<number>,
  options: { clock: Clock; ownsCallId: boolean; random?: () => number },
): Promise<number> {
  for (let tries = 1; ; tries++) {
    const status = await attempt();
    if (status !== 491 || tries >= MAX_GLARE_ATTEMPTS) return status;
    const delay = glareRetryDelayMs(options.ownsCallId, options.random);
    await new Promise<void>((resolve) => options.clock.setTimeout(resolve, delay));
  }
}

export interface ReinviteClientOptions {
  dialog: Dialog;
  ua: Pick<UserAgentCore, 'sendRequest' | 'sendStateless'>;
  clock: Clock;
  logger: Pick<Logger, 'debug' | 'info'>;
  /** Whether we generated the dialog's Call-ID (we sent the initial INVITE). */
  ownsCallId: boolean;
  random?: () => number;
}

export interface ReinviteContent {
  headers?: ReadonlyArray<readonly [string, string]>;
  body?: Buffer;
  contentType?: string;
}

export class ReinviteClient {
  readonly #options: ReinviteClientOptions;
  #pending = false;

  constructor(options: ReinviteClientOptions) {
    this.#options = options;
  }

  /** Whether a re-INVITE of ours is unanswered (its offer is outstanding). */
  get pending(): boolean {
    return this.#pending;
  }

  /**
   * Sends the re-INVITE (again after a 491, up to MAX_GLARE_ATTEMPTS) and resolves with its outcome.
   * `content` is called for each attempt, so that a retry carries the session as it is then.
   */
  async send(content: () => ReinviteContent): Promise<ReinviteResult> {
    const { dialog, clock, logger } = this.#options;
    for (let attempt = 1; ; attempt++) {
      if (dialog.state === 'terminated') return { kind: 'failed', status: 481 };
      const result = await this.#sendOnce(content());
      if (result.kind !== 'failed' || result.status !== 491 || attempt >= MAX_GLARE_ATTEMPTS) return result;
      const delay = glareRetryDelayMs(this.#options.ownsCallId, this.#options.random);
      logger.debug({ attempt, delay }, 're-INVITE met glare (491); trying again');
      await new Promise<void>((resolve) => clock.setTimeout(resolve, delay));
    }
  }

  #sendOnce(content: ReinviteContent): Promise<ReinviteResult> {
    const { dialog, ua, logger } = this.#options;
    const answerer = dialog.challengeAnswerer?.();
    this.#pending = true;
    dialog.outgoingInvitePending = true;
    return new Promise<ReinviteResult>((resolve) => {
      let done = false;
      const finish = (result: ReinviteResult) => {
        if (done) return;
        done = true;
        this.#pending = false;
        dialog.outgoingInvitePending = false;
        resolve(result);
      };
      const send = ({ request, nextHop }: { request: SipRequest; nextHop: SipUri }) => {
        ua.sendRequest(request, dialog.transport, nextHop, {
          onResponse: (response) => {
            if (response.status < 200) return;
            if (response.status < 300) {
              // Every 2xx (a retransmission means our ACK was lost) is acknowledged.
              this.#ack(request);
              finish({ kind: 'answered', response });
              return;
            }
            const authorization =
              !done && (response.status === 401 || response.status === 407) && answerer !== undefined
                ? answerer(response, { method: 'INVITE', uri: request.requestUri })
                : undefined;
            if (authorization !== undefined) {
              send(
                dialog.createRequest('INVITE', {
                  ...content,
                  headers: [...(content.headers ?? []), [authorization.name, authorization.value]],
                }),
              );
              return;
            }
            finish({ kind: 'failed', status: response.status, response });
          },
          onTimeout: () => finish({ kind: 'failed', status: 0 }),
          onTransportError: (err) => {
            logger.info({ err }, 're-INVITE could not be sent');
            finish({ kind: 'failed', status: 0 });
          },
        });
      };
      send(dialog.createRequest('INVITE', content));
    });
  }

  /** §13.2.2.4: the ACK of a 2xx carries the INVITE's CSeq number. */
  #ack(invite: SipRequest): void {
    const { dialog, ua, logger } = this.#options;
    const { request, nextHop } = dialog.createRequest('ACK');
    request.setHeader('CSeq', `${invite.cseq.seq} ACK`);
    for (const name of ['Authorization', 'Proxy-Authorization']) {
      const value = invite.getHeader(name);
      if (value !== undefined) request.setHeader(name, value);
    }
    ua.sendStateless(request, dialog.transport, nextHop).catch((err: unknown) => logger.info({ err }, 'ACK could not be sent'));
  }
}
