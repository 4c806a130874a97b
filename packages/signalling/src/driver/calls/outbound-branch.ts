/**
 * One branch of a call we place: one INVITE client transaction toward one target (all contacts of
 * an endpoint are called in parallel, each its own branch and Call-ID), the INVITE it sends
 * (RFC 3261 §8.1.1, §13.2.1), its CANCEL (§9.1), the UAC dialog its 2xx creates (§12.1.2), and
 * the status that stands for all branches when none answered (§16.7 step 6).
 *
 *   trying ──1xx──> proceeding ──2xx──> answered
 *     │                 │
 *     └──── 3xx-6xx, Timer B, CANCEL'd ──> failed
 */
import type { CallerId } from '@switchboard/core';
import { Dialog } from '../../dialog/dialog.js';
import type { SentAck, TransactionLink } from './branch-link.js';
import type { DialogServices } from '../../dialog/services.js';
import { newBranch, newCallId, newTag } from '../../message/ids.js';
import { NameAddr, parseNameAddr } from '../../message/name-addr.js';
import { headerFields, SipRequest, type SipResponse } from '../../message/sip-message.js';
import { SipUri } from '../../message/uri.js';
import { Via } from '../../message/via.js';
import type { PeerAddress, Transport } from '../../transport/transport.js';
import { type ChallengeResponder, dialogChallengeAnswerer, type OutboundCredentials } from '../auth/outbound-auth.js';
import { SDP } from './call-core.js';

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

export type BranchState = 'trying' | 'proceeding' | 'answered' | 'failed';

export interface Branch {
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
  /** What the INVITE's client transaction reports to (branch-link.ts). */
  link?: TransactionLink;
  /** The ACK sent for the answer, sent again for a retransmitted 2xx once the call has let go. */
  ack?: SentAck;
}

/** RFC 3326 §2 Reason for the branches that lost to an answer. */
export const COMPLETED_ELSEWHERE = 'SIP;cause=200;text="Call completed elsewhere"';
/** The methods the dialog of a call we place serves (UPDATE for hold and session refresh, INFO for DTMF, REFER). */
const ALLOW = 'INVITE, ACK, CANCEL, BYE, OPTIONS, UPDATE, INFO, REFER';

/** Where a branch's requests go first: the flow of a registered phone, else the first Route, else the Request-URI. */
export function nextHopFor(target: OutboundTarget): SipUri {
  const route = target.route ?? [];
  const firstRoute = route[0] === undefined ? undefined : parseNameAddr(route[0]).uri;
  const routed = firstRoute !== undefined && firstRoute.kind === 'sip' ? firstRoute : target.requestUri;
  return target.flow === undefined ? routed : new SipUri({ host: target.flow.address, port: target.flow.port });
}

export interface InitialInvite {
  transport: Transport;
  target: OutboundTarget;
  localHost: string;
  route: readonly string[];
  caller: CallerId;
  /** Session-Expires, Min-SE and Supported as the endpoint's `timers` options say (RFC 4028 §7.1). */
  timerHeaders: ReadonlyArray<readonly [string, string]>;
  /** Headers the dialplan added (PJSIP_HEADER(add,…)), after ours. */
  extraHeaders?: ReadonlyArray<readonly [string, string]>;
  userAgent: string;
  offer: Buffer;
}

/** An initial INVITE (RFC 3261 §8.1.1, §13.2.1) carrying our offer. */
export function buildInitialInvite(invite: InitialInvite): SipRequest {
  const local = new SipUri({ host: invite.localHost, port: invite.transport.localPort });
  // §19.1.4: a Contact reached over TCP/TLS says so, or the callee would answer over UDP.
  if (invite.transport.protocol !== 'udp') local.params.set('transport', invite.transport.protocol);
  const fromUri = local.clone();
  fromUri.port = undefined;
  fromUri.params.clear();
  fromUri.user = invite.caller.number === '' ? 'anonymous' : invite.caller.number;
  const from = new NameAddr(fromUri, invite.caller.name === '' ? undefined : invite.caller.name, new Map([['tag', newTag()]]));
  const toUri = (invite.target.toUri ?? invite.target.requestUri).clone();
  toUri.params.clear();
  toUri.headers = undefined;
  const via = new Via(
    invite.transport.viaTransport,
    invite.localHost,
    invite.transport.localPort,
    new Map([
      ['branch', newBranch()],
      ['rport', null],
    ]),
  );
  const seq = Math.floor(Math.random() * 0x7fff) + 1;
  const requestUri = invite.target.requestUri.clone();
  requestUri.headers = undefined;
  const request = new SipRequest(
    'INVITE',
    requestUri,
    headerFields([
      ['Via', via.toString()],
      ['Max-Forwards', '70'],
      ['From', from.toString()],
      ['To', new NameAddr(toUri).toString()],
      ['Call-ID', newCallId(invite.localHost)],
      ['CSeq', `${seq} INVITE`],
      ...invite.route.map((value) => ['Route', value] as const),
      ['Contact', `<${local.toString()}>`],
      ['Allow', ALLOW],
      ...invite.timerHeaders,
      ['User-Agent', invite.userAgent],
      ...(invite.extraHeaders ?? []),
      ['Content-Type', SDP],
    ]),
  );
  request.body = invite.offer;
  return request;
}

/** RFC 3261 §9.1: same Request-URI, Call-ID, From, To, CSeq number and top Via as the INVITE. */
export function buildCancel(invite: SipRequest, reason: string, userAgent: string): SipRequest {
  const fields = headerFields([
    ['Via', invite.topVia.toString()],
    ['Max-Forwards', '70'],
    ['From', invite.getHeader('From') ?? ''],
    ['To', invite.getHeader('To') ?? ''],
    ['Call-ID', invite.callId],
    ['CSeq', `${invite.cseq.seq} CANCEL`],
    ...invite.getHeaderFields('Route').map((value) => ['Route', value] as const),
    ['Reason', reason],
    ['User-Agent', userAgent],
  ]);
  return new SipRequest('CANCEL', invite.requestUri, fields);
}

/** RFC 3261 §12.1.2: the UAC's view of the dialog a branch's 2xx created, confirmed and in the dialog table. */
export function uacDialog(
  branch: Branch,
  response: SipResponse,
  toTag: string,
  services: DialogServices,
  credentials: OutboundCredentials | undefined,
): Dialog {
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
    services,
  );
  const flow = branch.target.flow;
  if (flow !== undefined) dialog.flowTarget = new SipUri({ host: flow.address, port: flow.port });
  dialog.confirm();
  // BYE, UPDATE, re-INVITE and REFER NOTIFYs to a challenging trunk carry credentials too.
  if (credentials !== undefined) dialog.challengeAnswerer = dialogChallengeAnswerer(credentials);
  services.addDialog(dialog);
  return dialog;
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
