// Over 500 lines: one state machine (prepared → up) with forking, early media, CANCEL, 401/422 retries and the UAC session timer, all moving its state; branch messages are in outbound-branch.ts, the shared call in call-core.ts.
/**
 * One outbound SIP call: the `ChannelTechnology` of a channel core created for a dial string. It
 * sends an INVITE with our SDP offer to every target (all registered contacts of an endpoint fork
 * in parallel, each in its own client transaction and Call-ID), reports 180/183 as ringing and
 * early media, and the first 2xx wins: it is acknowledged (RFC 3261 §13.2.2.4: the ACK for a 2xx is
 * the UAC core's job), its SDP answer is set on the media leg, and the other branches are cancelled
 * with `Reason: SIP;cause=200;text="Call completed elsewhere"` (RFC 3326). A 2xx that arrives from
 * another branch after that is acknowledged and ended with a BYE (§13.2.2.4).
 *
 *   prepared ──dial()──> calling ──first 2xx──> up ──hangup(): BYE──> ending ──> ended
 *      │                    │                    │
 *      │ hangup()           │ every branch       │ BYE received
 *      v                    │ failed, hangup()   v
 *    ended <────────────────┴─── (CANCEL) ───> ended
 *
 * Each target is a branch (outbound-branch.ts: its states, INVITE, CANCEL and UAC dialog). A CANCEL is sent only once a provisional response arrived (§9.1); asked earlier, it waits for one.
 */
import {
  type AudioCodecName,
  type CallerId,
  type ChannelTechnology,
  type ChannelTechnologyEvents,
  type Clock,
  CoreError,
  type Logger,
  type OutgoingHeaders,
  type SipEndpointConfig,
  type SipTransportConfig,
  type TransferProgressState,
} from '@switchboard/core';
import type { Dialog } from '../../dialog/dialog.js';
import { linkedUser, releaseLink, type TransactionLink } from './branch-link.js';
import type { IncomingInvite } from '../../dialog/incoming-invite.js';
import { SipError } from '../../errors.js';
import { EncodedRequest } from '../../message/encoded-message.js';
import { newCallId } from '../../message/ids.js';
import type { SipRequest, SipResponse } from '../../message/sip-message.js';
import type { SipUri } from '../../message/uri.js';
import type { Transport } from '../../transport/transport.js';
import { nextHopDestination, type UserAgentCore } from '../../ua/user-agent-core.js';
import { authorizedAttempt, ChallengeResponder, nextAttempt } from '../auth/outbound-auth.js';
import type { DtlsIdentities } from '../sdp/dtls-certificates.js';
import { negotiateAnswer } from '../sdp/sdp.js';
import { dialogIdentity, SDP, SipCallCore, type SipMediaEngine } from './call-core.js';
import type { EarlyMediaSource } from './early-media.js';
import {
  type Branch,
  buildCancel,
  buildInitialInvite,
  chooseFinalStatus,
  COMPLETED_ELSEWHERE,
  nextHopFor,
  type OutboundTarget,
  uacDialog,
} from './outbound-branch.js';
import { CAUSE_BEARER_NOT_AVAILABLE, CAUSE_NORMAL_CLEARING, causeForStatus, reasonHeaderForCause } from './hangup-causes.js';
import { applyInterval, OutboundSessionTimer } from './outbound-session-timer.js';
import { ReinviteClient } from './reinvite-client.js';
import type { DialogIdentity, ReplacesTarget } from './replaces.js';
import type { TransferHandler, TransferSource } from './transfer.js';

export { chooseFinalStatus, type OutboundTarget } from './outbound-branch.js';

export type OutboundCallState = 'prepared' | 'calling' | 'up' | 'ending' | 'ended';

const TRANSITIONS: Record<OutboundCallState, readonly OutboundCallState[]> = {
  prepared: ['calling', 'ended'],
  calling: ['up', 'ended'],
  up: ['ending', 'ended'],
  ending: ['ended'],
  ended: [],
};

/** Q.850 20: nobody registered for the endpoint (maps to CHANUNAVAIL in the dialplan). */
export const CAUSE_SUBSCRIBER_ABSENT = 20;
/** Q.850 19: the dial timeout ran out while the far end rang. */
export const CAUSE_NO_ANSWER = 19;
/** Q.850 26: another branch of a Dial answered. */
export const CAUSE_ANSWERED_ELSEWHERE = 26;

export interface OutboundCallEnvironment {
  ua: UserAgentCore;
  media: SipMediaEngine;
  /** The certificates of DTLS-SRTP calls (webrtc endpoints). */
  dtlsCertificates?: DtlsIdentities | undefined;
  clock: Clock;
  logger: Logger;
  endpoint: SipEndpointConfig;
  transport: Transport;
  transportConfig: SipTransportConfig;
  name: string;
  caller: CallerId;
  codecs: readonly AudioCodecName[];
  userAgent: string;
  /** Resolved when dial() runs (registrations can change between prepare and dial). */
  targets(): Promise<OutboundTarget[]>;
  /** Answer a trunk's 401/407 with these (RFC 3261 §22.2); absent: a challenge ends the branch. */
  outboundCredentials?: { username: string; password: string } | undefined;
  onEnded(call: OutboundSipCall): void;
  /** The confirmed call of ours a Replaces names (attended transfer, RFC 3891). */
  findDialog?(target: ReplacesTarget): ChannelTechnology | undefined;
  /** The URI a redirect's `resource` stands for (a registered contact, a given URI); throws CoreError. */
  redirectTarget?(resource: string): Promise<SipUri>;
  /** The other party's media leg, whose worker this call's leg shares (OutboundCallRequest.mediaNear). */
  mediaNear?: string | undefined;
}

export class OutboundSipCall implements ChannelTechnology, TransferSource, EarlyMediaSource {
  /** Set by the owner of the call's bridge (Dial()) while a blind transfer (REFER) can be served. */
  transferHandler: TransferHandler | undefined;
  readonly #env: OutboundCallEnvironment;
  readonly #log: Logger;
  /** The media leg, SDP, events, in-dialog requests and session refresh shared with inbound calls. */
  readonly #core: SipCallCore;
  #state: OutboundCallState = 'prepared';
  #protocolId: string;
  readonly #branches: Branch[] = [];
  #winner: Branch | undefined;
  #earlyMedia = false;
  #ringing = false;
  #timer: unknown;
  /** Session timers (RFC 4028) as the endpoint's `timers` options say (outbound-session-timer.ts). */
  readonly #timers: OutboundSessionTimer;
  /** Headers the dialplan adds to our INVITEs (PJSIP_HEADER(add,…) in a pre-dial handler). */
  readonly #extraHeaders: Array<[string, string]> = [];

  constructor(env: OutboundCallEnvironment) {
    this.#env = env;
    this.#protocolId = newCallId();
    this.#log = env.logger.child({ channel: env.name });
    this.#core = new SipCallCore({
      owner: {
        isLive: () => this.#state === 'up',
        sendBye: (cause) => this.#sendBye(cause),
        refreshSession: (interval) => this.#refreshSession(interval),
      },
      media: env.media,
      clock: env.clock,
      logger: this.#log,
      userAgent: env.userAgent,
      videoCodecs: () => env.endpoint.videoCodecs,
      findDialog: env.findDialog,
    });
    this.#core.useEncryptionOf(env.endpoint, env.dtlsCertificates);
    this.#core.rtpTimeout.configure(env.endpoint);
    this.#timers = new OutboundSessionTimer(env.endpoint, this.#core.sessionTimer);
  }

  get protocolId(): string {
    return this.#protocolId;
  }

  get mediaLegId(): string | undefined {
    return this.#core.legId;
  }

  /** Changeable until the first INVITE goes out (the state leaves `prepared` when dial() starts). */
  get outgoingHeaders(): OutgoingHeaders {
    return { list: this.#extraHeaders, sent: this.#state !== 'prepared' };
  }

  get state(): OutboundCallState {
    return this.#state;
  }

  /** Our view of the answered branch's dialog, for Replaces (RFC 3891 §3). */
  get confirmedDialog(): DialogIdentity | undefined {
    const dialog = this.#winner?.dialog;
    if (dialog === undefined || this.#state !== 'up') return undefined;
    return dialogIdentity(dialog);
  }

  /** Whether a provisional response carried a usable SDP answer (the far end sends early media). */
  get hasEarlyMedia(): boolean {
    return this.#earlyMedia;
  }

  /** Starts the INVITEs. With no target the call ends at once with cause 20 (subscriber absent). */
  async dial(events: ChannelTechnologyEvents, options: { timeoutSeconds: number }): Promise<void> {
    if (this.#state !== 'prepared') throw new SipError(500, 'Server Internal Error', `dial() on a call in state ${this.#state}`);
    this.#core.events = events;
    this.#transition('calling');
    const targets = await this.#env.targets();
    if (!this.#stillCalling()) return;
    if (targets.length === 0) {
      this.#log.info({ endpoint: this.#env.endpoint.name }, 'no contact to call');
      this.#finish(CAUSE_SUBSCRIBER_ABSENT);
      return;
    }
    await this.#createMedia(targets[0]);
    if (!this.#stillCalling()) return;
    const offer = this.#core.initialOffer(this.#env.codecs);
    for (const target of targets) await this.#startBranch(target, offer);
    if (!this.#stillCalling()) return;
    if (options.timeoutSeconds > 0) {
      this.#timer = this.#env.clock.setTimeout(() => this.#dialTimedOut(), options.timeoutSeconds * 1000);
    }
  }

  /** Whether the dial is still going on (it may have been hung up across an await). */
  #stillCalling(): boolean {
    return this.#state === 'calling';
  }

  /** An outbound call is answered by the far end; nothing to do on our side. */
  async answer(): Promise<void> {}

  /** The engine's `legRtpTimeout` for this call's leg: the callee's phone went quiet (rtp-timeout.ts). */
  rtpTimedOut(seconds: number): void {
    this.#core.rtpTimedOut(seconds, this.#env.name);
  }

  /** The API's redirect of the answered call: REFER to the target (redirect.ts); it ends on success. */
  async redirect(resource: string): Promise<void> {
    const resolve = this.#env.redirectTarget;
    if (resolve === undefined) throw new CoreError('unavailable', 'redirect is not available');
    const target = await resolve(resource);
    const dialog = this.#winner?.dialog;
    if (this.#state !== 'up' || dialog === undefined) throw new CoreError('precondition_failed', 'Channel is not answered');
    await this.#core.referTo(dialog, target);
  }

  /** The application's transfer_progress for a REFER it took over: a sipfrag NOTIFY (RFC 3515 §2.4.4). */
  async transferProgress(state: TransferProgressState): Promise<void> {
    await this.#core.transferProgress(state);
  }

  /** The manager's SendText: a MESSAGE inside the dialog of the answered call. */
  async sendText(text: string): Promise<void> {
    const dialog = this.#winner?.dialog;
    if (this.#state !== 'up' || dialog === undefined) throw new CoreError('precondition_failed', 'Channel is not answered');
    await this.#core.sendText(dialog, text);
  }

  async indicateRinging(): Promise<void> {}

  async indicateProgress(): Promise<void> {}

  async hangup(cause: number): Promise<void> {
    this.#core.hangupRequested = true;
    switch (this.#state) {
      case 'prepared':
        this.#end();
        return;
      case 'calling':
        // Cause 26 (Dial: another phone answered) becomes RFC 3326 `SIP;cause=200`, which phones
        // read as "completed elsewhere" and do not log as a missed call.
        this.#cancelBranches(cause === CAUSE_ANSWERED_ELSEWHERE ? COMPLETED_ELSEWHERE : reasonHeaderForCause(cause));
        this.#end();
        return;
      case 'up':
        this.#sendBye(cause);
        return;
      case 'ending':
      case 'ended':
        return;
    }
  }

  async #createMedia(first: OutboundTarget): Promise<void> {
    await this.#core.createLeg(
      this.#env.transportConfig,
      () => first.flow?.address ?? first.requestUri.host,
      undefined,
      this.#env.mediaNear,
    );
    if (this.#state !== 'calling') await this.#core.releaseMedia();
  }

  async #startBranch(target: OutboundTarget, offer: Buffer): Promise<void> {
    const transport = target.transport ?? this.#env.transport;
    const route = target.route ?? [];
    const nextHop = nextHopFor(target);
    const localHost = await transport.advertisedHost(nextHop.host);
    const invite = buildInitialInvite({
      transport,
      target,
      localHost,
      route,
      caller: this.#env.caller,
      timerHeaders: this.#timers.inviteHeaders(),
      extraHeaders: this.#extraHeaders,
      userAgent: this.#env.userAgent,
      offer,
    });
    const branch: Branch = {
      state: 'trying',
      transport,
      invite,
      auth: this.#env.outboundCredentials === undefined ? undefined : new ChallengeResponder(this.#env.outboundCredentials),
      timerRetried: false,
      nextHop,
      target,
      localHost,
      cancelReason: undefined,
      cancelled: false,
      dialog: undefined,
      finalStatus: undefined,
    };
    if (this.#branches.length === 0) this.#protocolId = invite.callId;
    this.#branches.push(branch);
    this.#sendInvite(branch);
  }

  #sendInvite(branch: Branch): void {
    const link: TransactionLink = {
      onResponse: (response) => this.#receiveResponse(branch, response),
      onTimeout: () => this.#branchFailed(branch, 408),
      onTransportError: (err) => {
        this.#log.info({ err, target: branch.target.requestUri.toString() }, 'INVITE could not be sent');
        this.#branchFailed(branch, 503);
      },
    };
    branch.link = link;
    this.#env.ua.sendRequest(branch.invite, branch.transport, branch.nextHop, linkedUser(link));
  }

  /**
   * RFC 3261 §22.2: a 401/407 is answered with credentials in a new INVITE of the same call (same
   * Call-ID and From tag, next CSeq, new branch; outbound-auth.ts says when to give up). Returns
   * false when it cannot be answered.
   */
  #retryWithCredentials(branch: Branch, response: SipResponse): boolean {
    if (branch.cancelReason !== undefined || !this.#stillCalling()) return false;
    const retry = authorizedAttempt(branch.invite, response, branch.auth);
    if (retry === undefined) return false;
    this.#resend(branch, retry);
    return true;
  }

  /** RFC 4028 §7.4: a 422 names the far end's Min-SE; the INVITE goes again proposing it, once. */
  #retryWithLargerInterval(branch: Branch, response: SipResponse): boolean {
    if (branch.timerRetried || branch.cancelReason !== undefined || !this.#stillCalling()) return false;
    const interval = this.#timers.heed422(branch.invite, response);
    if (interval === undefined) return false;
    branch.timerRetried = true;
    const retry = nextAttempt(branch.invite);
    applyInterval(retry, interval);
    this.#log.debug({ interval }, 'session interval too small (422); INVITE sent again');
    this.#resend(branch, retry);
    return true;
  }

  /** The branch's INVITE again, as a new client transaction (a challenge answered, a 422 heeded). */
  #resend(branch: Branch, invite: SipRequest): void {
    branch.invite = invite;
    branch.state = 'trying';
    this.#sendInvite(branch);
  }

  #receiveResponse(branch: Branch, response: SipResponse): void {
    const status = response.status;
    if (status < 200) {
      if (branch.state === 'trying') branch.state = 'proceeding';
      if (branch.cancelReason !== undefined && !branch.cancelled) {
        this.#sendCancel(branch, branch.cancelReason);
        return;
      }
      if (status === 100 || this.#state !== 'calling' || branch.cancelled) return;
      void this.#provisional(response);
      return;
    }
    if (status < 300) {
      this.#receive2xx(branch, response);
      return;
    }
    if ((status === 401 || status === 407) && this.#retryWithCredentials(branch, response)) return;
    if (status === 422 && this.#retryWithLargerInterval(branch, response)) return;
    this.#branchFailed(branch, status);
  }

  /** 180 → ringing; 183 (or 180) with SDP → early media from the first branch that sends it. */
  async #provisional(response: SipResponse): Promise<void> {
    if (response.body.length > 0 && response.contentType === SDP && !this.#earlyMedia) {
      const outcome = negotiateAnswer(response.bodyText, this.#env.codecs, this.#env.endpoint.videoCodecs, this.#core.sdes);
      if (outcome.ok) {
        this.#earlyMedia = true;
        await this.#core.applyRemote(outcome.remote);
        if (this.#state === 'calling') this.#core.emit((events) => events.progress?.());
        return;
      }
      this.#log.debug({ problem: outcome.reason }, 'early SDP unusable; ignored');
    }
    if (response.status === 180 && !this.#ringing) {
      this.#ringing = true;
      this.#core.emit((events) => events.ringing());
    } else if (response.status === 183 && !this.#earlyMedia) {
      this.#core.emit((events) => events.progress?.());
    }
  }

  #receive2xx(branch: Branch, response: SipResponse): void {
    const toTag = response.to.tag;
    if (toTag === undefined) {
      this.#log.info('2xx without a To tag ignored');
      return;
    }
    // A retransmitted 2xx (our ACK was lost): the same ACK again (§13.2.2.4).
    if (branch.dialog !== undefined && branch.dialog.remoteTag === toTag) {
      this.#sendAck(branch.dialog);
      return;
    }
    const dialog = this.#createDialog(branch, response, toTag);
    this.#sendAck(dialog, branch);
    if (this.#winner !== undefined || this.#state !== 'calling') {
      // Late 2xx: another fork (or a branch we already gave up) answered; acknowledge, then end it.
      branch.state = 'failed';
      void dialog.sendRequest('BYE', { headers: [['Reason', reasonHeaderForCause(CAUSE_NORMAL_CLEARING)]] });
      return;
    }
    branch.state = 'answered';
    branch.dialog = dialog;
    this.#winner = branch;
    this.#core.reinvites = new ReinviteClient({ dialog, ua: this.#env.ua, clock: this.#env.clock, logger: this.#log, ownsCallId: true });
    this.#protocolId = branch.invite.callId;
    this.#clearTimer();
    this.#cancelBranches(COMPLETED_ELSEWHERE, branch);
    void this.#applyAnswer(response);
  }

  async #applyAnswer(response: SipResponse): Promise<void> {
    const outcome =
      response.body.length > 0 && response.contentType === SDP
        ? negotiateAnswer(response.bodyText, this.#env.codecs, this.#env.endpoint.videoCodecs, this.#core.sdes)
        : ({ ok: false, reason: '2xx carries no SDP answer' } as const);
    if (!outcome.ok) {
      // RFC 3261 §13.2.1: we offered, so the 2xx must answer; without media the call cannot go on.
      this.#log.info({ problem: outcome.reason }, 'answer unusable; ending the call');
      this.#transition('up');
      this.#sendBye(CAUSE_BEARER_NOT_AVAILABLE);
      this.#core.report(CAUSE_BEARER_NOT_AVAILABLE);
      return;
    }
    await this.#core.applyRemote(outcome.remote);
    if (this.#state !== 'calling') return;
    this.#transition('up');
    this.#core.restartRtpTimeout();
    const agreed = this.#timers.answered(response);
    if (agreed !== undefined)
      this.#log.debug({ interval: agreed.interval, localRefresher: agreed.localRefresher }, 'session timer running');
    this.#core.emit((events) => events.answered());
  }

  /** A session refresh (§7.4): an offerless UPDATE if the callee takes UPDATE, else a re-INVITE. */
  async #refreshSession(interval: number): Promise<number> {
    const dialog = this.#winner?.dialog;
    if (dialog === undefined || dialog.state === 'terminated' || this.#state !== 'up') return 0;
    const headers = this.#timers.refreshHeaders(interval);
    if (this.#timers.peerAllowsUpdate) return this.#core.refreshByUpdate(dialog, headers, true);
    const result = await this.#core.refreshByReinvite(headers, this.#env.codecs);
    return result.kind === 'answered' ? result.response.status : result.status;
  }

  /** RFC 3261 §12.1.2: the UAC's view of the dialog the 2xx created. */
  #createDialog(branch: Branch, response: SipResponse, toTag: string): Dialog {
    const dialog = uacDialog(branch, response, toTag, this.#env.ua.services, this.#env.outboundCredentials);
    const current = () => this.#winner?.dialog === dialog && this.#state === 'up';
    this.#core.serveDialog(dialog, {
      self: this,
      live: current,
      // pjsip.conf `allow_transfer = no`: the callee's REFERs are refused (603).
      transferable: () => current() && this.#env.endpoint.allowTransfer !== false,
      context: this.#env.endpoint.context,
      bye: (cause) => {
        if (this.#winner?.dialog === dialog) this.#farEndEnded(cause);
      },
      reinvite: (reinvite) => this.#receiveReinvite(reinvite),
      offerPending: () => dialog.pendingInvite?.state === 'proceeding',
      refreshed: (update) => ({ headers: this.#winner?.dialog === dialog ? this.#timers.refreshedBy(update) : [] }),
      codecs: () => this.#env.codecs,
    });
    return dialog;
  }

  /** §13.2.2.4: the ACK for a 2xx is a new transaction-less request of the dialog, same CSeq number. */
  #sendAck(dialog: Dialog, branch?: Branch): void {
    const { request: built, nextHop } = dialog.createRequest('ACK');
    // Serialised once: sent now, and again for each retransmitted 2xx while the branch lingers.
    const request = new EncodedRequest(built);
    const destination = nextHopDestination(nextHop);
    if (branch !== undefined) branch.ack = { toTag: dialog.remoteTag, request, transport: dialog.transport, destination };
    dialog.transport.send(request, destination).catch((err: unknown) => {
      this.#log.info({ err }, 'ACK could not be sent');
    });
  }

  /** A re-INVITE from the callee (hold, resume, new address): answer it from the current session. */
  async #receiveReinvite(reinvite: IncomingInvite): Promise<void> {
    if (this.#state !== 'up' || this.#core.legId === undefined) {
      reinvite.reject(481);
      return;
    }
    const request = reinvite.request;
    if (request.body.length === 0 || request.contentType !== SDP) {
      // An offerless re-INVITE would need our offer in the 2xx and the answer in the ACK; refused here.
      reinvite.reject(488);
      return;
    }
    const outcome = this.#core.negotiateNewOffer(request.bodyText, this.#env.codecs);
    if (!outcome.ok) {
      reinvite.reject(488, { headers: [['Warning', `305 switchboard "${outcome.reason}"`]] });
      return;
    }
    await this.#core.applyRemote(outcome.remote);
    if (reinvite.state !== 'proceeding') return;
    const timerHeaders = this.#timers.refreshedBy(request);
    reinvite.accept({ body: this.#core.answerSdp(outcome.remote, outcome.streams), contentType: SDP, headers: timerHeaders });
  }

  #branchFailed(branch: Branch, status: number): void {
    if (branch.state === 'failed' || branch.state === 'answered') return;
    branch.state = 'failed';
    branch.finalStatus = status;
    if (this.#state !== 'calling' || this.#winner !== undefined) return;
    if (this.#branches.some((b) => b.state === 'trying' || b.state === 'proceeding')) return;
    const chosen = chooseFinalStatus(this.#branches.map((b) => b.finalStatus ?? 500));
    this.#log.debug({ status: chosen }, 'every branch failed');
    this.#finish(causeForStatus(chosen));
  }

  #dialTimedOut(): void {
    this.#timer = undefined;
    if (this.#state !== 'calling') return;
    this.#log.debug('dial timeout');
    this.#cancelBranches(reasonHeaderForCause(CAUSE_NO_ANSWER));
    this.#finish(CAUSE_NO_ANSWER);
  }

  /** §9.1: CANCEL only a branch that got a provisional response; earlier, wait for one. */
  #cancelBranches(reason: string, except?: Branch): void {
    for (const branch of this.#branches) {
      if (branch === except || branch.state === 'failed' || branch.state === 'answered' || branch.cancelled) continue;
      if (branch.state === 'proceeding') this.#sendCancel(branch, reason);
      else branch.cancelReason = reason;
    }
  }

  /** RFC 3261 §9.1: same Request-URI, Call-ID, From, To, CSeq number and top Via as the INVITE. */
  #sendCancel(branch: Branch, reason: string): void {
    branch.cancelled = true;
    const cancel = buildCancel(branch.invite, reason, this.#env.userAgent);
    this.#env.ua.sendRequest(cancel, branch.transport, branch.nextHop, {
      onResponse: () => {},
      onTimeout: () => this.#log.debug('CANCEL got no response'),
      onTransportError: (err) => this.#log.debug({ err }, 'CANCEL could not be sent'),
    });
  }

  #sendBye(cause: number): void {
    if (this.#state !== 'up') return;
    this.#transition('ending');
    void this.#core.bye(this.#winner?.dialog, cause, () => this.#end());
  }

  #farEndEnded(cause: number): void {
    if (this.#state === 'ended') return;
    this.#end();
    this.#core.report(cause);
  }

  /** The call failed before an answer: report the cause, release everything. */
  #finish(cause: number): void {
    this.#end();
    this.#core.report(cause);
  }

  #clearTimer(): void {
    if (this.#timer !== undefined) this.#env.clock.clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #end(): void {
    if (this.#state === 'ended') return;
    this.#transition('ended');
    this.#clearTimer();
    this.#core.close(this.#winner?.dialog);
    // Branches with a final response need the call no more (branch-link.ts); one still waiting
    // for it keeps the call, so that a 2xx crossing our CANCEL is acknowledged and ended with BYE.
    for (const branch of this.#branches) {
      if (branch.link !== undefined && (branch.finalStatus !== undefined || branch.dialog !== undefined)) {
        releaseLink(branch.link, branch.ack);
      }
    }
    this.#env.onEnded(this);
  }

  /** Driver shutdown: cancel or BYE, and report the end. */
  async shutdown(): Promise<void> {
    const state = this.#state;
    if (state === 'calling') {
      this.#cancelBranches(reasonHeaderForCause(CAUSE_NORMAL_CLEARING));
      this.#finish(CAUSE_NORMAL_CLEARING);
    } else if (state === 'up') {
      this.#sendBye(CAUSE_NORMAL_CLEARING);
      this.#core.report(CAUSE_NORMAL_CLEARING);
    } else if (state === 'prepared') {
      this.#end();
    }
  }

  #transition(to: OutboundCallState): void {
    const from = this.#state;
    if (!TRANSITIONS[from].includes(to)) throw new Error(`outbound call ${this.#env.name}: illegal transition ${from} -> ${to}`);
    this.#state = to;
    this.#log.debug({ from, to }, 'outbound call state');
  }
}
