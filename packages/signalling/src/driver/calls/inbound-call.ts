// Over 500 lines: one state machine (setup → up) whose steps (identification, Replaces, session timer, late offer, re-INVITE) all read and move its state; what it shares with outbound calls is in call-core.ts.
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
  type ChannelTechnologyEvents,
  type InboundCall as InboundCallPresentation,
  type Logger,
  type SipEndpointConfig,
  type SipTransportConfig,
  CoreError,
  type TransferProgressState,
} from '@switchboard/core';
import type { IncomingInvite } from '../../dialog/incoming-invite.js';
import { SipError } from '../../errors.js';
import type { SipRequest } from '../../message/sip-message.js';
import type { SipUri } from '../../message/uri.js';
import type { IncomingContext } from '../../transport/transport.js';
import { applyReceived } from '../../transport/via-received.js';
import type { UserAgentCore } from '../../ua/user-agent-core.js';
import { dialogChallengeAnswerer, type OutboundCredentials } from '../auth/outbound-auth.js';
import type { DtlsIdentities } from '../sdp/dtls-certificates.js';
import { mediaTransportConfig } from '../sdp/nat-media.js';
import { negotiateAnswer, negotiateOffer, type OfferedStream } from '../sdp/sdp.js';
import { dialogIdentity, SDP, SipCallCore, type SipMediaEngine } from './call-core.js';
import {
  CAUSE_BEARER_NOT_AVAILABLE,
  CAUSE_NETWORK_OUT_OF_ORDER,
  CAUSE_NO_CIRCUIT_AVAILABLE,
  CAUSE_NORMAL_CLEARING,
  CAUSE_RECOVERY_ON_TIMER_EXPIRY,
  causeFromReasonHeader,
  reasonHeaderForCause,
  statusForCause,
} from './hangup-causes.js';
import { ReinviteClient } from './reinvite-client.js';
import { checkReplaces, type DialogIdentity, type ReplacesTarget } from './replaces.js';
import { presentReplacement } from './replacement.js';
import { readSessionTimer, type SessionTimerOffer, sessionTimerHeaders } from './session-timer.js';
import type { TransferHandler, TransferSource } from './transfer.js';
import type { RefreshOutcome } from './update.js';

export type { SipMediaEngine } from './call-core.js';

export type InboundCallState = 'setup' | 'offered' | 'answered' | 'up' | 'ending' | 'ended';

const TRANSITIONS: Record<InboundCallState, readonly InboundCallState[]> = {
  setup: ['offered', 'ended'],
  offered: ['answered', 'ended'],
  answered: ['up', 'ending', 'ended'],
  up: ['ending', 'ended'],
  ending: ['ended'],
  ended: [],
};

export interface InboundCallEnvironment {
  host: ChannelDriverHost;
  media: SipMediaEngine;
  /** The certificates of DTLS-SRTP calls (webrtc endpoints). */
  dtlsCertificates?: DtlsIdentities | undefined;
  logger: Logger;
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

export class InboundCall implements ChannelTechnology, TransferSource {
  readonly protocolId: string;
  readonly invite: IncomingInvite;
  /** Set by the owner of the call's bridge (Dial()) while a blind transfer (REFER) can be served. */
  transferHandler: TransferHandler | undefined;
  readonly #context: IncomingContext;
  readonly #env: InboundCallEnvironment;
  readonly #log: Logger;
  /** The media leg, SDP, events, in-dialog requests and session refresh shared with outbound calls. */
  readonly #core: SipCallCore;
  #state: InboundCallState = 'setup';
  #endpoint: SipEndpointConfig | undefined;
  /** The offer's m-lines when the caller made the offer; undefined for a late offer (RFC 3261 §13.2.1). */
  #offerStreams: OfferedStream[] | undefined;
  #pendingByeCause: number | undefined;
  #byeDone: Promise<void> | undefined;
  /** The latest re-INVITE, so that its 2xx retransmissions stop with the call. */
  #reinvite: IncomingInvite | undefined;
  /** The session timer agreed in the INVITE (RFC 4028), if the caller asked for one. */
  #timerOffer: Extract<SessionTimerOffer, { kind: 'ok' }> | undefined;
  /** Resolved when the 2xx was acknowledged or the call ended (a replaced dialog ends after that). */
  #settled: () => void = () => {};
  readonly #acknowledged = new Promise<void>((resolve) => {
    this.#settled = resolve;
  });
  /** Settles once the leg is bound and our SDP can be written (or the call was refused for want of it). */
  #mediaReady: Promise<void> = Promise.resolve();
  /** The caller answered an UPDATE 405/501: refreshes go as re-INVITEs from then on. */
  #updateRefused = false;
  /** The channel's name, once presented to core (for the RTP timeout's warning). */
  #channelName = '';

  constructor(invite: IncomingInvite, context: IncomingContext, env: InboundCallEnvironment) {
    this.invite = invite;
    this.protocolId = invite.request.callId;
    this.#context = context;
    this.#env = env;
    this.#log = env.logger.child({ callId: this.protocolId });
    this.#core = new SipCallCore({
      owner: {
        isLive: () => this.#state === 'up' || this.#state === 'answered',
        sendBye: (cause) => this.#sendBye(cause),
        refreshSession: (interval) => this.#refreshSession(interval),
      },
      media: env.media,
      clock: env.clock ?? systemClock,
      logger: this.#log,
      userAgent: env.userAgent ?? 'Switchboard',
      videoCodecs: () => this.#endpoint?.videoCodecs,
      findDialog: env.findDialog,
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
    return this.#core.legId;
  }

  get endpoint(): SipEndpointConfig | undefined {
    return this.#endpoint;
  }

  /** Our view of the call's dialog once it is confirmed (answered), for Replaces (RFC 3891 §3). */
  get confirmedDialog(): DialogIdentity | undefined {
    const dialog = this.invite.dialog;
    if (dialog === undefined || (this.#state !== 'up' && this.#state !== 'answered')) return undefined;
    return dialogIdentity(dialog);
  }

  /** PJSIP_HEADER(read,…): the values of a header of the INVITE that started the call. */
  requestHeaders(name: string): string[] {
    return this.invite.request.getHeaderFields(name);
  }

  /**
   * Offer/answer, media leg, presentation to core (RFC 3261 §13.3.1), for a caller the driver has
   * identified as `endpoint` (authenticateInbound).
   */
  async start(endpoint: SipEndpointConfig): Promise<void> {
    const request = this.invite.request;
    const source = this.#context.source;
    if (this.#state !== 'setup') return;
    this.#endpoint = endpoint;
    this.#core.useEncryptionOf(endpoint, this.#env.dtlsCertificates);
    this.#core.rtpTimeout.configure(endpoint);
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
      const outcome = negotiateOffer(request.bodyText, endpoint.codecs, endpoint.videoCodecs, this.#core.sdes);
      if (!outcome.ok) {
        this.#log.info({ endpoint: endpoint.name, problem: outcome.reason }, 'offer refused');
        // RFC 3261 §20.43: 305 "Incompatible media format".
        this.#refuse(outcome.status, { headers: [['Warning', `305 switchboard "${outcome.reason}"`]] });
        return;
      }
      this.#core.remote = outcome.remote;
      this.#offerStreams = outcome.streams;
    } else if (endpoint.codecs.length === 0) {
      this.#refuse(488);
      return;
    }

    // The call is presented while the media worker binds the leg's socket: core can use the leg at once
    // (the engine holds its commands until then), and only our SDP waits for it (#mediaReady).
    this.#mediaReady = this.#createMedia();

    const uri = request.uri;
    const exten = uri.kind === 'sip' && uri.user !== undefined && uri.user !== '' ? uri.user : 's';
    this.#transition('offered');
    this.#channelName = this.#env.channelName(endpoint.name);
    const presented: InboundCallPresentation = {
      technology: 'SIP',
      name: this.#channelName,
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
          this.#core.hangupRequested = true;
          this.#refuse(status, reason === undefined ? {} : { reason });
        },
        adopt: (events) => {
          this.#core.events = events;
        },
        acknowledged: this.#acknowledged,
      });
      return;
    }
    let events: ChannelTechnologyEvents;
    try {
      events = this.#env.host.acceptInbound(presented);
    } catch (err) {
      this.#core.hangupRequested = true;
      // The server is stopping (or a subsystem is down): 503 tells the phone to try elsewhere or later.
      if (err instanceof CoreError && err.code === 'unavailable') {
        this.#log.info({ reason: err.message }, 'inbound call refused: unavailable');
        this.#refuse(503);
        return;
      }
      this.#log.error({ err }, 'core refused the inbound call');
      this.#refuse(500);
      return;
    }
    this.#core.events = events;
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
        this.#core.report(CAUSE_NORMAL_CLEARING);
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
    await this.#core.referTo(dialog, target);
  }

  /** The application's transfer_progress for a REFER it took over: a sipfrag NOTIFY (RFC 3515 §2.4.4). */
  async transferProgress(state: TransferProgressState): Promise<void> {
    await this.#core.transferProgress(state);
  }

  /** The manager's SendText: a MESSAGE inside the dialog once the call is answered. */
  async sendText(text: string): Promise<void> {
    if (this.#state !== 'answered' && this.#state !== 'up') throw new CoreError('precondition_failed', 'Channel is not answered');
    await this.#core.sendText(this.invite.dialog, text);
  }

  async indicateRinging(): Promise<void> {
    if (this.#state !== 'offered') return;
    this.invite.progress(180);
    this.#adoptDialog();
  }

  async indicateProgress(): Promise<void> {
    await this.#mediaReady;
    if (this.#state !== 'offered') return;
    // An offer cannot go in an unreliable provisional response (RFC 3261 §13.2.1), so with a late
    // offer the 183 carries no SDP.
    const body = this.#offerStreams === undefined ? undefined : this.#localSdp();
    this.invite.progress(183, body === undefined ? {} : { body, contentType: SDP });
    this.#adoptDialog();
  }

  async answer(): Promise<void> {
    await this.#mediaReady;
    if (this.#state === 'answered' || this.#state === 'up') return;
    if (this.#state !== 'offered') throw new SipError(487, 'Request Terminated', 'the call ended before it was answered');
    const body = this.#localSdp();
    const offer = this.#timerOffer;
    this.invite.accept({ body, contentType: SDP, ...(offer !== undefined ? { headers: sessionTimerHeaders(offer) } : {}) });
    this.#transition('answered');
    this.#adoptDialog();
  }

  /** The engine's `legRtpTimeout` for this call's leg: the caller's phone went quiet (rtp-timeout.ts). */
  rtpTimedOut(seconds: number): void {
    this.#core.rtpTimedOut(seconds, this.#channelName);
  }

  async hangup(cause: number): Promise<void> {
    this.#core.hangupRequested = true;
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
        await this.#core.releaseMedia();
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
        this.#core.report(CAUSE_NORMAL_CLEARING);
        return;
      case 'answered':
      case 'up':
        this.invite.abandon();
        this.#sendBye(this.#pendingByeCause ?? CAUSE_NORMAL_CLEARING);
        this.#core.report(CAUSE_NORMAL_CLEARING);
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
    const remote = this.#core.remote;
    if (endpoint === undefined || this.#core.legId === undefined) {
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
      reinvite.accept({ body: this.#core.initialOffer(endpoint.codecs), contentType: SDP, headers: refresh.headers });
      return;
    }
    if (request.contentType !== SDP) {
      reinvite.reject(415, { headers: [['Accept', SDP]] });
      return;
    }
    const outcome = this.#core.negotiateNewOffer(request.bodyText, endpoint.codecs);
    if (!outcome.ok) {
      reinvite.reject(488, { headers: [['Warning', `305 switchboard "${outcome.reason}"`]] });
      return;
    }
    try {
      await this.#core.setLegRemote(outcome.remote);
    } catch (err) {
      this.#log.error({ err }, 'media leg refused the new remote');
      reinvite.reject(500);
      return;
    }
    if (reinvite.state !== 'proceeding') {
      // Cancelled while the leg was being changed: the session stays as it was (RFC 3261 §14.1).
      if (remote !== undefined && this.#state === 'up') await this.#core.setLegRemote(remote);
      return;
    }
    this.#core.remote = outcome.remote;
    this.#offerStreams = outcome.streams;
    reinvite.delegate = { onAckTimeout: () => this.#ackTimedOut() };
    // RFC 3264 §8.4: the answer mirrors the direction (sendonly → recvonly, inactive → inactive).
    reinvite.accept({ body: this.#localSdp(), contentType: SDP, headers: refresh.headers });
    this.#core.noteDirection(outcome.remote);
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
    if (this.#state === 'up') this.#core.sessionTimer.refreshed(offer);
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
      const status = await this.#core.refreshByUpdate(dialog, headers, false);
      if ((status === 405 || status === 501) && ua !== undefined && !this.#updateRefused) {
        this.#updateRefused = true;
        return this.#refreshSession(interval);
      }
      return status;
    }
    this.#core.reinvites ??= new ReinviteClient({
      dialog,
      ua,
      clock: this.#env.clock ?? systemClock,
      logger: this.#log,
      ownsCallId: false,
    });
    const result = await this.#core.refreshByReinvite(headers, this.#endpoint?.codecs ?? []);
    return result.kind === 'answered' ? result.response.status : result.status;
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
    this.#core.serveDialog(dialog, {
      self: this,
      live: () => this.#state === 'up' || this.#state === 'answered',
      // pjsip.conf `allow_transfer = no`: the caller's REFERs are refused (603).
      transferable: () => this.#state === 'up' && this.#endpoint?.allowTransfer !== false,
      context: this.#endpoint?.context ?? 'default',
      bye: (cause) => this.#farEndEnded(cause, 'BYE'),
      reinvite: (reinvite) => this.receiveReinvite(reinvite),
      offerPending: () => this.#reinvite?.state === 'proceeding' || (this.#state === 'answered' && this.#offerStreams === undefined),
      refreshed: (update) => this.#refreshTimer(update),
      codecs: () => this.#endpoint?.codecs ?? [],
    });
  }

  /** Creates the leg; when it cannot be, the caller is told 503 and core hears of the hangup. */
  async #createMedia(): Promise<void> {
    // The identified endpoint's `media_address` names our media in the answer and later SDP (nat-media.ts).
    const transport = mediaTransportConfig(this.#env.transportConfig, this.#context.source.address, this.#endpoint);
    try {
      // An offer in the INVITE: the leg is created already pointed at the caller's media.
      await this.#core.createLeg(transport, () => this.#context.source.address, this.#core.remote);
    } catch (err) {
      if (this.#state === 'ended') return;
      this.#log.error({ err }, 'media leg could not be set up');
      this.#refuse(503);
      this.#core.report(CAUSE_NO_CIRCUIT_AVAILABLE);
    }
    // A call that ended meanwhile has already released the leg (#end): the engine destroys it once bound.
  }

  /** The SDP we send: an answer to the caller's offer, or our offer when the INVITE had none. */
  #localSdp(): Buffer {
    const endpoint = this.#endpoint;
    if (endpoint === undefined) throw new Error('SDP requested before the endpoint was identified');
    const remote = this.#core.remote;
    if (this.#offerStreams !== undefined && remote !== undefined) return this.#core.answerSdp(remote, this.#offerStreams);
    return this.#core.initialOffer(endpoint.codecs);
  }

  #receiveAck(ack: SipRequest): void {
    if (this.#state !== 'answered') return;
    this.#transition('up');
    this.#settled();
    if (this.#timerOffer !== undefined && this.#pendingByeCause === undefined) this.#core.sessionTimer.start(this.#timerOffer);
    const cause = this.#pendingByeCause;
    if (cause !== undefined) {
      this.#sendBye(cause);
      return;
    }
    // Armed once the 2xx is acknowledged: a BYE for silence must not go before the ACK (§15).
    if (this.#offerStreams === undefined) void this.#applyAnswer(ack, 'ACK');
    else this.#core.restartRtpTimeout();
  }

  /** The answer to our offer, carried by an ACK (RFC 3261 §13.2.1). Unusable: the call ends. */
  async #applyAnswer(ack: SipRequest, what: string): Promise<void> {
    const endpoint = this.#endpoint;
    if (endpoint === undefined || this.#core.legId === undefined || this.#pendingByeCause !== undefined) return;
    const outcome =
      ack.body.length > 0 && ack.contentType === SDP
        ? negotiateAnswer(ack.bodyText, endpoint.codecs, endpoint.videoCodecs, this.#core.sdes)
        : ({ ok: false, reason: `${what} carries no SDP answer` } as const);
    if (!outcome.ok) {
      this.#log.info({ problem: outcome.reason }, 'answer unusable; ending the call');
      this.#sendBye(CAUSE_BEARER_NOT_AVAILABLE);
      this.#core.report(CAUSE_BEARER_NOT_AVAILABLE);
      return;
    }
    this.#core.remote = outcome.remote;
    try {
      await this.#core.setLegRemote(outcome.remote);
    } catch (err) {
      this.#log.error({ err }, 'media leg refused the answer');
    }
    this.#core.restartRtpTimeout();
  }

  #ackTimedOut(): void {
    if (this.#state !== 'answered' && this.#state !== 'up') return;
    // RFC 3261 §13.3.1.4: the session is ended with a BYE.
    const cause = this.#pendingByeCause ?? CAUSE_RECOVERY_ON_TIMER_EXPIRY;
    this.#sendBye(cause);
    this.#core.report(CAUSE_RECOVERY_ON_TIMER_EXPIRY);
  }

  #farEndEnded(cause: number, what: string): void {
    if (this.#state === 'ended') return;
    this.#log.debug({ cause, what }, 'far end ended the call');
    this.#end();
    this.#core.report(cause);
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
    this.#transition('ending');
    this.#byeDone = this.#core.bye(this.invite.dialog, cause, () => this.#end());
  }

  #end(): void {
    if (this.#state === 'ended') return;
    this.#transition('ended');
    this.#settled();
    // Nothing of this call may keep retransmitting once it is over.
    this.invite.abandon();
    this.#reinvite?.abandon();
    this.#core.close(this.invite.dialog);
    this.#env.onEnded(this);
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
