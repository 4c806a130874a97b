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
 * Branch (one INVITE client transaction):
 *
 *   trying ──1xx──> proceeding ──2xx──> answered
 *     │                 │
 *     └──── 3xx-6xx, Timer B, CANCEL'd ──> failed
 *
 * A CANCEL is sent only once a provisional response arrived (§9.1); asked earlier, it waits for one.
 */
import {
  type AudioCodecName,
  type CallerId,
  type ChannelTechnology,
  type ChannelTechnologyEvents,
  type Clock,
  CoreError,
  type Logger,
  type SipEndpointConfig,
  type SipTransportConfig,
  type TransferProgressState,
} from '@switchboard/core';
import { answerInfo } from './dtmf-info.js';
import type { DialogIdentity, ReplacesTarget } from './replaces.js';
import { OutgoingRefer } from './redirect.js';
import { handleRefer, type ReferSubscription, type TransferHandler, type TransferSource } from './transfer.js';
import type { EarlyMediaSource } from './early-media.js';
import { handleUpdate } from './update.js';
import { Dialog } from '../../dialog/dialog.js';
import type { IncomingInvite } from '../../dialog/incoming-invite.js';
import { SipError } from '../../errors.js';
import { newBranch, newCallId, newTag } from '../../message/ids.js';
import { NameAddr, parseNameAddr } from '../../message/name-addr.js';
import { headerFields, SipRequest, type SipResponse } from '../../message/sip-message.js';
import { SipUri } from '../../message/uri.js';
import { Via } from '../../message/via.js';
import { isWildcardAddress, localAddressToward } from '../../transport/local-address.js';
import type { PeerAddress, Transport } from '../../transport/transport.js';
import type { UserAgentCore } from '../../ua/user-agent-core.js';
import { authorizedAttempt, ChallengeResponder, dialogChallengeAnswerer, nextAttempt } from '../auth/outbound-auth.js';
import {
  applyInterval,
  intervalAfter422,
  inviteTimerHeaders,
  readTimerAnswer,
  refreshHeaders,
  type TimerPolicy,
  timerPolicy,
} from './outbound-session-timer.js';
import { ReinviteClient, type ReinviteResult, retryOnGlare } from './reinvite-client.js';
import { readSessionTimer, SessionTimer } from './session-timer.js';
import {
  CAUSE_BEARER_NOT_AVAILABLE,
  CAUSE_NORMAL_CLEARING,
  CAUSE_RECOVERY_ON_TIMER_EXPIRY,
  causeForStatus,
  causeFromReasonHeader,
  reasonHeaderForCause,
} from './hangup-causes.js';
import type { SipMediaEngine } from './inbound-call.js';
import {
  answerDirection,
  type LocalAudio,
  LocalSdpSession,
  type MediaDirection,
  negotiateAnswer,
  negotiateOffer,
  type OfferedStream,
  offerFormats,
  type RemoteMedia,
} from '../sdp/sdp.js';
import { legSrtpOf, mediaSecurityOf } from '../sdp/sdes.js';
import { legVideo, localVideo, wantsVideo } from '../sdp/sdp-video.js';

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

/** Where one branch goes. */
export interface OutboundTarget {
  requestUri: SipUri;
  /** The To URI (the Request-URI without its parameters when not given). */
  toUri?: SipUri;
  /** Send to this address instead of resolving the URI (a registered phone's NAT flow). */
  flow?: PeerAddress | undefined;
  /** Route values for this target (a registration's Path), outermost first. */
  route?: readonly string[] | undefined;
  /** The transport for this target (a contact registered over TCP); the call's default otherwise. */
  transport?: Transport | undefined;
}

export interface OutboundCallEnvironment {
  ua: UserAgentCore;
  media: SipMediaEngine;
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
}

type BranchState = 'trying' | 'proceeding' | 'answered' | 'failed';

interface Branch {
  state: BranchState;
  transport: Transport;
  /** The INVITE in flight (a new one after a 401/407 was answered with credentials). */
  invite: SipRequest;
  /** Answers the branch's 401/407 challenges (outbound_auth); undefined: a challenge ends it. */
  auth: ChallengeResponder | undefined;
  /** A 422 was heeded once (RFC 4028 §7.4); a second one ends the branch. */
  timerRetried: boolean;
  nextHop: SipUri;
  target: OutboundTarget;
  localHost: string;
  /** A CANCEL was asked for before any provisional response; send it when one arrives. */
  cancelReason: string | undefined;
  cancelled: boolean;
  dialog: Dialog | undefined;
  finalStatus: number | undefined;
}

const SDP = 'application/sdp';
/** RFC 3326 §2 Reason for the branches that lost to an answer. */
const COMPLETED_ELSEWHERE = 'SIP;cause=200;text="Call completed elsewhere"';
/** The methods the dialog of a call we place serves (UPDATE for hold and session refresh, INFO for DTMF, REFER). */
const ALLOW = 'INVITE, ACK, CANCEL, BYE, OPTIONS, UPDATE, INFO, REFER';

export class OutboundSipCall implements ChannelTechnology, TransferSource, EarlyMediaSource {
  /** Set by the owner of the call's bridge (Dial()) while a blind transfer (REFER) can be served. */
  transferHandler: TransferHandler | undefined;
  readonly #env: OutboundCallEnvironment;
  readonly #log: Logger;
  #state: OutboundCallState = 'prepared';
  #protocolId: string;
  #events: ChannelTechnologyEvents | undefined;
  readonly #branches: Branch[] = [];
  #winner: Branch | undefined;
  #legId: string | undefined;
  #legReleased = false;
  #mediaAddress = '';
  #mediaPort = 0;
  /** The leg's video RTP port, when the endpoint allows video codecs. */
  #videoPort: number | undefined;
  readonly #sdp = new LocalSdpSession();
  #remote: RemoteMedia | undefined;
  #earlyMedia = false;
  #ringing = false;
  #hangupRequested = false;
  #reported = false;
  #timer: unknown;
  #onHold = false;
  /** The REFER left to the channel's application, whose progress transferProgress reports. */
  #referSubscription: ReferSubscription | undefined;
  /** The REFER we sent for the API's redirect, whose NOTIFYs tell whether the call can end. */
  #outgoingRefer: OutgoingRefer | undefined;
  /** Session timers (RFC 4028) as the endpoint's `timers` options say (outbound-session-timer.ts). */
  #timerPolicy: TimerPolicy;
  #proposedInterval: number;
  readonly #sessionTimer: SessionTimer;
  /** Our re-INVITEs in the answered dialog (session refresh), with glare handling. */
  #reinvites: ReinviteClient | undefined;
  /** The callee's 2xx listed UPDATE in Allow: refreshes go as UPDATE, else as re-INVITE. */
  #peerAllowsUpdate = false;

  constructor(env: OutboundCallEnvironment) {
    this.#env = env;
    this.#protocolId = newCallId();
    this.#log = env.logger.child({ channel: env.name });
    this.#timerPolicy = timerPolicy(env.endpoint);
    this.#sdp.security = mediaSecurityOf(env.endpoint);
    this.#proposedInterval = this.#timerPolicy.sessionExpires;
    this.#sessionTimer = new SessionTimer(env.clock, {
      refresh: (interval) => this.#refreshSession(interval),
      expired: () => {
        this.#log.info('session timer expired');
        this.#sendBye(CAUSE_RECOVERY_ON_TIMER_EXPIRY);
        this.#report(CAUSE_RECOVERY_ON_TIMER_EXPIRY);
      },
    });
  }

  get protocolId(): string {
    return this.#protocolId;
  }

  get mediaLegId(): string | undefined {
    return this.#legId;
  }

  get state(): OutboundCallState {
    return this.#state;
  }

  /** Our view of the answered branch's dialog, for Replaces (RFC 3891 §3). */
  get confirmedDialog(): DialogIdentity | undefined {
    const dialog = this.#winner?.dialog;
    if (dialog === undefined || this.#state !== 'up') return undefined;
    return { callId: dialog.callId, localTag: dialog.localTag, remoteTag: dialog.remoteTag };
  }

  /** Whether a provisional response carried a usable SDP answer (the far end sends early media). */
  get hasEarlyMedia(): boolean {
    return this.#earlyMedia;
  }

  /** Starts the INVITEs. With no target the call ends at once with cause 20 (subscriber absent). */
  async dial(events: ChannelTechnologyEvents, options: { timeoutSeconds: number }): Promise<void> {
    if (this.#state !== 'prepared') throw new SipError(500, 'Server Internal Error', `dial() on a call in state ${this.#state}`);
    this.#events = events;
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
    const offer = Buffer.from(this.#sdp.offer(this.#localAudio(offerFormats(this.#env.codecs), 'sendrecv')));
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

  /** The API's redirect of the answered call: REFER to the target (redirect.ts); it ends on success. */
  async redirect(resource: string): Promise<void> {
    const resolve = this.#env.redirectTarget;
    if (resolve === undefined) throw new CoreError('unavailable', 'redirect is not available');
    const target = await resolve(resource);
    const dialog = this.#winner?.dialog;
    if (this.#state !== 'up' || dialog === undefined) throw new CoreError('precondition_failed', 'Channel is not answered');
    if (this.#outgoingRefer !== undefined && !this.#outgoingRefer.settled)
      throw new CoreError('conflict', 'A redirect is already in progress');
    const refer = new OutgoingRefer({
      dialog,
      target,
      userAgent: this.#env.userAgent,
      logger: this.#log,
      onOutcome: (outcome) => {
        if (outcome !== 'succeeded') return;
        this.#sendBye(CAUSE_NORMAL_CLEARING);
        this.#report(CAUSE_NORMAL_CLEARING);
      },
    });
    this.#outgoingRefer = refer;
    await refer.send();
  }

  /** The application's transfer_progress for a REFER it took over: a sipfrag NOTIFY (RFC 3515 §2.4.4). */
  async transferProgress(state: TransferProgressState): Promise<void> {
    const subscription = this.#referSubscription;
    if (subscription === undefined || subscription.ended) throw new CoreError('conflict', 'No transfer is in progress on the channel');
    await subscription.progress(state);
  }

  async indicateRinging(): Promise<void> {}

  async indicateProgress(): Promise<void> {}

  async hangup(cause: number): Promise<void> {
    this.#hangupRequested = true;
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
    const config = this.#env.transportConfig;
    const leg = await this.#env.media.createLeg({ bindAddress: config.bindAddress, video: wantsVideo(this.#env.endpoint.videoCodecs) });
    this.#legId = leg.legId;
    this.#mediaPort = leg.localPort;
    this.#videoPort = leg.videoPort;
    const external = config.externalMediaAddress;
    if (external !== undefined && external !== '') this.#mediaAddress = external;
    else if (!isWildcardAddress(config.bindAddress)) this.#mediaAddress = config.bindAddress;
    else if (!isWildcardAddress(leg.localAddress)) this.#mediaAddress = leg.localAddress;
    else this.#mediaAddress = await localAddressToward(first.flow?.address ?? first.requestUri.host);
    if (this.#state !== 'calling') await this.#releaseMedia();
  }

  async #startBranch(target: OutboundTarget, offer: Buffer): Promise<void> {
    const transport = target.transport ?? this.#env.transport;
    const route = target.route ?? [];
    const firstRoute = route[0] === undefined ? undefined : parseNameAddr(route[0]).uri;
    const routed = firstRoute !== undefined && firstRoute.kind === 'sip' ? firstRoute : target.requestUri;
    const nextHop = target.flow === undefined ? routed : new SipUri({ host: target.flow.address, port: target.flow.port });
    const localHost = await transport.advertisedHost(nextHop.host);
    const invite = this.#buildInvite(transport, target, localHost, route, offer);
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
    this.#env.ua.sendRequest(branch.invite, branch.transport, branch.nextHop, {
      onResponse: (response) => this.#receiveResponse(branch, response),
      onTimeout: () => this.#branchFailed(branch, 408),
      onTransportError: (err) => {
        this.#log.info({ err, target: branch.target.requestUri.toString() }, 'INVITE could not be sent');
        this.#branchFailed(branch, 503);
      },
    });
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
    if (branch.timerRetried || branch.cancelReason !== undefined || !this.#stillCalling() || this.#timerPolicy.mode === 'no') return false;
    const proposed = Number(branch.invite.getHeader('Session-Expires') ?? this.#proposedInterval);
    const interval = intervalAfter422(response, proposed);
    if (interval === undefined) return false;
    branch.timerRetried = true;
    this.#proposedInterval = Math.max(this.#proposedInterval, interval);
    // §7.4: the far end's Min-SE is the floor from now on (our refreshes say so too).
    this.#timerPolicy = { ...this.#timerPolicy, minSe: Math.max(this.#timerPolicy.minSe, interval) };
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

  /** An initial INVITE (RFC 3261 §8.1.1, §13.2.1) carrying our offer. */
  #buildInvite(transport: Transport, target: OutboundTarget, localHost: string, route: readonly string[], offer: Buffer): SipRequest {
    const local = new SipUri({ host: localHost, port: transport.localPort });
    // §19.1.4: a Contact reached over TCP/TLS says so, or the callee would answer over UDP.
    if (transport.protocol !== 'udp') local.params.set('transport', transport.protocol);
    const caller = this.#env.caller;
    const fromUri = local.clone();
    fromUri.port = undefined;
    fromUri.params.clear();
    fromUri.user = caller.number === '' ? 'anonymous' : caller.number;
    const from = new NameAddr(fromUri, caller.name === '' ? undefined : caller.name, new Map([['tag', newTag()]]));
    const toUri = (target.toUri ?? target.requestUri).clone();
    toUri.params.clear();
    toUri.headers = undefined;
    const via = new Via(
      transport.viaTransport,
      localHost,
      transport.localPort,
      new Map([
        ['branch', newBranch()],
        ['rport', null],
      ]),
    );
    const seq = Math.floor(Math.random() * 0x7fff) + 1;
    const requestUri = target.requestUri.clone();
    requestUri.headers = undefined;
    const request = new SipRequest(
      'INVITE',
      requestUri,
      headerFields([
        ['Via', via.toString()],
        ['Max-Forwards', '70'],
        ['From', from.toString()],
        ['To', new NameAddr(toUri).toString()],
        ['Call-ID', newCallId(localHost)],
        ['CSeq', `${seq} INVITE`],
        ...route.map((value) => ['Route', value] as const),
        ['Contact', `<${local.toString()}>`],
        ['Allow', ALLOW],
        ...inviteTimerHeaders(this.#timerPolicy, this.#proposedInterval),
        ['User-Agent', this.#env.userAgent],
        ['Content-Type', SDP],
      ]),
    );
    request.body = offer;
    return request;
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
      const outcome = negotiateAnswer(response.bodyText, this.#env.codecs, this.#env.endpoint.videoCodecs, this.#sdp);
      if (outcome.ok) {
        this.#earlyMedia = true;
        await this.#setRemote(outcome.remote);
        if (this.#state === 'calling') this.#emit((events) => events.progress?.());
        return;
      }
      this.#log.debug({ problem: outcome.reason }, 'early SDP unusable; ignored');
    }
    if (response.status === 180 && !this.#ringing) {
      this.#ringing = true;
      this.#emit((events) => events.ringing());
    } else if (response.status === 183 && !this.#earlyMedia) {
      this.#emit((events) => events.progress?.());
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
    this.#sendAck(dialog);
    if (this.#winner !== undefined || this.#state !== 'calling') {
      // Late 2xx: another fork (or a branch we already gave up) answered; acknowledge, then end it.
      branch.state = 'failed';
      void dialog.sendRequest('BYE', { headers: [['Reason', reasonHeaderForCause(CAUSE_NORMAL_CLEARING)]] });
      return;
    }
    branch.state = 'answered';
    branch.dialog = dialog;
    this.#winner = branch;
    this.#reinvites = new ReinviteClient({ dialog, ua: this.#env.ua, clock: this.#env.clock, logger: this.#log, ownsCallId: true });
    this.#protocolId = branch.invite.callId;
    this.#clearTimer();
    this.#cancelBranches(COMPLETED_ELSEWHERE, branch);
    void this.#applyAnswer(response);
  }

  async #applyAnswer(response: SipResponse): Promise<void> {
    const outcome =
      response.body.length > 0 && response.contentType === SDP
        ? negotiateAnswer(response.bodyText, this.#env.codecs, this.#env.endpoint.videoCodecs, this.#sdp)
        : ({ ok: false, reason: '2xx carries no SDP answer' } as const);
    if (!outcome.ok) {
      // RFC 3261 §13.2.1: we offered, so the 2xx must answer; without media the call cannot go on.
      this.#log.info({ problem: outcome.reason }, 'answer unusable; ending the call');
      this.#transition('up');
      this.#sendBye(CAUSE_BEARER_NOT_AVAILABLE);
      this.#report(CAUSE_BEARER_NOT_AVAILABLE);
      return;
    }
    await this.#setRemote(outcome.remote);
    if (this.#state !== 'calling') return;
    this.#transition('up');
    this.#startSessionTimer(response);
    this.#emit((events) => events.answered());
  }

  /** RFC 4028 §7.2: the 2xx says the interval and who refreshes. */
  #startSessionTimer(response: SipResponse): void {
    this.#peerAllowsUpdate = response.getHeaderList('Allow').some((method) => method.trim().toUpperCase() === 'UPDATE');
    const agreed = readTimerAnswer(response, this.#timerPolicy, this.#proposedInterval);
    if (agreed === undefined) return;
    this.#log.debug({ interval: agreed.interval, localRefresher: agreed.localRefresher }, 'session timer running');
    this.#sessionTimer.run(agreed.interval, agreed.localRefresher);
  }

  /** A session refresh (§7.4): an offerless UPDATE if the callee takes UPDATE, else a re-INVITE. */
  async #refreshSession(interval: number): Promise<number> {
    const dialog = this.#winner?.dialog;
    if (dialog === undefined || dialog.state === 'terminated' || this.#state !== 'up') return 0;
    const headers = refreshHeaders(this.#timerPolicy, interval);
    if (this.#peerAllowsUpdate) {
      return retryOnGlare(
        async () => {
          if (dialog.state === 'terminated') return 481;
          const outcome = await dialog.sendRequest('UPDATE', { headers });
          return outcome.kind === 'response' ? outcome.response.status : 0;
        },
        { clock: this.#env.clock, ownsCallId: true },
      );
    }
    const result = await this.#sendReinvite(headers);
    return result.kind === 'answered' ? result.response.status : result.status;
  }

  /**
   * Our re-INVITE offering the session as it is (RFC 3264 §8: the same SDP version when nothing
   * changed), its answer applied; a 491 is retried after the §14.1 delay (reinvite-client.ts).
   */
  async #sendReinvite(headers: ReadonlyArray<readonly [string, string]>): Promise<ReinviteResult> {
    const client = this.#reinvites;
    const remote = this.#remote;
    if (client === undefined || remote === undefined) return { kind: 'failed', status: 481 };
    const result = await client.send(() => ({ headers, body: this.#sessionOffer(), contentType: SDP }));
    if (result.kind !== 'answered' || this.#state !== 'up') return result;
    const answer = result.response;
    if (answer.body.length === 0 || answer.contentType !== SDP) return result;
    const outcome = negotiateAnswer(answer.bodyText, this.#env.codecs, [], this.#sdp);
    if (outcome.ok) await this.#setRemote(outcome.remote);
    else this.#log.info({ problem: outcome.reason }, 'answer to our re-INVITE unusable; session kept');
    return result;
  }

  /** An offer describing the current session: the codec in use, our current direction. */
  #sessionOffer(): Buffer {
    const remote = this.#remote;
    const formats =
      remote === undefined
        ? offerFormats(this.#env.codecs)
        : {
            codecs: [{ name: remote.codec.name, payloadType: remote.codec.payloadType }],
            telephoneEvents:
              remote.telephoneEventPayloadType === undefined
                ? []
                : [{ payloadType: remote.telephoneEventPayloadType, clockRate: remote.codec.clockRate }],
          };
    const direction = remote === undefined ? 'sendrecv' : answerDirection(remote.direction);
    return Buffer.from(this.#sdp.offer(this.#localAudio(formats, direction)));
  }

  /**
   * A re-INVITE or UPDATE from the callee refreshes the session (RFC 4028 §7.4, §9): the timer
   * restarts, and our 2xx repeats the Session-Expires with the refresher it proposed (or theirs).
   */
  #sessionRefreshedBy(request: SipRequest): Array<[string, string]> {
    if (!this.#sessionTimer.running) return [];
    const offer = readSessionTimer(request);
    const current = this.#sessionTimer.interval ?? this.#proposedInterval;
    const interval = offer.kind === 'ok' ? Math.max(this.#timerPolicy.minSe, offer.interval) : current;
    // In-dialog, the callee is the UAC of its refresh: `refresher=uac` there means the callee.
    const theyRefresh = offer.kind !== 'ok' || offer.refresher === 'uac';
    this.#sessionTimer.run(interval, !theyRefresh);
    const headers: Array<[string, string]> = [['Session-Expires', `${interval};refresher=${theyRefresh ? 'uac' : 'uas'}`]];
    // §9: Require: timer only towards a UAC that said it supports timers.
    if (offer.kind === 'ok' && offer.uacSupportsTimer) headers.push(['Require', 'timer']);
    return headers;
  }

  /** RFC 3261 §12.1.2: the UAC's view of the dialog the 2xx created. */
  #createDialog(branch: Branch, response: SipResponse, toTag: string): Dialog {
    const invite = branch.invite;
    const contact = response.contacts[0];
    const remoteTarget = contact !== undefined && contact.uri.kind === 'sip' ? contact.uri : branch.target.requestUri;
    const localUri = invite.from.clone();
    localUri.tag = undefined;
    const remoteUri = response.to.clone();
    remoteUri.tag = undefined;
    const dialog = new Dialog(
      {
        callId: invite.callId,
        localTag: invite.from.tag ?? '',
        remoteTag: toTag,
        localUri,
        remoteUri,
        remoteTarget,
        // §12.1.2: the route set is the Record-Route list in reverse order.
        routeSet: [...response.recordRoutes].reverse(),
        remoteSeq: undefined,
        transport: branch.transport,
        localHost: branch.localHost,
        localPort: branch.transport.localPort,
        localSeq: invite.cseq.seq,
      },
      this.#env.ua.services,
    );
    const flow = branch.target.flow;
    if (flow !== undefined) dialog.flowTarget = new SipUri({ host: flow.address, port: flow.port });
    dialog.confirm();
    const credentials = this.#env.outboundCredentials;
    // BYE, UPDATE, re-INVITE and REFER NOTIFYs to a challenging trunk carry credentials too.
    if (credentials !== undefined) dialog.challengeAnswerer = dialogChallengeAnswerer(credentials);
    this.#env.ua.services.addDialog(dialog);
    dialog.delegate = {
      onBye: (bye) => {
        if (this.#winner?.dialog !== dialog) return;
        this.#farEndEnded(causeFromReasonHeader(bye.getHeaderList('Reason')) ?? CAUSE_NORMAL_CLEARING);
      },
      onReinvite: (reinvite) => {
        this.#receiveReinvite(reinvite).catch((err: unknown) => {
          this.#log.error({ err }, 're-INVITE handling failed');
          if (reinvite.state === 'proceeding') reinvite.reject(500);
        });
      },
      onRequest: (request, transaction) => {
        if (request.method === 'UPDATE') {
          handleUpdate(request, transaction, {
            dialog,
            userAgent: this.#env.userAgent,
            offerPending: dialog.pendingInvite?.state === 'proceeding',
            localOfferPending: this.#reinvites?.pending === true,
            onRefresh: (update) => ({ headers: this.#winner?.dialog === dialog ? this.#sessionRefreshedBy(update) : [] }),
            answer: async (offer) => {
              if (this.#winner?.dialog !== dialog || this.#state !== 'up') return { ok: false, status: 481 };
              const current = this.#remote;
              const preferences =
                current === undefined
                  ? this.#env.codecs
                  : [current.codec.name, ...this.#env.codecs.filter((c) => c !== current.codec.name)];
              const outcome = negotiateOffer(offer, preferences, this.#env.endpoint.videoCodecs, this.#sdp);
              if (!outcome.ok) return { ok: false, status: 488, warning: outcome.reason };
              await this.#setRemote(outcome.remote);
              return { ok: true, body: this.#answerSdp(outcome.remote, outcome.streams) };
            },
          });
          return true;
        }
        if (request.method === 'NOTIFY' && this.#outgoingRefer?.receiveNotify(request, transaction) === true) return true;
        if (request.method === 'REFER') {
          handleRefer(request, transaction, {
            dialog,
            self: this,
            findDialog: (target) => this.#env.findDialog?.(target),
            context: this.#env.endpoint.context,
            application:
              this.#winner?.dialog === dialog && this.#state === 'up' && !this.#hangupRequested
                ? {
                    offer: (request) => this.#events?.transferRequested?.(request) ?? { kind: 'refused' },
                    accepted: (subscription) => {
                      this.#referSubscription = subscription;
                    },
                  }
                : undefined,
            handler: this.#winner?.dialog === dialog && this.#state === 'up' ? this.transferHandler : undefined,
            userAgent: this.#env.userAgent,
            logger: this.#log,
          });
          return true;
        }
        if (request.method !== 'INFO') return false;
        answerInfo(request, transaction, this.#env.userAgent, ({ digit, durationMs }) => {
          if (this.#winner?.dialog !== dialog || this.#state !== 'up') return;
          this.#emit((events) => events.dtmf?.(digit, durationMs));
        });
        return true;
      },
    };
    return dialog;
  }

  /** §13.2.2.4: the ACK for a 2xx is a new transaction-less request of the dialog, same CSeq number. */
  #sendAck(dialog: Dialog): void {
    const { request, nextHop } = dialog.createRequest('ACK');
    this.#env.ua.sendStateless(request, dialog.transport, nextHop).catch((err: unknown) => {
      this.#log.info({ err }, 'ACK could not be sent');
    });
  }

  /** A re-INVITE from the callee (hold, resume, new address): answer it from the current session. */
  async #receiveReinvite(reinvite: IncomingInvite): Promise<void> {
    const legId = this.#legId;
    if (this.#state !== 'up' || legId === undefined) {
      reinvite.reject(481);
      return;
    }
    const request = reinvite.request;
    if (request.body.length === 0 || request.contentType !== SDP) {
      // An offerless re-INVITE would need our offer in the 2xx and the answer in the ACK; refused here.
      reinvite.reject(488);
      return;
    }
    const current = this.#remote;
    const preferences =
      current === undefined ? this.#env.codecs : [current.codec.name, ...this.#env.codecs.filter((c) => c !== current.codec.name)];
    const outcome = negotiateOffer(request.bodyText, preferences, this.#env.endpoint.videoCodecs, this.#sdp);
    if (!outcome.ok) {
      reinvite.reject(488, { headers: [['Warning', `305 switchboard "${outcome.reason}"`]] });
      return;
    }
    await this.#setRemote(outcome.remote);
    if (reinvite.state !== 'proceeding') return;
    const timerHeaders = this.#sessionRefreshedBy(request);
    reinvite.accept({ body: this.#answerSdp(outcome.remote, outcome.streams), contentType: SDP, headers: timerHeaders });
  }

  #answerSdp(remote: RemoteMedia, streams: OfferedStream[]): Buffer {
    const te = remote.telephoneEventPayloadType;
    const formats = {
      codecs: [{ name: remote.codec.name, payloadType: remote.codec.payloadType }],
      telephoneEvents: te === undefined ? [] : [{ payloadType: te, clockRate: remote.codec.clockRate }],
    };
    return Buffer.from(this.#sdp.answer(this.#localAudio(formats, answerDirection(remote.direction)), streams));
  }

  async #setRemote(remote: RemoteMedia): Promise<void> {
    this.#remote = remote;
    const held = remote.direction === 'sendonly' || remote.direction === 'inactive';
    if (this.#state === 'up' && held !== this.#onHold) {
      this.#onHold = held;
      this.#emit((events) => events.held?.(held));
    }
    const legId = this.#legId;
    if (legId === undefined || this.#legReleased) return;
    try {
      await this.#env.media.setLegRemote(legId, {
        address: remote.address,
        port: remote.port,
        codec: remote.codec,
        ...(remote.telephoneEventPayloadType !== undefined ? { telephoneEventPayloadType: remote.telephoneEventPayloadType } : {}),
        direction: remote.direction,
        ...legVideo(remote.video, this.#videoPort),
        ...legSrtpOf(remote),
      });
    } catch (err) {
      this.#log.error({ err }, 'media leg refused the remote');
    }
  }

  #localAudio(formats: Pick<LocalAudio, 'codecs' | 'telephoneEvents'>, direction: MediaDirection): LocalAudio {
    return {
      address: this.#mediaAddress,
      port: this.#mediaPort,
      ...formats,
      direction,
      ...localVideo(this.#videoPort, this.#env.endpoint.videoCodecs),
    };
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
    const invite = branch.invite;
    const fields = headerFields([
      ['Via', invite.topVia.toString()],
      ['Max-Forwards', '70'],
      ['From', invite.getHeader('From') ?? ''],
      ['To', invite.getHeader('To') ?? ''],
      ['Call-ID', invite.callId],
      ['CSeq', `${invite.cseq.seq} CANCEL`],
      ...invite.getHeaderFields('Route').map((value) => ['Route', value] as const),
      ['Reason', reason],
      ['User-Agent', this.#env.userAgent],
    ]);
    const cancel = new SipRequest('CANCEL', invite.requestUri, fields);
    this.#env.ua.sendRequest(cancel, branch.transport, branch.nextHop, {
      onResponse: () => {},
      onTimeout: () => this.#log.debug('CANCEL got no response'),
      onTransportError: (err) => this.#log.debug({ err }, 'CANCEL could not be sent'),
    });
  }

  #sendBye(cause: number): void {
    if (this.#state !== 'up') return;
    this.#sessionTimer.stop();
    this.#transition('ending');
    void this.#releaseMedia();
    const dialog = this.#winner?.dialog;
    if (dialog === undefined || dialog.state === 'terminated') {
      this.#end();
      return;
    }
    void dialog.sendRequest('BYE', { headers: [['Reason', reasonHeaderForCause(cause)]] }).then((outcome) => {
      if (outcome.kind !== 'response') this.#log.debug({ outcome: outcome.kind }, 'BYE got no response');
      this.#end();
    });
  }

  #farEndEnded(cause: number): void {
    if (this.#state === 'ended') return;
    this.#end();
    this.#report(cause);
  }

  /** The call failed before an answer: report the cause, release everything. */
  #finish(cause: number): void {
    this.#end();
    this.#report(cause);
  }

  #emit(fn: (events: ChannelTechnologyEvents) => void): void {
    const events = this.#events;
    if (events === undefined || this.#hangupRequested) return;
    try {
      fn(events);
    } catch (err) {
      this.#log.error({ err }, 'channel event listener failed');
    }
  }

  #report(cause: number): void {
    if (this.#reported) return;
    this.#reported = true;
    this.#emit((events) => events.hungUp(cause));
  }

  #clearTimer(): void {
    if (this.#timer !== undefined) this.#env.clock.clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #end(): void {
    if (this.#state === 'ended') return;
    this.#transition('ended');
    this.#clearTimer();
    this.#sessionTimer.stop();
    this.#winner?.dialog?.terminate();
    void this.#releaseMedia();
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
      this.#report(CAUSE_NORMAL_CLEARING);
    } else if (state === 'prepared') {
      this.#end();
    }
  }

  async #releaseMedia(): Promise<void> {
    const legId = this.#legId;
    if (legId === undefined || this.#legReleased) return;
    this.#legReleased = true;
    try {
      await this.#env.media.destroyLeg(legId);
    } catch (err) {
      this.#log.warn({ err, legId }, 'media leg could not be destroyed');
    }
  }

  #transition(to: OutboundCallState): void {
    const from = this.#state;
    if (!TRANSITIONS[from].includes(to)) throw new Error(`outbound call ${this.#env.name}: illegal transition ${from} -> ${to}`);
    this.#state = to;
    this.#log.debug({ from, to }, 'outbound call state');
  }
}

/**
 * The response that stands for all failed branches, after RFC 3261 §16.7 step 6: a 6xx wins,
 * then busy (486/600), then any other 4xx/5xx, and 408/487 (our own timeout or CANCEL) last.
 */
export function chooseFinalStatus(statuses: readonly number[]): number {
  const global = statuses.find((s) => s >= 600);
  if (global !== undefined) return global;
  if (statuses.includes(486)) return 486;
  const other = statuses.find((s) => s !== 408 && s !== 487);
  return other ?? statuses[0] ?? 500;
}
