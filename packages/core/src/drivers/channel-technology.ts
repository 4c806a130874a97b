/**
 * The seam between the object model and the channel drivers (technology `SIP`, later `Local`).
 * A driver creates the technology side of each call and reports upward only through the
 * ChannelEvents it is handed; core never imports a driver.
 */
import type { Channel } from '../channels/channel.js';
import type { AudioCodecName } from '../media/media-engine.js';
import type { CallerId } from '../model/snapshots.js';

/** What core asks of the technology side of one channel. */
export interface ChannelTechnology {
  /** Driver-level call identifier shown as `protocol_id` (the SIP Call-ID). */
  readonly protocolId: string;
  /** The media leg carrying this channel's audio, once one exists. */
  readonly mediaLegId: string | undefined;
  /** Inbound: accept the call (SIP 200 OK with the SDP answer). Resolves when the answer is sent. */
  answer(): Promise<void>;
  /** Inbound: tell the caller the call is ringing (SIP 180). */
  indicateRinging(): Promise<void>;
  /** Inbound: open early media without answering (SIP 183 with SDP). */
  indicateProgress(): Promise<void>;
  /**
   * End the call with a Q.850 cause: BYE when answered, a final error response when an inbound
   * call is unanswered, CANCEL when an outbound call is unanswered. Must be safe to call twice.
   */
  hangup(cause: number): Promise<void>;
  /**
   * Optional: send the call to another destination of the same technology (`resource` is the part
   * of the target endpoint after `SIP/`): a 302 for an unanswered inbound call, REFER once answered.
   * The driver reports the end of the call through `hungUp` as usual. Without it the API's redirect
   * answers 501.
   */
  redirect?(resource: string): Promise<void>;
  /**
   * Optional: tell the far end how a transfer it asked for is going (SIP: a NOTIFY with a sipfrag
   * of 100, 200, 503 or 603 on the REFER subscription). Without it the API's transfer_progress
   * answers 501.
   */
  transferProgress?(state: TransferProgressState): Promise<void>;
  /**
   * Optional: send a text message to the far end inside the call (SIP: a MESSAGE in the dialog,
   * RFC 3428 §4); rejects when the far end refuses it. Without it the manager's SendText fails.
   */
  sendText?(text: string): Promise<void>;
  /**
   * Optional: headers added to the request that starts an outbound call (the dialplan's
   * PJSIP_HEADER(add|update|remove), typically from Dial's pre-dial handler `b()`). The driver reads
   * the list when it sends the request; changes after that have no effect. Absent: not supported.
   */
  readonly outgoingHeaders?: OutgoingHeaders;
  /**
   * Optional: the values of a header of the request that started an inbound call (the dialplan's
   * PJSIP_HEADER(read,…)). On the technology, not in a table keyed by channel: a weakly keyed table
   * whose value reaches back to its key (the reader to the call to the channel) is cleared only by
   * a full collection, so every young collection kept every call's objects alive (bench/README.md).
   */
  requestHeaders?(name: string): string[];
}

/** Extra headers for a request not sent yet, in the order they were added. */
export interface OutgoingHeaders {
  readonly list: Array<[name: string, value: string]>;
  /** Whether the request has been sent (then the list no longer matters). */
  readonly sent: boolean;
}

/** Progress of a transfer, as the API's transfer_progress names it. */
export type TransferProgressState = 'channel_progress' | 'channel_answered' | 'channel_unavailable' | 'channel_declined';

/** What a driver reports about a channel it created. */
export interface ChannelTechnologyEvents {
  /** The far end answered an outbound call. */
  answered(): void;
  /** The far end is ringing (outbound). */
  ringing(): void;
  /** Early media started (outbound 183 with SDP). */
  progress?(): void;
  /** The far end put the call on hold (`sendonly`/`inactive`) or resumed it. */
  held?(onHold: boolean): void;
  /** An RFC 4733 or SIP INFO digit arrived. */
  dtmf?(digit: string, durationMs: number): void;
  /** The far end ended the call (BYE, CANCEL, error response) with this Q.850 cause. */
  hungUp(cause: number): void;
  /**
   * The far end asks for a transfer nothing else serves (SIP REFER outside a Dial() connection);
   * core decides (channels/channel-transfer.ts). Absent: refused.
   */
  transferRequested?(request: TransferRequestInfo): TransferDecision;
}

/** A transfer the far end asked for: an extension (blind) or the Call-ID of a dialog to replace. */
export type TransferRequestInfo =
  | { kind: 'blind'; destination: string /** The transferer's dialplan context. */; context: string }
  | { kind: 'attended'; protocolId: string; replaced?: ChannelTechnology };

/**
 * - refused: nobody takes it (SIP 603);
 * - application: the channel's application decides and reports with transferProgress;
 * - started: core carries it out when the driver calls `run` (after telling the far end it is
 *   trying); `afterNotify` runs once the far end was told the outcome.
 */
export type TransferDecision =
  | { kind: 'refused' }
  | { kind: 'application' }
  | { kind: 'started'; run(): Promise<{ ok: boolean; afterNotify?: () => void }> };

/** An inbound call presented by a driver to core. */
export interface InboundCall {
  /** A caller-chosen channel id (Local's `;2` half); generated when absent. */
  id?: string;
  technology: string;
  /** Channel name chosen by the driver: `SIP/<endpoint>-<8 hex digits>`. */
  name: string;
  /** The endpoint (peer) resource the call came from, e.g. `alice`. */
  endpoint: string;
  /** The dialled extension (SIP Request-URI user part). */
  exten: string;
  /** The dialplan context from the endpoint configuration. */
  context: string;
  caller: CallerId;
  language?: string;
  tech: ChannelTechnology;
}

/** What core offers a driver. */
export interface ChannelDriverHost {
  /**
   * Presents an inbound call: core creates the channel, runs the dialplan from `context`/`exten`
   * and returns the callbacks through which the driver reports what the far end does.
   */
  acceptInbound(call: InboundCall): ChannelTechnologyEvents;
  /**
   * Optional: presents a call that takes the place of another (SIP INVITE with Replaces, RFC 3891
   * §3). The channel is created without a dialplan. When the replaced channel is in an
   * application, the new one enters it (AppStart with `replace_channel`) and takes its place in
   * its bridge; `application` then names it. The driver hangs up the replaced channel.
   */
  acceptReplacement?(call: InboundCall, replaced: ChannelTechnology): ReplacementCall;
}

/** What core made of a replacing call. */
export interface ReplacementCall {
  channel: Channel;
  /** The channel replaced, when core knows it. */
  replaced: Channel | undefined;
  /** The application the new channel entered, if the replaced one was in one. */
  application: string | undefined;
  events: ChannelTechnologyEvents;
}

/** An outbound call to prepare: the part of a dial string after the technology. */
export interface OutboundCallRequest {
  /**
   * `alice` (every registered contact of the endpoint), `alice/sip:alice@192.0.2.5:5060` (a given
   * URI through the endpoint), or `trunk/5551234` (a number through a trunk endpoint).
   */
  resource: string;
  caller: CallerId;
  /** Codecs the new channel may use (API `formats`); absent means the endpoint's own list. */
  formats?: AudioCodecName[];
  /** Variables given at creation; drivers read the ones they understand (SIP headers). */
  variables: Record<string, string>;
  /** Caller-chosen id for the second channel of a pair (Local's `;2`), already checked to be free. */
  otherChannelId?: string;
  /**
   * The media leg of the channel this call is made for (Dial()'s caller, originate's `originator`):
   * the driver asks for its own leg on the same media worker (CreateLegRequest.near).
   */
  mediaNear?: string;
}

/** A prepared outbound call: the channel exists (state Down) before it dials. */
export interface OutboundCall {
  /** Channel name chosen by the driver, e.g. `SIP/alice-0000000b`. */
  name: string;
  endpoint: string;
  tech: ChannelTechnology;
  /**
   * Starts ringing the far end; progress is reported through `events`. Rejects when it cannot start.
   * `timeoutSeconds` 0 means no limit; core also hangs up an unanswered call when its limit passes.
   */
  dial(events: ChannelTechnologyEvents, options: { timeoutSeconds: number }): Promise<void>;
}

/** A registered channel driver. */
/** One contact's answer to an on-demand qualify. */
export interface EndpointContactQualify {
  aor: string;
  uri: string;
  status: 'Reachable' | 'Unreachable';
  roundtripUsec?: number;
}

export interface ChannelDriver {
  readonly technology: string;
  /** Other names accepted in dial strings and endpoint paths (`PJSIP` for `SIP`). */
  readonly aliases: readonly string[];
  /** Builds an outbound call for `resource`; throws CoreError not_found for an unknown endpoint. */
  prepareOutbound?(request: OutboundCallRequest): OutboundCall;
  /**
   * Optional: checks every contact of the endpoint now (SIP: an OPTIONS ping to each, whatever its
   * qualify_frequency) and resolves with their answers; changes are reported as usual
   * (ContactStatusChange). Throws CoreError not_found for an unknown endpoint at once (not through
   * the promise), so a caller can answer before the pings end.
   */
  qualify?(endpoint: string): Promise<EndpointContactQualify[]>;
  /** Stops accepting calls and releases sockets. */
  close(): Promise<void>;
}
