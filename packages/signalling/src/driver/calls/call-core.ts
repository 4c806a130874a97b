/**
 * The SIP call core: what an inbound call (inbound-call.ts) and a call we place (outbound-call.ts)
 * share. It owns the media leg and our side of the SDP, reports channel events to core (hangup,
 * hold and resume, DTMF), serves the requests inside the call's dialog (BYE, re-INVITE, UPDATE,
 * INFO, REFER, the NOTIFYs of our own REFER), refreshes the session (RFC 4028) by UPDATE or
 * re-INVITE, sends the API's redirect as a REFER, reports transfer progress, and ends the call with
 * a BYE that carries the Q.850 cause.
 *
 * Composition, not a base class: the two calls start differently and have different state machines
 * (an inbound call waits for the ACK of its 2xx; an outbound one forks, cancels and takes the first
 * 2xx), and each keeps its state union, transition table, diagram and transition() whole in its own
 * file. The core holds no lifecycle state: it asks its owner whether the call is live, and hands the
 * decisions that move the state machine (ending the call with a BYE) back to it (CallCoreOwner).
 */
import type {
  AudioCodecName,
  ChannelTechnology,
  ChannelTechnologyEvents,
  Clock,
  LegRemote,
  Logger,
  MediaEngine,
  MediaLegInfo,
  SipEndpointConfig,
  SipTransportConfig,
  TransferProgressState,
  VideoCodecName,
} from '@switchboard/core';
import { CoreError } from '@switchboard/core';
import { randomUUID } from 'node:crypto';
import type { Dialog } from '../../dialog/dialog.js';
import type { IncomingInvite } from '../../dialog/incoming-invite.js';
import type { SipRequest } from '../../message/sip-message.js';
import type { SipUri } from '../../message/uri.js';
import { isWildcardAddress, localAddressToward } from '../../transport/local-address.js';
import {
  answerDirection,
  type LocalAudio,
  LocalSdpSession,
  type MediaDirection,
  negotiateAnswer,
  negotiateOffer,
  type OfferedStream,
  type OfferOutcome,
  offerFormats,
  type RemoteMedia,
} from '../sdp/sdp.js';
import { legSrtpOf, mediaSecurityOf, type SdesContext } from '../sdp/sdes.js';
import { legVideo, localVideo, wantsVideo } from '../sdp/sdp-video.js';
import { preferOpus, webrtcPolicyOf } from '../sdp/webrtc-sdp.js';
import type { DtlsIdentities } from '../sdp/dtls-certificates.js';
import { answerInfo } from './dtmf-info.js';
import { CAUSE_NORMAL_CLEARING, CAUSE_RECOVERY_ON_TIMER_EXPIRY, causeFromReasonHeader, reasonHeaderForCause } from './hangup-causes.js';
import { OutgoingRefer } from './redirect.js';
import { type ReinviteClient, type ReinviteResult, retryOnGlare } from './reinvite-client.js';
import { CAUSE_REQUESTED_CHAN_UNAVAIL, CallRtpTimeout } from './rtp-timeout.js';
import type { DialogIdentity, ReplacesTarget } from './replaces.js';
import { SessionTimer } from './session-timer.js';
import { handleRefer, type ReferSubscription, type TransferSource } from './transfer.js';
import { handleUpdate, type RefreshOutcome } from './update.js';

/** What SIP calls use of the engine: legs, and RTP timeouts (optional for test doubles; rtp-timeout.ts). */
export type SipMediaEngine = Pick<MediaEngine, 'createLeg' | 'setLegRemote' | 'destroyLeg'> &
  Partial<Pick<MediaEngine, 'setLegRtpTimeout' | 'onNotification'>>;

export const SDP = 'application/sdp';

/** What the core asks of the call that owns it. */
export interface CallCoreOwner {
  /** The 2xx went out (inbound) or came in (outbound) and the call has not started ending. */
  isLive(): boolean;
  /** Ends the live call with a BYE carrying the cause; the owner's state moves to `ending`. */
  sendBye(cause: number): void;
  /** Our session refresh as refresher (RFC 4028 §7.4); resolves with its final status, 0 for none. */
  refreshSession(interval: number): Promise<number>;
}

export interface CallCoreOptions {
  owner: CallCoreOwner;
  media: SipMediaEngine;
  clock: Clock;
  logger: Logger;
  userAgent: string;
  /** The endpoint's video codecs (known once an inbound caller is identified). */
  videoCodecs(): readonly VideoCodecName[] | undefined;
  /** The confirmed call of ours a Replaces names (attended transfer, RFC 3891). */
  findDialog?: ((target: ReplacesTarget) => ChannelTechnology | undefined) | undefined;
}

/** The per-dialog part of serving in-dialog requests (serveDialog). */
export interface InDialogHandlers {
  /** The call the dialog belongs to: REFER names it, and Dial() sets its transferHandler while bridged. */
  self: ChannelTechnology & TransferSource;
  /** Whether requests on this dialog act on the call now (for a forked call: the winning fork's, while up). */
  live(): boolean;
  /** Whether a REFER may transfer the call now (answered and acknowledged). */
  transferable(): boolean;
  /** The dialplan context a blind transfer continues in. */
  context: string;
  /** The far end's BYE (RFC 3261 §15.1.2), with the cause of its Reason header or 16. */
  bye(cause: number): void;
  reinvite(reinvite: IncomingInvite): Promise<void>;
  /** True while an offer/answer of the far end is unfinished: an UPDATE's offer gets 500 (RFC 3311 §5.2). */
  offerPending(): boolean;
  /** Every accepted re-INVITE or UPDATE refreshes the session (RFC 4028 §7.4). */
  refreshed(request: SipRequest): RefreshOutcome;
  /** The codecs an offer is negotiated against (the codec in use goes first). */
  codecs(): readonly AudioCodecName[];
}

export type OfferAnswer = { ok: true; body: Buffer } | { ok: false; status: number; warning?: string };

export class SipCallCore {
  /** The events core returned for the channel. */
  events: ChannelTechnologyEvents | undefined;
  /** Set when core hung up: nothing more is reported for a hangup core asked for. */
  hangupRequested = false;
  /** The far end's current media (its last offer or answer). */
  remote: RemoteMedia | undefined;
  /** Our session refreshes by re-INVITE, with glare handled there (reinvite-client.ts). */
  reinvites: ReinviteClient | undefined;
  readonly sessionTimer: SessionTimer;
  readonly log: Logger;
  readonly #options: CallCoreOptions;
  readonly #sdp = new LocalSdpSession();
  #reported = false;
  #legId: string | undefined;
  #legReleased = false;
  #mediaAddress = '';
  #mediaPort = 0;
  /** The leg's video RTP port, when the endpoint allows video codecs. */
  #videoPort: number | undefined;
  /** Whether the far end has put us on hold (its last SDP said sendonly/inactive or c=0.0.0.0). */
  #onHold = false;
  /** The REFER left to the channel's application, whose progress transferProgress reports. */
  #referSubscription: ReferSubscription | undefined;
  /** The REFER we sent for the API's redirect, whose NOTIFYs tell whether the call can end. */
  #outgoingRefer: OutgoingRefer | undefined;
  /** The endpoint's `rtp_timeout`/`rtp_timeout_hold` on the call's leg (rtp-timeout.ts); the owner configures it. */
  readonly rtpTimeout: CallRtpTimeout;

  constructor(options: CallCoreOptions) {
    this.#options = options;
    this.log = options.logger;
    this.rtpTimeout = new CallRtpTimeout(options.media, options.logger, () => (this.#legReleased ? undefined : this.#legId));
    this.sessionTimer = new SessionTimer(options.clock, {
      refresh: (interval) => options.owner.refreshSession(interval),
      expired: () => {
        this.log.info('session timer expired');
        options.owner.sendBye(CAUSE_RECOVERY_ON_TIMER_EXPIRY);
        this.report(CAUSE_RECOVERY_ON_TIMER_EXPIRY);
      },
    });
  }

  get legId(): string | undefined {
    return this.#legId;
  }

  // ---- channel events -------------------------------------------------------------------------

  /** Calls a listener of core's; one listener's exception never breaks the call. */
  emit(fn: (events: ChannelTechnologyEvents) => void): void {
    const events = this.events;
    if (events === undefined || this.hangupRequested) return;
    try {
      fn(events);
    } catch (err) {
      this.log.error({ err }, 'channel event listener failed');
    }
  }

  /** Reports the end of the call once, unless core asked for it. */
  report(cause: number): void {
    if (this.#reported || this.hangupRequested) return;
    this.#reported = true;
    this.emit((events) => events.hungUp(cause));
  }

  /** The far end's SDP applied while live: hold/resume reported (ChannelHold/ChannelUnhold), the RTP timeout re-armed. */
  noteDirection(remote: RemoteMedia): void {
    if (!this.#options.owner.isLive()) return;
    this.rtpTimeout.arm(remote);
    const held = remote.direction === 'sendonly' || remote.direction === 'inactive';
    if (held === this.#onHold) return;
    this.#onHold = held;
    this.emit((events) => events.held?.(held));
  }

  /** Answered, or the far end's media known at last (an answer in the ACK): armed, the count restarted. */
  restartRtpTimeout(): void {
    if (this.#options.owner.isLive()) this.rtpTimeout.arm(this.remote);
  }

  /** The engine's `legRtpTimeout` for this call's leg: the call ends with cause 44, as in Asterisk. */
  rtpTimedOut(seconds: number, channel: string): void {
    if (!this.#options.owner.isLive() || !this.rtpTimeout.expire(seconds, channel)) return;
    this.#options.owner.sendBye(CAUSE_REQUESTED_CHAN_UNAVAIL);
    this.report(CAUSE_REQUESTED_CHAN_UNAVAIL);
  }

  // ---- the media leg and our SDP --------------------------------------------------------------

  /**
   * Creates the leg on the transport's bind address, pointed at `remote` when the far end's media is
   * already known (an INVITE with an offer): one request to the media worker instead of two. The SDP
   * must name a concrete address: the external one, else the bound one, else the leg's, else the one
   * the system uses toward `peer`. `near` is the other party's leg, whose media worker this leg shares.
   */
  async createLeg(transport: SipTransportConfig, peer: () => string, remote?: RemoteMedia, near?: string): Promise<void> {
    const video = wantsVideo(this.#options.videoCodecs());
    // The id is ours from the start, so the leg can be used (played to, bridged, destroyed) while the
    // media worker binds its socket: the engine holds such commands until then.
    const legId = randomUUID();
    this.#legId = legId;
    let leg: MediaLegInfo;
    try {
      leg = await this.#options.media.createLeg({
        legId,
        bindAddress: transport.bindAddress,
        video,
        ...(remote !== undefined ? { remote: this.#legRemote(remote, video) } : {}),
        near,
      });
    } catch (err) {
      // The engine has forgotten the leg: there is nothing to destroy.
      this.#legReleased = true;
      throw err;
    }
    this.#legId = leg.legId;
    this.#mediaPort = leg.localPort;
    this.#videoPort = leg.videoPort;
    const external = transport.externalMediaAddress;
    if (external !== undefined && external !== '') this.#mediaAddress = external;
    else if (!isWildcardAddress(transport.bindAddress)) this.#mediaAddress = transport.bindAddress;
    else if (!isWildcardAddress(leg.localAddress)) this.#mediaAddress = leg.localAddress;
    else this.#mediaAddress = await localAddressToward(peer());
  }

  /** Points the leg at the far end's media; rejects when the engine refuses. */
  async setLegRemote(remote: RemoteMedia): Promise<void> {
    const legId = this.#legId;
    if (legId === undefined || this.#legReleased) return;
    await this.#options.media.setLegRemote(legId, this.#legRemote(remote, this.#videoPort !== undefined));
  }

  /** The far end's new media: remembered, hold noted, the leg pointed at it (a refusal is logged). */
  async applyRemote(remote: RemoteMedia): Promise<void> {
    this.remote = remote;
    this.noteDirection(remote);
    try {
      await this.setLegRemote(remote);
    } catch (err) {
      this.log.error({ err }, 'media leg refused the remote');
    }
  }

  async releaseMedia(): Promise<void> {
    const legId = this.#legId;
    if (legId === undefined || this.#legReleased) return;
    this.#legReleased = true;
    try {
      await this.#options.media.destroyLeg(legId);
    } catch (err) {
      this.log.warn({ err, legId }, 'media leg could not be destroyed');
    }
  }

  /**
   * What the offers and answers of the call are negotiated with: the endpoint's `media_encryption`
   * and our SDES keys (sdes.ts), handed to negotiateOffer and negotiateAnswer.
   */
  get sdes(): SdesContext {
    return this.#sdp;
  }

  /**
   * The endpoint's `media_encryption` policy and WebRTC options apply from now on (set once the
   * endpoint is known); a DTLS endpoint's certificate is looked up here (an unreadable
   * `dtls_cert_file` leaves none, and its calls are refused with 488).
   */
  useEncryptionOf(endpoint: SipEndpointConfig, certificates: DtlsIdentities | undefined): void {
    this.#sdp.security = mediaSecurityOf(endpoint);
    this.#sdp.webrtc.policy = webrtcPolicyOf(endpoint);
    if (this.#sdp.security.encryption !== 'dtls') return;
    try {
      this.#sdp.webrtc.identity = certificates?.forEndpoint(endpoint);
    } catch (err) {
      this.log.error({ err, endpoint: endpoint.name }, 'DTLS certificate of the endpoint cannot be read');
    }
    if (this.#sdp.webrtc.identity === undefined) this.log.warn({ endpoint: endpoint.name }, 'no DTLS certificate for the endpoint');
  }

  /** Our first offer: every codec the endpoint allows (RFC 3264 §5), Opus first for a browser. */
  initialOffer(codecs: readonly AudioCodecName[]): Buffer {
    const ordered = preferOpus(codecs, this.#sdp.webrtc.policy);
    return Buffer.from(this.#sdp.offer(this.#localAudio(offerFormats(ordered), 'sendrecv')));
  }

  /** Our answer to the far end's offer: the codec chosen, the direction mirrored (RFC 3264 §6.1). */
  answerSdp(remote: RemoteMedia, streams: OfferedStream[]): Buffer {
    return Buffer.from(this.#sdp.answer(this.#localAudio(currentFormats(remote), answerDirection(remote.direction)), streams));
  }

  /** An offer of the session as it is (RFC 3264 §8): the codec in use, our current direction. */
  sessionOffer(codecs: readonly AudioCodecName[]): Buffer {
    const remote = this.remote;
    if (remote === undefined) return this.initialOffer(codecs);
    return Buffer.from(this.#sdp.offer(this.#localAudio(currentFormats(remote), answerDirection(remote.direction))));
  }

  /** A new offer inside the call, negotiated with the codec in use first so it is kept when still offered. */
  negotiateNewOffer(offer: string, codecs: readonly AudioCodecName[]): OfferOutcome {
    const current = this.remote;
    const preferences = current === undefined ? codecs : [current.codec.name, ...codecs.filter((c) => c !== current.codec.name)];
    return negotiateOffer(offer, preferences, this.#options.videoCodecs(), this.#sdp);
  }

  #localAudio(formats: Pick<LocalAudio, 'codecs' | 'telephoneEvents'>, direction: MediaDirection): LocalAudio {
    return {
      address: this.#mediaAddress,
      port: this.#mediaPort,
      ...formats,
      direction,
      ...localVideo(this.#videoPort, this.#options.videoCodecs()),
    };
  }

  /** The engine's view of the far end's media; its video only for a leg with a video socket pair. */
  #legRemote(remote: RemoteMedia, withVideo: boolean): LegRemote {
    return {
      address: remote.address,
      port: remote.port,
      codec: remote.codec,
      ...(remote.telephoneEventPayloadType !== undefined ? { telephoneEventPayloadType: remote.telephoneEventPayloadType } : {}),
      direction: remote.direction,
      ...(withVideo ? legVideo(remote.video) : {}),
      ...legSrtpOf(remote),
      ...remote.transport,
    };
  }

  // ---- the dialog -----------------------------------------------------------------------------

  /** The requests inside the call's dialog: BYE, re-INVITE, UPDATE, our REFER's NOTIFYs, REFER, INFO. */
  serveDialog(dialog: Dialog, handlers: InDialogHandlers): void {
    const userAgent = this.#options.userAgent;
    dialog.delegate = {
      onBye: (bye) => handlers.bye(causeFromReasonHeader(bye.getHeaderList('Reason')) ?? CAUSE_NORMAL_CLEARING),
      onReinvite: (reinvite) => {
        handlers.reinvite(reinvite).catch((err: unknown) => {
          this.log.error({ err }, 're-INVITE handling failed');
          if (reinvite.state === 'proceeding') reinvite.reject(500);
        });
      },
      onRequest: (request, transaction) => {
        if (request.method === 'UPDATE') {
          handleUpdate(request, transaction, {
            dialog,
            userAgent,
            offerPending: handlers.offerPending(),
            localOfferPending: this.reinvites?.pending === true,
            onRefresh: (update) => handlers.refreshed(update),
            answer: (offer) => this.#answerUpdate(offer, handlers),
          });
          return true;
        }
        if (request.method === 'NOTIFY' && this.#outgoingRefer?.receiveNotify(request, transaction) === true) return true;
        if (request.method === 'REFER') {
          const transferable = handlers.transferable();
          handleRefer(request, transaction, {
            dialog,
            self: handlers.self,
            findDialog: (target) => this.#options.findDialog?.(target),
            context: handlers.context,
            application: transferable
              ? {
                  offer: (request) => this.events?.transferRequested?.(request) ?? { kind: 'refused' },
                  accepted: (subscription) => {
                    this.#referSubscription = subscription;
                  },
                }
              : undefined,
            handler: transferable ? handlers.self.transferHandler : undefined,
            userAgent,
            logger: this.log,
          });
          return true;
        }
        if (request.method !== 'INFO') return false;
        answerInfo(request, transaction, userAgent, ({ digit, durationMs }) => {
          if (handlers.live()) this.emit((events) => events.dtmf?.(digit, durationMs));
        });
        return true;
      },
    };
  }

  /** An SDP offer in an UPDATE (RFC 3311): applied like a re-INVITE's, answered in the 200. */
  async #answerUpdate(offer: string, handlers: InDialogHandlers): Promise<OfferAnswer> {
    if (!handlers.live() || this.#legId === undefined) return { ok: false, status: 481 };
    const outcome = this.negotiateNewOffer(offer, handlers.codecs());
    if (!outcome.ok) return { ok: false, status: 488, warning: outcome.reason };
    await this.setLegRemote(outcome.remote);
    this.remote = outcome.remote;
    const body = this.answerSdp(outcome.remote, outcome.streams);
    this.noteDirection(outcome.remote);
    return { ok: true, body };
  }

  /** Ends the dialog with a BYE carrying the cause (RFC 3326); `ended` runs once it is answered or moot. */
  bye(dialog: Dialog | undefined, cause: number, ended: () => void): Promise<void> {
    this.sessionTimer.stop();
    void this.releaseMedia();
    if (dialog === undefined || dialog.state === 'terminated') {
      ended();
      return Promise.resolve();
    }
    return dialog.sendRequest('BYE', { headers: [['Reason', reasonHeaderForCause(cause)]] }).then((outcome) => {
      if (outcome.kind !== 'response') this.log.debug({ outcome: outcome.kind }, 'BYE got no response');
      ended();
    });
  }

  /** Nothing of the call may keep running once it is over. */
  close(dialog: Dialog | undefined): void {
    this.sessionTimer.stop();
    dialog?.terminate();
    void this.releaseMedia();
  }

  // ---- session refresh (RFC 4028 §7.4) ----------------------------------------------------------

  /** An offerless UPDATE carrying the refresh headers, tried again on glare (RFC 3311 §5.2). */
  refreshByUpdate(dialog: Dialog, headers: ReadonlyArray<readonly [string, string]>, ownsCallId: boolean): Promise<number> {
    return retryOnGlare(
      async () => {
        if (dialog.state === 'terminated') return 481;
        const outcome = await dialog.sendRequest('UPDATE', { headers });
        return outcome.kind === 'response' ? outcome.response.status : 0;
      },
      { clock: this.#options.clock, ownsCallId },
    );
  }

  /**
   * A re-INVITE offering the session as it is (RFC 3264 §8: the same SDP version when nothing
   * changed), its answer applied; a 491 is retried after the §14.1 delay (reinvite-client.ts).
   */
  async refreshByReinvite(headers: ReadonlyArray<readonly [string, string]>, codecs: readonly AudioCodecName[]): Promise<ReinviteResult> {
    const client = this.reinvites;
    if (client === undefined) return { kind: 'failed', status: 481 };
    const result = await client.send(() => ({ headers, body: this.sessionOffer(codecs), contentType: SDP }));
    if (result.kind !== 'answered' || !this.#options.owner.isLive()) return result;
    const answer = result.response;
    if (answer.body.length === 0 || answer.contentType !== SDP) return result;
    const outcome = negotiateAnswer(answer.bodyText, codecs, [], this.#sdp);
    if (outcome.ok) await this.applyRemote(outcome.remote);
    else this.log.info({ problem: outcome.reason }, 'answer to our re-INVITE unusable; session kept');
    return result;
  }

  // ---- redirect and transfer ------------------------------------------------------------------

  /** The API's redirect of an answered call: REFER to the target (redirect.ts); it ends on success. */
  async referTo(dialog: Dialog, target: SipUri): Promise<void> {
    if (this.#outgoingRefer !== undefined && !this.#outgoingRefer.settled)
      throw new CoreError('conflict', 'A redirect is already in progress');
    const refer = new OutgoingRefer({
      dialog,
      target,
      userAgent: this.#options.userAgent,
      logger: this.log,
      onOutcome: (outcome) => {
        if (outcome !== 'succeeded') return;
        this.#options.owner.sendBye(CAUSE_NORMAL_CLEARING);
        this.report(CAUSE_NORMAL_CLEARING);
      },
    });
    this.#outgoingRefer = refer;
    await refer.send();
  }

  /**
   * A text message to the far end inside the call: a MESSAGE in the dialog (RFC 3428 §4), text/plain
   * in UTF-8. A final response other than 2xx, or none, is reported as an error.
   */
  async sendText(dialog: Dialog | undefined, text: string): Promise<void> {
    if (dialog === undefined || dialog.state === 'terminated') throw new CoreError('not_found', 'Channel not found');
    const outcome = await dialog.sendRequest('MESSAGE', { body: Buffer.from(text, 'utf8'), contentType: 'text/plain;charset=UTF-8' });
    if (outcome.kind !== 'response') throw new CoreError('unavailable', 'The far end did not answer the MESSAGE');
    const { status, reason } = outcome.response;
    if (status < 200 || status >= 300) throw new CoreError('unprocessable', `The far end refused the MESSAGE: ${status} ${reason}`);
  }

  /** The application's transfer_progress for a REFER it took over: a sipfrag NOTIFY (RFC 3515 §2.4.4). */
  async transferProgress(state: TransferProgressState): Promise<void> {
    const subscription = this.#referSubscription;
    if (subscription === undefined || subscription.ended) throw new CoreError('conflict', 'No transfer is in progress on the channel');
    await subscription.progress(state);
  }
}

/** Our view of a confirmed dialog, for Replaces (RFC 3891 §3). */
export function dialogIdentity(dialog: Dialog): DialogIdentity {
  return { callId: dialog.callId, localTag: dialog.localTag, remoteTag: dialog.remoteTag };
}

/** The codec in use and its telephone-event, as the only formats of an answer or a session offer. */
function currentFormats(remote: RemoteMedia): Pick<LocalAudio, 'codecs' | 'telephoneEvents'> {
  const te = remote.telephoneEventPayloadType;
  return {
    codecs: [{ name: remote.codec.name, payloadType: remote.codec.payloadType }],
    telephoneEvents: te === undefined ? [] : [{ payloadType: te, clockRate: remote.codec.clockRate }],
  };
}
