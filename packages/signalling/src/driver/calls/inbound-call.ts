/**
 * One inbound SIP call: the PBX policy on top of an IncomingInvite and its dialog. It identifies
 * the caller, negotiates SDP, owns the media leg, presents the call to core, and is the
 * `ChannelTechnology` core drives (answer, ringing, progress, hangup). Far-end events (BYE, CANCEL,
 * a missing ACK) are reported through the `ChannelTechnologyEvents` core returned.
 *
 *   setup ──presented──> offered ──answer()──> answered ──ACK──> up
 *     │                     │                    │               │
 *     │ refused,            │ hangup(),          │ BYE,          │ hangup(): BYE
 *     │ CANCEL              │ CANCEL, BYE        │ no ACK: BYE   │ BYE received
 *     v                     v                    v               v
 *   ended <─────────────────┴────────────────── ending (our BYE in flight) <── answered/up
 *
 * A hangup() while the 2xx waits for its ACK is held until the ACK (or its timeout) arrives:
 * RFC 3261 §15 forbids the callee's BYE before then.
 */
import {
  type Clock,
  systemClock,
  type ChannelDriverHost,
  type ChannelTechnology,
  type InboundCall as InboundCallPresentation,
  type ChannelTechnologyEvents,
  type Logger,
  type MediaEngine,
  type SipEndpointConfig,
  type SipTransportConfig,
  CoreError,
  type TransferProgressState,
} from '@switchboard/core';
import type { Dialog } from '../../dialog/dialog.js';
import type { IncomingInvite } from '../../dialog/incoming-invite.js';
import { SipError } from '../../errors.js';
import type { SipRequest } from '../../message/sip-message.js';
import type { SipUri } from '../../message/uri.js';
import { isWildcardAddress, localAddressToward } from '../../transport/local-address.js';
import type { IncomingContext } from '../../transport/transport.js';
import { applyReceived } from '../../transport/via-received.js';
import {
  CAUSE_BEARER_NOT_AVAILABLE,
  CAUSE_NETWORK_OUT_OF_ORDER,
  CAUSE_NORMAL_CLEARING,
  CAUSE_RECOVERY_ON_TIMER_EXPIRY,
  causeFromReasonHeader,
  reasonHeaderForCause,
  statusForCause,
} from './hangup-causes.js';
import { answerInfo } from './dtmf-info.js';
import { checkReplaces, type DialogIdentity, type ReplacesTarget } from './replaces.js';
import { OutgoingRefer } from './redirect.js';
import { presentReplacement } from './replacement.js';
import { handleRefer, type ReferSubscription, type TransferHandler, type TransferSource } from './transfer.js';
import { handleUpdate, type RefreshOutcome } from './update.js';
import { readSessionTimer, SessionTimer, type SessionTimerOffer, sessionTimerHeaders } from './session-timer.js';
import { ReinviteClient, retryOnGlare } from './reinvite-client.js';
import { dialogChallengeAnswerer, type OutboundCredentials } from '../auth/outbound-auth.js';
import type { UserAgentCore } from '../../ua/user-agent-core.js';
import { authenticateInbound, type InboundAuthenticator } from '../auth/identify.js';
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

export type InboundCallState = 'setup' | 'offered' | 'answered' | 'up' | 'ending' | 'ended';

const TRANSITIONS: Record<InboundCallState, readonly InboundCallState[]> = {
  setup: ['offered', 'ended'],
  offered: ['answered', 'ended'],
  answered: ['up', 'ending', 'ended'],
  up: ['ending', 'ended'],
  ending: ['ended'],
  ended: [],
};

/** The part of the media engine a SIP call uses: its RTP leg. */
export type SipMediaEngine = Pick<MediaEngine, 'createLeg' | 'setLegRemote' | 'destroyLeg'>;

export interface InboundCallEnvironment {
  host: ChannelDriverHost;
  media: SipMediaEngine;
  logger: Logger;
  authenticators: readonly InboundAuthenticator[];
  /** The configuration of the transport the INVITE arrived on. */
  transportConfig: SipTransportConfig;
  /** A unique channel name for this endpoint: `SIP/<endpoint>-<8 hex>`. */
  channelName(endpoint: string): string;
  /** Called once, when the call has ended and its media leg is released. */
  onEnded(call: InboundCall): void;
  /** Server header value of the answers to in-dialog INFO. */
  userAgent?: string;
  /** Session timers (RFC 4028) run on it. */
  clock?: Clock;
  /** The confirmed call of ours a Replaces names (attended transfer, RFC 3891). */
  findDialog?(target: ReplacesTarget): ChannelTechnology | undefined;
  /** The URI a redirect's `resource` stands for (a registered contact, a given URI); throws CoreError. */
  redirectTarget?(resource: string): Promise<SipUri>;
  /** Sends our re-INVITEs (session refresh towards a caller without UPDATE); without it refreshes are UPDATEs only. */
  ua?: Pick<UserAgentCore, 'sendRequest' | 'sendStateless'>;
  /** The endpoint's `outbound_auth` credentials: our in-dialog requests answer its challenges with them. */
  credentialsFor?(endpoint: SipEndpointConfig): OutboundCredentials | undefined;
}

const SDP = 'application/sdp';

export class InboundCall implements ChannelTechnology, TransferSource {
  readonly protocolId: string;
  readonly invite: IncomingInvite;
  /** Set by the owner of the call's bridge (Dial()) while a blind transfer (REFER) can be served. */
  transferHandler: TransferHandler | undefined;
  readonly #context: IncomingContext;
  readonly #env: InboundCallEnvironment;
  readonly #log: Logger;
  #state: InboundCallState = 'setup';
  #endpoint: SipEndpointConfig | undefined;
  #events: ChannelTechnologyEvents | undefined;
  #legId: string | undefined;
  #legReleased = false;
  #mediaAddress = '';
  #mediaPort = 0;
  /** The leg's video RTP port, when the endpoint allows video codecs. */
  #videoPort: number | undefined;
  readonly #sdp = new LocalSdpSession();
  /** The offer's m-lines when the caller made the offer; undefined for a late offer (RFC 3261 §13.2.1). */
  #offerStreams: OfferedStream[] | undefined;
  #remote: RemoteMedia | undefined;
  /** Set when core hung up: no hungUp event is reported for a hangup core asked for. */
  #hangupRequested = false;
  #pendingByeCause: number | undefined;
  #reported = false;
  #byeDone: Promise<void> | undefined;
  /** The latest re-INVITE, so that its 2xx retransmissions stop with the call. */
  #reinvite: IncomingInvite | undefined;
  /** The session timer agreed in the INVITE (RFC 4028), if the caller asked for one. */
  #timerOffer: Extract<SessionTimerOffer, { kind: 'ok' }> | undefined;
  readonly #sessionTimer: SessionTimer;
  /** The REFER left to the channel's application, whose progress transferProgress reports. */
  #referSubscription: ReferSubscription | undefined;
  /** The REFER we sent for the API's redirect, whose NOTIFYs tell whether the call can end. */
  #outgoingRefer: OutgoingRefer | undefined;

  /** Whether the caller has put us on hold (its last SDP said sendonly/inactive or c=0.0.0.0). */
  #onHold = false;
  /** Resolved when the 2xx was acknowledged or the call ended (a replaced dialog ends after that). */
  #settled: () => void = () => {};
  readonly #acknowledged = new Promise<void>((resolve) => {
    this.#settled = resolve;
  });
  /** Our session refreshes by re-INVITE, for a caller without UPDATE (glare handled there). */
  #reinvites: ReinviteClient | undefined;
  /** The caller answered an UPDATE 405/501: refreshes go as re-INVITEs from then on. */
  #updateRefused = false;

  constructor(invite: IncomingInvite, context: IncomingContext, env: InboundCallEnvironment) {
    this.invite = invite;
    this.protocolId = invite.request.callId;
    this.#context = context;
    this.#env = env;
    this.#log = env.logger.child({ callId: this.protocolId });
    this.#sessionTimer = new SessionTimer(env.clock ?? systemClock, {
      refresh: (interval) => this.#refreshSession(interval),
      expired: () => {
        this.#log.info('session timer expired');
        this.#sendBye(CAUSE_RECOVERY_ON_TIMER_EXPIRY);
        this.#report(CAUSE_RECOVERY_ON_TIMER_EXPIRY);
      },
    });
    invite.delegate = {
      onCancel: (cancel) => this.#farEndEnded(causeFromReasonHeader(cancel.getHeaderList('Reason')) ?? CAUSE_NORMAL_CLEARING, 'CANCEL'),
      onAck: (ack) => this.#receiveAck(ack),
      onAckTimeout: () => this.#ackTimedOut(),
      onTransportError: (err) => {
        this.#log.warn({ err }, 'response could not be sent');
        this.#farEndEnded(CAUSE_NETWORK_OUT_OF_ORDER, 'transport error');
      },
    };
  }

  get state(): InboundCallState {
    return this.#state;
  }

  get mediaLegId(): string | undefined {
    return this.#legId;
  }

  get endpoint(): SipEndpointConfig | undefined {
    return this.#endpoint;
  }

  /** Our view of the call's dialog once it is confirmed (answered), for Replaces (RFC 3891 §3). */
  get confirmedDialog(): DialogIdentity | undefined {
    const dialog = this.invite.dialog;
    if (dialog === undefined || (this.#state !== 'up' && this.#state !== 'answered')) return undefined;
    return { callId: dialog.callId, localTag: dialog.localTag, remoteTag: dialog.remoteTag };
  }

  /** Identification, offer/answer, media leg, presentation to core (RFC 3261 §13.3.1). */
  async start(): Promise<void> {
    const request = this.invite.request;
    const source = this.#context.source;
    const auth = await authenticateInbound(this.#env.authenticators, request, source);
    if (this.#state !== 'setup') return;
    if (auth.kind === 'reject') {
      this.#log.info({ source: `${source.address}:${source.port}`, status: auth.status }, 'inbound call refused');
      this.#refuse(auth.status, { reason: auth.reason, headers: auth.headers });
      return;
    }
    const endpoint = auth.endpoint;
    this.#endpoint = endpoint;
    this.#sdp.security = mediaSecurityOf(endpoint);
    if (endpoint.forceRport) {
      // force_rport: answer to the packet's source port even if the caller did not ask (RFC 3581).
      const updated = applyReceived(request.topVia, source, true);
      if (updated !== undefined) request.replaceTopVia(updated);
    }

    // RFC 3891 §3: a call that takes the place of one of ours; checked once the caller is known.
    const replaces = checkReplaces(request.getHeaderFields('Replaces'), (target) => this.#env.findDialog?.(target));
    if (replaces.kind === 'refuse') {
      this.#log.info({ status: replaces.status }, 'INVITE with Replaces refused');
      this.#refuse(replaces.status, { reason: replaces.reason });
      return;
    }

    // timers=no: the caller's Session-Expires is not taken up (no timer runs, none is answered).
    const timer = endpoint.timers === 'no' ? ({ kind: 'none' } as const) : readSessionTimer(request, endpoint.timersMinSe);
    if (timer.kind === 'malformed') {
      this.#refuse(400, { reason: 'Bad Session-Expires' });
      return;
    }
    if (timer.kind === 'too-small') {
      // RFC 4028 §9: an interval below our Min-SE is refused with 422 naming it.
      this.#refuse(422, { headers: [['Min-SE', String(timer.minSe)]] });
      return;
    }
    if (timer.kind === 'ok') this.#timerOffer = timer;

    if (request.body.length > 0) {
      if (request.contentType !== SDP) {
        this.#refuse(415, { headers: [['Accept', SDP]] });
        return;
      }
      const outcome = negotiateOffer(request.bodyText, endpoint.codecs, endpoint.videoCodecs, this.#sdp);
      if (!outcome.ok) {
        this.#log.info({ endpoint: endpoint.name, problem: outcome.reason }, 'offer refused');
        // RFC 3261 §20.43: 305 "Incompatible media format".
        this.#refuse(outcome.status, { headers: [['Warning', `305 switchboard "${outcome.reason}"`]] });
        return;
      }
      this.#remote = outcome.remote;
      this.#offerStreams = outcome.streams;
    } else if (endpoint.codecs.length === 0) {
      this.#refuse(488);
      return;
    }

    try {
      await this.#createMedia();
    } catch (err) {
      this.#log.error({ err }, 'media leg could not be set up');
      this.#refuse(503);
      return;
    }
    if (this.#state !== 'setup') return;

    const uri = request.uri;
    const exten = uri.kind === 'sip' && uri.user !== undefined && uri.user !== '' ? uri.user : 's';
    this.#transition('offered');
    const presented: InboundCallPresentation = {
      technology: 'SIP',
      name: this.#env.channelName(endpoint.name),
      endpoint: endpoint.name,
      exten,
      context: endpoint.context,
      caller: endpoint.callerId ?? this.#callerFromRequest(request),
      ...(endpoint.language !== undefined ? { language: endpoint.language } : {}),
      tech: this,
    };
    if (replaces.kind === 'replace') {
      await presentReplacement({
        host: this.#env.host,
        presented,
        replaced: replaces.call,
        log: this.#log,
        refuse: (status, reason) => {
          this.#hangupRequested = true;
          this.#refuse(status, reason === undefined ? {} : { reason });
        },
        adopt: (events) => {
          this.#events = events;
        },
        acknowledged: this.#acknowledged,
      });
      return;
    }
    let events: ChannelTechnologyEvents;
    try {
      events = this.#env.host.acceptInbound(presented);
    } catch (err) {
      this.#log.error({ err }, 'core refused the inbound call');
      this.#hangupRequested = true;
      this.#refuse(500);
      return;
    }
    this.#events = events;
  }

  /**
   * The API's redirect: an unanswered call gets 302 Moved Temporarily naming the target in Contact
   * (RFC 3261 §21.3.3) and ends; an answered one is asked to call the target itself with REFER
   * (redirect.ts) and ends when the phone reports success.
   */
  async redirect(resource: string): Promise<void> {
    const resolve = this.#env.redirectTarget;
    if (resolve === undefined) throw new CoreError('unavailable', 'redirect is not available');
    const target = await resolve(resource);
    switch (this.#state) {
      case 'setup':
      case 'offered':
        this.#log.info({ target: target.toString() }, 'call redirected with 302');
        this.#refuse(302, { reason: 'Moved Temporarily', headers: [['Contact', `<${target.toString()}>`]] });
        this.#report(CAUSE_NORMAL_CLEARING);
        return;
      case 'answered':
      case 'up':
        await this.#referTo(target);
        return;
      default:
        throw new CoreError('not_found', 'Channel not found');
    }
  }

  async #referTo(target: SipUri): Promise<void> {
    const dialog = this.invite.dialog;
    if (dialog === undefined || dialog.state === 'terminated') throw new CoreError('not_found', 'Channel not found');
    if (this.#outgoingRefer !== undefined && !this.#outgoingRefer.settled)
      throw new CoreError('conflict', 'A redirect is already in progress');
    const refer = new OutgoingRefer({
      dialog,
      target,
      userAgent: this.#env.userAgent ?? 'Switchboard',
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

  async indicateRinging(): Promise<void> {
    if (this.#state !== 'offered') return;
    this.invite.progress(180);
    this.#adoptDialog();
  }

  async indicateProgress(): Promise<void> {
    if (this.#state !== 'offered') return;
    // An offer cannot go in an unreliable provisional response (RFC 3261 §13.2.1), so with a late
    // offer the 183 carries no SDP.
    const body = this.#offerStreams === undefined ? undefined : this.#localSdp();
    this.invite.progress(183, body === undefined ? {} : { body, contentType: SDP });
    this.#adoptDialog();
  }

  async answer(): Promise<void> {
    if (this.#state === 'answered' || this.#state === 'up') return;
    if (this.#state !== 'offered') throw new SipError(487, 'Request Terminated', 'the call ended before it was answered');
    const body = this.#localSdp();
    const offer = this.#timerOffer;
    this.invite.accept({ body, contentType: SDP, ...(offer !== undefined ? { headers: sessionTimerHeaders(offer) } : {}) });
    this.#transition('answered');
    this.#adoptDialog();
  }

  async hangup(cause: number): Promise<void> {
    this.#hangupRequested = true;
    switch (this.#state) {
      case 'setup':
      case 'offered': {
        const status = statusForCause(cause);
        this.#refuse(status, { headers: [['Reason', reasonHeaderForCause(cause)]] });
        return;
      }
      case 'answered':
        // RFC 3261 §15: no BYE before the ACK (or its timeout); the leg goes now.
        this.#pendingByeCause = cause;
        await this.#releaseMedia();
        return;
      case 'up':
        this.#sendBye(cause);
        return;
      case 'ending':
      case 'ended':
        return;
    }
  }

  /** Driver shutdown: every call ends now, without waiting for an ACK (resolves when BYEs are answered). */
  async shutdown(): Promise<void> {
    switch (this.#state) {
      case 'setup':
      case 'offered':
        this.#refuse(503);
        this.#report(CAUSE_NORMAL_CLEARING);
        return;
      case 'answered':
      case 'up':
        this.invite.abandon();
        this.#sendBye(this.#pendingByeCause ?? CAUSE_NORMAL_CLEARING);
        this.#report(CAUSE_NORMAL_CLEARING);
        await this.#byeDone;
        return;
      case 'ending':
        await this.#byeDone;
        return;
      case 'ended':
        return;
    }
  }

  /** Handles a re-INVITE (RFC 3261 §14.2): the current session again, or the new offer answered. */
  async receiveReinvite(reinvite: IncomingInvite): Promise<void> {
    if (this.#state !== 'up' && this.#state !== 'answered') {
      reinvite.reject(481);
      return;
    }
    const endpoint = this.#endpoint;
    const remote = this.#remote;
    if (endpoint === undefined || this.#legId === undefined) {
      reinvite.reject(500);
      return;
    }
    this.#reinvite = reinvite;
    const request = reinvite.request;
    const refresh = this.#refreshTimer(request);
    if (refresh.status !== undefined) {
      reinvite.reject(refresh.status, { headers: refresh.headers });
      return;
    }
    if (request.body.length === 0) {
      // Offerless re-INVITE: our offer goes in the 2xx and the answer comes in the ACK.
      reinvite.delegate = {
        onAck: (ack) => void this.#applyAnswer(ack, 'ACK to re-INVITE'),
        onAckTimeout: () => this.#ackTimedOut(),
      };
      const offer = this.#sdp.offer(this.#localAudio(offerFormats(endpoint.codecs), 'sendrecv'));
      reinvite.accept({ body: Buffer.from(offer), contentType: SDP, headers: refresh.headers });
      return;
    }
    if (request.contentType !== SDP) {
      reinvite.reject(415, { headers: [['Accept', SDP]] });
      return;
    }
    // Keep the codec in use when the new offer still carries it.
    const preferences =
      remote === undefined ? endpoint.codecs : [remote.codec.name, ...endpoint.codecs.filter((c) => c !== remote.codec.name)];
    const outcome = negotiateOffer(request.bodyText, preferences, endpoint.videoCodecs, this.#sdp);
    if (!outcome.ok) {
      reinvite.reject(488, { headers: [['Warning', `305 switchboard "${outcome.reason}"`]] });
      return;
    }
    try {
      await this.#env.media.setLegRemote(this.#legId, this.#legRemote(outcome.remote));
    } catch (err) {
      this.#log.error({ err }, 'media leg refused the new remote');
      reinvite.reject(500);
      return;
    }
    if (reinvite.state !== 'proceeding') {
      // Cancelled while the leg was being changed: the session stays as it was (RFC 3261 §14.1).
      if (remote !== undefined && this.#state === 'up') await this.#env.media.setLegRemote(this.#legId, this.#legRemote(remote));
      return;
    }
    this.#remote = outcome.remote;
    this.#offerStreams = outcome.streams;
    reinvite.delegate = { onAckTimeout: () => this.#ackTimedOut() };
    // RFC 3264 §8.4: the answer mirrors the direction (sendonly → recvonly, inactive → inactive).
    reinvite.accept({ body: this.#localSdp(), contentType: SDP, headers: refresh.headers });
    this.#noteDirection(outcome.remote);
  }

  /**
   * A re-INVITE or UPDATE from the caller refreshes the session (RFC 4028 §7.4, §10): the timer
   * restarts with the interval it proposes, or the current one; the 2xx repeats Session-Expires.
   */
  #refreshTimer(request: SipRequest): RefreshOutcome {
    if (this.#endpoint?.timers === 'no') return { headers: [] };
    const timer = readSessionTimer(request, this.#endpoint?.timersMinSe);
    if (timer.kind === 'malformed') return { status: 400, headers: [] };
    if (timer.kind === 'too-small') return { status: 422, headers: [['Min-SE', String(timer.minSe)]] };
    if (timer.kind === 'ok') this.#timerOffer = timer;
    const offer = this.#timerOffer;
    if (offer === undefined) return { headers: [] };
    if (this.#state === 'up') this.#sessionTimer.refreshed(offer);
    return { headers: sessionTimerHeaders(offer) };
  }

  /**
   * Our session refresh as refresher (RFC 4028 §7.4: we are the UAC of the refresh, so
   * `refresher=uac`): an offerless UPDATE, or a re-INVITE offering the session as it is when the
   * caller's INVITE did not allow UPDATE or it refused one (405/501).
   */
  async #refreshSession(interval: number): Promise<number> {
    const dialog = this.invite.dialog;
    if (dialog === undefined || dialog.state === 'terminated') return 0;
    const headers: Array<[string, string]> = [
      ['Session-Expires', `${interval};refresher=uac`],
      ['Supported', 'timer'],
    ];
    const allow = this.invite.request.getHeaderList('Allow').map((method) => method.trim().toUpperCase());
    const ua = this.#env.ua;
    const viaReinvite = ua !== undefined && (this.#updateRefused || (allow.length > 0 && !allow.includes('UPDATE')));
    if (!viaReinvite) {
      const status = await retryOnGlare(
        async () => {
          if (dialog.state === 'terminated') return 481;
          const outcome = await dialog.sendRequest('UPDATE', { headers });
          return outcome.kind === 'response' ? outcome.response.status : 0;
        },
        { clock: this.#env.clock ?? systemClock, ownsCallId: false },
      );
      if ((status === 405 || status === 501) && ua !== undefined && !this.#updateRefused) {
        this.#updateRefused = true;
        return this.#refreshSession(interval);
      }
      return status;
    }
    this.#reinvites ??= new ReinviteClient({ dialog, ua, clock: this.#env.clock ?? systemClock, logger: this.#log, ownsCallId: false });
    const result = await this.#reinvites.send(() => ({ headers, body: this.#sessionOffer(), contentType: SDP }));
    if (result.kind !== 'answered') return result.status;
    const endpoint = this.#endpoint;
    const legId = this.#legId;
    const answer = result.response;
    if (endpoint !== undefined && legId !== undefined && answer.body.length > 0 && answer.contentType === SDP && this.#state === 'up') {
      const outcome = negotiateAnswer(answer.bodyText, endpoint.codecs, [], this.#sdp);
      if (outcome.ok) {
        this.#remote = outcome.remote;
        await this.#env.media.setLegRemote(legId, this.#legRemote(outcome.remote)).catch((err: unknown) => {
          this.#log.error({ err }, 'media leg refused the answer to our re-INVITE');
        });
      }
    }
    return answer.status;
  }

  /** An offer of the session as it is (RFC 3264 §8): the codec in use, our current direction. */
  #sessionOffer(): Buffer {
    const remote = this.#remote;
    const endpoint = this.#endpoint;
    if (remote === undefined) return Buffer.from(this.#sdp.offer(this.#localAudio(offerFormats(endpoint?.codecs ?? []), 'sendrecv')));
    const te = remote.telephoneEventPayloadType;
    const formats = {
      codecs: [{ name: remote.codec.name, payloadType: remote.codec.payloadType }],
      telephoneEvents: te === undefined ? [] : [{ payloadType: te, clockRate: remote.codec.clockRate }],
    };
    return Buffer.from(this.#sdp.offer(this.#localAudio(formats, answerDirection(remote.direction))));
  }

  /** An SDP offer in an UPDATE (RFC 3311): applied like a re-INVITE's, answered in the 200. */
  async #answerUpdate(offer: string): Promise<{ ok: true; body: Buffer } | { ok: false; status: number; warning?: string }> {
    const endpoint = this.#endpoint;
    const remote = this.#remote;
    const legId = this.#legId;
    if (endpoint === undefined || legId === undefined || (this.#state !== 'up' && this.#state !== 'answered')) {
      return { ok: false, status: 481 };
    }
    const preferences =
      remote === undefined ? endpoint.codecs : [remote.codec.name, ...endpoint.codecs.filter((c) => c !== remote.codec.name)];
    const outcome = negotiateOffer(offer, preferences, endpoint.videoCodecs, this.#sdp);
    if (!outcome.ok) return { ok: false, status: 488, warning: outcome.reason };
    await this.#env.media.setLegRemote(legId, this.#legRemote(outcome.remote));
    this.#remote = outcome.remote;
    this.#offerStreams = outcome.streams;
    const body = this.#localSdp();
    this.#noteDirection(outcome.remote);
    return { ok: true, body };
  }

  /** Reports hold and resume once the call is up (core turns them into ChannelHold/ChannelUnhold). */
  #noteDirection(remote: RemoteMedia): void {
    const held = remote.direction === 'sendonly' || remote.direction === 'inactive';
    if (held === this.#onHold || (this.#state !== 'up' && this.#state !== 'answered')) return;
    this.#onHold = held;
    try {
      this.#events?.held?.(held);
    } catch (err) {
      this.#log.error({ err }, 'held listener failed');
    }
  }

  /** The dialog exists once a tagged response went out; it carries our BYE and the far end's. */
  #adoptDialog(): void {
    const dialog = this.invite.dialog;
    if (dialog === undefined || dialog.delegate.onBye !== undefined) return;
    if (this.#endpoint?.rewriteContact === true && dialog.remoteTarget.kind === 'sip') {
      // rewrite_contact: in-dialog requests go where the INVITE came from, not to a Contact behind NAT.
      const target = dialog.remoteTarget.clone();
      target.host = this.#context.source.address;
      target.port = this.#context.source.port;
      target.params.delete('transport');
      target.params.delete('maddr');
      dialog.remoteTarget = target;
    }
    const credentials = this.#endpoint === undefined ? undefined : this.#env.credentialsFor?.(this.#endpoint);
    if (credentials !== undefined) dialog.challengeAnswerer = dialogChallengeAnswerer(credentials);
    dialog.delegate = {
      onBye: (bye) => this.#farEndEnded(causeFromReasonHeader(bye.getHeaderList('Reason')) ?? CAUSE_NORMAL_CLEARING, 'BYE'),
      onReinvite: (reinvite) => {
        this.receiveReinvite(reinvite).catch((err: unknown) => {
          this.#log.error({ err }, 're-INVITE handling failed');
          if (reinvite.state === 'proceeding') reinvite.reject(500);
        });
      },
      onRequest: (request, transaction) => {
        if (request.method === 'UPDATE') {
          handleUpdate(request, transaction, {
            dialog,
            userAgent: this.#env.userAgent ?? 'Switchboard',
            offerPending: this.#reinvite?.state === 'proceeding' || (this.#state === 'answered' && this.#offerStreams === undefined),
            localOfferPending: this.#reinvites?.pending === true,
            onRefresh: (update) => this.#refreshTimer(update),
            answer: (offer) => this.#answerUpdate(offer),
          });
          return true;
        }
        if (request.method === 'NOTIFY' && this.#outgoingRefer?.receiveNotify(request, transaction) === true) return true;
        if (request.method === 'REFER') {
          handleRefer(request, transaction, {
            dialog,
            self: this,
            findDialog: (target) => this.#env.findDialog?.(target),
            context: this.#endpoint?.context ?? 'default',
            application:
              this.#state === 'up'
                ? {
                    offer: (request) => this.#events?.transferRequested?.(request) ?? { kind: 'refused' },
                    accepted: (subscription) => {
                      this.#referSubscription = subscription;
                    },
                  }
                : undefined,
            handler: this.#state === 'up' ? this.transferHandler : undefined,
            userAgent: this.#env.userAgent ?? 'Switchboard',
            logger: this.#log,
          });
          return true;
        }
        if (request.method !== 'INFO') return false;
        answerInfo(request, transaction, this.#env.userAgent ?? 'Switchboard', ({ digit, durationMs }) => {
          if (this.#state !== 'up' && this.#state !== 'answered') return;
          try {
            this.#events?.dtmf?.(digit, durationMs);
          } catch (err) {
            this.#log.error({ err }, 'dtmf listener failed');
          }
        });
        return true;
      },
    };
  }

  async #createMedia(): Promise<void> {
    const transport = this.#env.transportConfig;
    const leg = await this.#env.media.createLeg({ bindAddress: transport.bindAddress, video: wantsVideo(this.#endpoint?.videoCodecs) });
    this.#legId = leg.legId;
    this.#mediaPort = leg.localPort;
    this.#videoPort = leg.videoPort;
    if (this.#state !== 'setup') {
      await this.#releaseMedia();
      return;
    }
    // The SDP must name a concrete address: the external one, else the bound one, else the
    // address the caller reaches us on.
    const external = transport.externalMediaAddress;
    if (external !== undefined && external !== '') this.#mediaAddress = external;
    else if (!isWildcardAddress(transport.bindAddress)) this.#mediaAddress = transport.bindAddress;
    else if (!isWildcardAddress(leg.localAddress)) this.#mediaAddress = leg.localAddress;
    else this.#mediaAddress = await localAddressToward(this.#context.source.address);
    if (this.#remote !== undefined) await this.#env.media.setLegRemote(leg.legId, this.#legRemote(this.#remote));
    if (this.#state !== 'setup') await this.#releaseMedia();
  }

  #legRemote(remote: RemoteMedia) {
    return {
      address: remote.address,
      port: remote.port,
      codec: remote.codec,
      ...(remote.telephoneEventPayloadType !== undefined ? { telephoneEventPayloadType: remote.telephoneEventPayloadType } : {}),
      direction: remote.direction,
      ...legVideo(remote.video, this.#videoPort),
      ...legSrtpOf(remote),
    };
  }

  /** The SDP we send: an answer to the caller's offer, or our offer when the INVITE had none. */
  #localSdp(): Buffer {
    const endpoint = this.#endpoint;
    if (endpoint === undefined) throw new Error('SDP requested before the endpoint was identified');
    const remote = this.#remote;
    if (this.#offerStreams !== undefined && remote !== undefined) {
      const te = remote.telephoneEventPayloadType;
      const formats = {
        codecs: [{ name: remote.codec.name, payloadType: remote.codec.payloadType }],
        telephoneEvents: te === undefined ? [] : [{ payloadType: te, clockRate: remote.codec.clockRate }],
      };
      return Buffer.from(this.#sdp.answer(this.#localAudio(formats, answerDirection(remote.direction)), this.#offerStreams));
    }
    return Buffer.from(this.#sdp.offer(this.#localAudio(offerFormats(endpoint.codecs), 'sendrecv')));
  }

  #localAudio(formats: Pick<LocalAudio, 'codecs' | 'telephoneEvents'>, direction: MediaDirection): LocalAudio {
    return {
      address: this.#mediaAddress,
      port: this.#mediaPort,
      ...formats,
      direction,
      ...localVideo(this.#videoPort, this.#endpoint?.videoCodecs),
    };
  }

  #receiveAck(ack: SipRequest): void {
    if (this.#state !== 'answered') return;
    this.#transition('up');
    this.#settled();
    if (this.#timerOffer !== undefined && this.#pendingByeCause === undefined) this.#sessionTimer.start(this.#timerOffer);
    const cause = this.#pendingByeCause;
    if (cause !== undefined) {
      this.#sendBye(cause);
      return;
    }
    if (this.#offerStreams === undefined) void this.#applyAnswer(ack, 'ACK');
  }

  /** The answer to our offer, carried by an ACK (RFC 3261 §13.2.1). Unusable: the call ends. */
  async #applyAnswer(ack: SipRequest, what: string): Promise<void> {
    const endpoint = this.#endpoint;
    if (endpoint === undefined || this.#legId === undefined || this.#pendingByeCause !== undefined) return;
    const outcome =
      ack.body.length > 0 && ack.contentType === SDP
        ? negotiateAnswer(ack.bodyText, endpoint.codecs, endpoint.videoCodecs, this.#sdp)
        : ({ ok: false, reason: `${what} carries no SDP answer` } as const);
    if (!outcome.ok) {
      this.#log.info({ problem: outcome.reason }, 'answer unusable; ending the call');
      this.#sendBye(CAUSE_BEARER_NOT_AVAILABLE);
      this.#report(CAUSE_BEARER_NOT_AVAILABLE);
      return;
    }
    this.#remote = outcome.remote;
    try {
      await this.#env.media.setLegRemote(this.#legId, this.#legRemote(outcome.remote));
    } catch (err) {
      this.#log.error({ err }, 'media leg refused the answer');
    }
  }

  #ackTimedOut(): void {
    if (this.#state !== 'answered' && this.#state !== 'up') return;
    // RFC 3261 §13.3.1.4: the session is ended with a BYE.
    const cause = this.#pendingByeCause ?? CAUSE_RECOVERY_ON_TIMER_EXPIRY;
    this.#sendBye(cause);
    this.#report(CAUSE_RECOVERY_ON_TIMER_EXPIRY);
  }

  #farEndEnded(cause: number, what: string): void {
    if (this.#state === 'ended') return;
    this.#log.debug({ cause, what }, 'far end ended the call');
    this.#end();
    this.#report(cause);
  }

  #refuse(
    status: number,
    content: { reason?: string | undefined; headers?: ReadonlyArray<readonly [string, string]> | undefined } = {},
  ): void {
    if (this.invite.state === 'proceeding') {
      this.invite.reject(status, {
        ...(content.reason !== undefined ? { reason: content.reason } : {}),
        ...(content.headers !== undefined ? { headers: content.headers } : {}),
      });
    }
    this.#end();
  }

  #sendBye(cause: number): void {
    if (this.#state !== 'answered' && this.#state !== 'up') return;
    this.#sessionTimer.stop();
    const dialog: Dialog | undefined = this.invite.dialog;
    this.#transition('ending');
    void this.#releaseMedia();
    if (dialog === undefined || dialog.state === 'terminated') {
      this.#end();
      return;
    }
    this.#byeDone = dialog.sendRequest('BYE', { headers: [['Reason', reasonHeaderForCause(cause)]] }).then((outcome) => {
      if (outcome.kind !== 'response') this.#log.debug({ outcome: outcome.kind }, 'BYE got no response');
      this.#end();
    });
  }

  #report(cause: number): void {
    if (this.#reported || this.#hangupRequested) return;
    this.#reported = true;
    const events = this.#events;
    if (events === undefined) return;
    try {
      events.hungUp(cause);
    } catch (err) {
      this.#log.error({ err }, 'hungUp listener failed');
    }
  }

  #end(): void {
    if (this.#state === 'ended') return;
    this.#transition('ended');
    this.#settled();
    this.#sessionTimer.stop();
    // Nothing of this call may keep retransmitting once it is over.
    this.invite.abandon();
    this.#reinvite?.abandon();
    this.invite.dialog?.terminate();
    void this.#releaseMedia();
    this.#env.onEnded(this);
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

  #callerFromRequest(request: SipRequest): { name: string; number: string } {
    const from = request.from;
    const uri = from.uri;
    const number = uri.kind === 'sip' ? (uri.user ?? '') : (uri.telephoneNumber ?? '');
    return { name: from.displayName ?? '', number };
  }

  #transition(to: InboundCallState): void {
    const from = this.#state;
    if (!TRANSITIONS[from].includes(to)) throw new Error(`call ${this.protocolId}: illegal transition ${from} -> ${to}`);
    this.#state = to;
    this.#log.debug({ from, to }, 'call state');
  }
}
