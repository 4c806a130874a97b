// Over 500 lines: one RFC 6665 notifier whose subscribe, refresh, expiry and in-order NOTIFYs share one subscription table; the packages' bodies are at its end.
/**
 * The notifier side of SIP-specific event notification (RFC 6665) for three packages:
 *
 *   message-summary  (RFC 3842)  message waiting for the endpoint's `mailboxes=`
 *   dialog           (RFC 4235)  busy lamp of an extension, from its device state
 *   presence         (RFC 3856, PIDF RFC 3863)  the same device state as open/closed + a note
 *
 * The extension a dialog/presence SUBSCRIBE names is looked up as a dialplan hint in the
 * subscriber's `subscribe_context` (else its `context`) first (`exten => 101,hint,SIP/alice&App:desk`): the lamp then shows the
 * combined state of the hint's devices (core's aggregateDeviceStates) and changes with any of
 * them. Without a hint, an endpoint name means `SIP/<name>` and anything else `App:<name>`.
 *
 * A SUBSCRIBE outside any dialog passes the authenticator chain (identify, digest), creates a UAS
 * dialog, gets 200 with the granted Expires, and an immediate NOTIFY with the full state
 * (RFC 6665 §4.2.1.2). Every change of the source sends another NOTIFY. A refreshing SUBSCRIBE in
 * the dialog resets the timer; `Expires: 0` ends it (200, then a final NOTIFY with
 * `Subscription-State: terminated`, §4.2.1.4). At expiry the final NOTIFY says `reason=timeout`;
 * on shutdown `reason=noresource`. A NOTIFY answered 481 or not answered at all ends the
 * subscription (§4.2.2).
 *
 * Phones with `mailboxes=` that did not subscribe also get out-of-dialog NOTIFYs for
 * message-summary ("unsolicited MWI", RFC 3842 §5 as Asterisk sends them), so a phone configured
 * without MWI subscription still lights its lamp: at every registered contact when a mailbox
 * changes, and at a contact that has just registered, with the current counts.
 *
 *   SUBSCRIBE ──200──> active ──refresh──> active
 *                         │ Expires: 0, expiry, 481/timeout to NOTIFY, close()
 *                         v
 *                      terminated (final NOTIFY unless the peer is gone)
 */
import { aggregateDeviceStates, type Clock, type Logger, type SipEndpointConfig } from '@switchboard/core';
import { Dialog } from '../../dialog/dialog.js';
import { createResponse } from '../../message/builders.js';
import { newTag } from '../../message/ids.js';
import type { SipRequest } from '../../message/sip-message.js';
import { SipUri } from '../../message/uri.js';
import type { NonInviteServerTransaction } from '../../transaction/non-invite-server.js';
import type { ServerTransaction } from '../../transaction/transaction-layer.js';
import type { IncomingContext, Transport } from '../../transport/transport.js';
import type { UserAgentCore } from '../../ua/user-agent-core.js';
import { authenticateInbound, type InboundAuthenticator } from '../auth/identify.js';
import { sendOutOfDialog } from '../messaging/out-of-dialog.js';
import type { OutboundTarget } from '../calls/outbound-call.js';
import { dialogChallengeAnswerer, type OutboundCredentials } from '../auth/outbound-auth.js';

export type EventPackage = 'message-summary' | 'dialog' | 'presence';

const CONTENT_TYPES: Record<EventPackage, string> = {
  'message-summary': 'application/simple-message-summary',
  dialog: 'application/dialog-info+xml',
  presence: 'application/pidf+xml',
};

/** RFC 3842 §4 / RFC 4235 §3.3 / RFC 3856 §6.4 suggest 3600 s as the default duration. */
export const DEFAULT_SUBSCRIPTION_EXPIRES = 3600;
/** Below this a SUBSCRIBE gets 423 with Min-Expires (RFC 6665 §4.2.1.1). */
export const MIN_SUBSCRIPTION_EXPIRES = 60;
/** Longer requests are granted this much (the notifier may shorten, RFC 6665 §4.2.1.1). */
export const MAX_SUBSCRIPTION_EXPIRES = 3600;
/** Subscriptions held at once, so that SUBSCRIBE floods cannot exhaust memory. */
export const MAX_SUBSCRIPTIONS = 4096;

export interface MailboxCounts {
  newMessages: number;
  oldMessages: number;
}

/** What the notifier reads; the server adapts core's mailbox and device-state registries. */
export interface PresenceSources {
  mailboxes?: {
    /** undefined for a mailbox that does not exist (it counts as empty). */
    get(name: string): Promise<MailboxCounts | undefined>;
    onMailboxChanged(listener: (name: string) => void): () => void;
  };
  deviceStates?: {
    /** `SIP/bob` or `App:door` → its state name (`NOT_INUSE`, `INUSE`, …); undefined if unknown. */
    get(device: string): Promise<string | undefined>;
    onChange(listener: (device: string, state: string) => void): () => void;
  };
  /** Dialplan hints: the devices of extension `exten` as seen from `context`, if it has a hint. */
  hints?: {
    devicesFor(context: string, exten: string): readonly string[] | undefined;
  };
}

export interface SubscriptionServerOptions {
  ua: UserAgentCore;
  clock: Clock;
  logger: Logger;
  authenticators: readonly InboundAuthenticator[];
  endpoints: ReadonlyMap<string, SipEndpointConfig>;
  sources: PresenceSources;
  /** Every registered and static contact of an endpoint (for unsolicited MWI). */
  contactsOf(endpoint: SipEndpointConfig): Promise<OutboundTarget[]>;
  transportFor(endpoint: SipEndpointConfig, uri: SipUri): Transport | undefined;
  userAgent: string;
  /** Answers a challenged unsolicited NOTIFY (the endpoint's `outbound_auth`). */
  credentialsFor?(endpoint: SipEndpointConfig): OutboundCredentials | undefined;
}

interface Subscription {
  id: string;
  event: EventPackage;
  /** The `id` parameter of the Event header, echoed in NOTIFYs (RFC 6665 §8.2.1). */
  eventId: string | undefined;
  dialog: Dialog;
  endpoint: SipEndpointConfig;
  /** message-summary: the mailboxes; dialog/presence: the device, or a hint's devices joined by `&`. */
  resource: string;
  /** dialog/presence: the devices whose combined state the NOTIFYs carry. */
  devices: readonly string[];
  entity: string;
  expiresAt: number;
  timer: unknown;
  /** RFC 4235 §4.1: the version grows by one for each NOTIFY of this subscription. */
  version: number;
  /** NOTIFYs go one at a time, in order. */
  chain: Promise<void>;
  terminated: boolean;
}

export class SubscriptionServer {
  readonly #options: SubscriptionServerOptions;
  readonly #log: Logger;
  readonly #subscriptions = new Map<string, Subscription>();
  readonly #unsubscribe: Array<() => void> = [];
  #closed = false;

  constructor(options: SubscriptionServerOptions) {
    this.#options = options;
    this.#log = options.logger;
    const { mailboxes, deviceStates } = options.sources;
    if (mailboxes !== undefined) this.#unsubscribe.push(mailboxes.onMailboxChanged((name) => this.#mailboxChanged(name)));
    if (deviceStates !== undefined) this.#unsubscribe.push(deviceStates.onChange((device) => this.#deviceChanged(device)));
  }

  /** Event packages we can serve, for Allow-Events (RFC 6665 §8.2.2). */
  get allowEvents(): EventPackage[] {
    const events: EventPackage[] = [];
    if (this.#options.sources.mailboxes !== undefined) events.push('message-summary');
    if (this.#options.sources.deviceStates !== undefined) events.push('dialog', 'presence');
    return events;
  }

  get size(): number {
    return this.#subscriptions.size;
  }

  /** An out-of-dialog SUBSCRIBE (the UA core's delegate hands it here). */
  handleSubscribe(request: SipRequest, context: IncomingContext, transaction: ServerTransaction): void {
    this.#subscribe(request, context, transaction).catch((err: unknown) => {
      this.#log.error({ err, callId: request.callId }, 'SUBSCRIBE handling failed');
      this.#respond(transaction, request, 500, { toTag: newTag() });
    });
  }

  /** Ends every subscription with a final NOTIFY (reason=noresource) and stops listening. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const stop of this.#unsubscribe) stop();
    await Promise.allSettled([...this.#subscriptions.values()].map((s) => this.#terminate(s, 'noresource', true)));
  }

  async #subscribe(request: SipRequest, context: IncomingContext, transaction: ServerTransaction): Promise<void> {
    if (this.#closed) {
      this.#respond(transaction, request, 503, { toTag: newTag() });
      return;
    }
    const event = this.#eventOf(request);
    if (event === undefined) {
      // RFC 6665 §4.2.1.1: an event package we do not serve gets 489 with what we do.
      this.#respond(transaction, request, 489, { toTag: newTag(), headers: [['Allow-Events', this.allowEvents.join(', ')]] });
      return;
    }
    const auth = await authenticateInbound(this.#options.authenticators, request, context.source);
    if (auth.kind === 'reject') {
      this.#respond(transaction, request, auth.status, { toTag: newTag(), headers: auth.headers ?? [], reason: auth.reason });
      return;
    }
    const endpoint = auth.endpoint;
    const accept = request.getHeaderList('Accept').map((a) => a.split(';')[0]?.trim().toLowerCase());
    if (accept.length > 0 && !accept.includes(CONTENT_TYPES[event.name]) && !accept.includes('*/*')) {
      this.#respond(transaction, request, 406, { toTag: newTag(), headers: [['Accept', CONTENT_TYPES[event.name]]] });
      return;
    }
    const expires = this.#requestedExpires(request);
    if (expires === undefined) {
      this.#respond(transaction, request, 400, { toTag: newTag(), reason: 'Bad Expires' });
      return;
    }
    if (expires > 0 && expires < MIN_SUBSCRIPTION_EXPIRES) {
      this.#respond(transaction, request, 423, { toTag: newTag(), headers: [['Min-Expires', String(MIN_SUBSCRIPTION_EXPIRES)]] });
      return;
    }
    const contact = request.contacts[0];
    if (contact === undefined || contact.uri.kind !== 'sip') {
      // RFC 6665 §3.1.1: a SUBSCRIBE carries a Contact, which becomes the remote target.
      this.#respond(transaction, request, 400, { toTag: newTag(), reason: 'Missing Contact' });
      return;
    }

    const target = request.uri;
    const user = target.kind === 'sip' ? (target.user ?? '') : '';
    let resource: string;
    let devices: readonly string[] = [];
    if (event.name === 'message-summary') {
      if (endpoint.mailboxes.length === 0) {
        this.#respond(transaction, request, 404, { toTag: newTag(), reason: 'No Mailbox' });
        return;
      }
      resource = endpoint.mailboxes.join(',');
    } else {
      const found = await this.#devicesFor(endpoint, user);
      if (found === undefined) {
        this.#respond(transaction, request, 404, { toTag: newTag() });
        return;
      }
      devices = found;
      resource = found.join('&');
    }
    if (this.#subscriptions.size >= MAX_SUBSCRIPTIONS) {
      this.#respond(transaction, request, 503, { toTag: newTag(), headers: [['Retry-After', '60']] });
      return;
    }

    const localTag = newTag();
    const localUri = request.to.clone();
    localUri.tag = undefined;
    const remoteUri = request.from.clone();
    remoteUri.tag = undefined;
    const localHost = await context.transport.advertisedHost(context.source.address);
    const dialog = new Dialog(
      {
        callId: request.callId,
        localTag,
        remoteTag: request.from.tag ?? '',
        localUri,
        remoteUri,
        remoteTarget: contact.uri,
        routeSet: request.recordRoutes,
        remoteSeq: request.cseq.seq,
        transport: context.transport,
        localHost,
        localPort: context.transport.localPort,
      },
      this.#options.ua.services,
    );
    if (endpoint.forceRport || endpoint.rewriteContact) {
      // Behind NAT the Contact is unreachable; NOTIFYs follow the flow the SUBSCRIBE came on.
      dialog.flowTarget = new SipUri({ host: context.source.address, port: context.source.port });
    }
    dialog.confirm();
    const credentials = this.#options.credentialsFor?.(endpoint);
    // NOTIFYs to a phone that challenges them answer with its `outbound_auth`.
    if (credentials !== undefined) dialog.challengeAnswerer = dialogChallengeAnswerer(credentials);
    const entityHost = target.kind === 'sip' ? target.host : localHost;
    const subscription: Subscription = {
      id: dialog.id,
      event: event.name,
      eventId: event.id,
      dialog,
      endpoint,
      resource,
      devices,
      entity: `sip:${user === '' ? endpoint.name : user}@${entityHost.includes(':') ? `[${entityHost}]` : entityHost}`,
      expiresAt: 0,
      timer: undefined,
      version: 0,
      chain: Promise.resolve(),
      terminated: false,
    };
    dialog.delegate = {
      onRequest: (inDialog, nist) => {
        if (inDialog.method !== 'SUBSCRIBE') return false;
        this.#refresh(subscription, inDialog, nist);
        return true;
      },
    };
    this.#options.ua.services.addDialog(dialog);
    this.#subscriptions.set(subscription.id, subscription);
    this.#respond(transaction, request, 200, {
      toTag: localTag,
      headers: [
        ['Expires', String(Math.min(expires, MAX_SUBSCRIPTION_EXPIRES))],
        ['Contact', dialog.localContact],
      ],
    });
    this.#log.info({ endpoint: endpoint.name, event: event.name, resource, expires }, 'subscription created');
    if (expires === 0) {
      // A fetch (RFC 6665 §4.4.3): one NOTIFY with the state, and the subscription is over.
      void this.#terminate(subscription, 'timeout', true);
      return;
    }
    this.#arm(subscription, Math.min(expires, MAX_SUBSCRIPTION_EXPIRES));
    this.#notify(subscription);
  }

  #refresh(subscription: Subscription, request: SipRequest, transaction: NonInviteServerTransaction): void {
    const event = this.#eventOf(request);
    if (event === undefined || event.name !== subscription.event || subscription.terminated) {
      this.#respond(transaction, request, subscription.terminated ? 481 : 489, {
        headers: [['Allow-Events', this.allowEvents.join(', ')]],
      });
      return;
    }
    const expires = this.#requestedExpires(request);
    if (expires === undefined) {
      this.#respond(transaction, request, 400, { reason: 'Bad Expires' });
      return;
    }
    if (expires > 0 && expires < MIN_SUBSCRIPTION_EXPIRES) {
      this.#respond(transaction, request, 423, { headers: [['Min-Expires', String(MIN_SUBSCRIPTION_EXPIRES)]] });
      return;
    }
    const granted = Math.min(expires, MAX_SUBSCRIPTION_EXPIRES);
    this.#respond(transaction, request, 200, { headers: [['Expires', String(granted)]] });
    if (granted === 0) {
      void this.#terminate(subscription, 'timeout', true);
      return;
    }
    this.#arm(subscription, granted);
    // RFC 6665 §4.2.1.2: a refresh is answered with a NOTIFY too.
    this.#notify(subscription);
  }

  #arm(subscription: Subscription, seconds: number): void {
    const clock = this.#options.clock;
    clock.clearTimeout(subscription.timer);
    subscription.expiresAt = clock.now() + seconds * 1000;
    subscription.timer = clock.setTimeout(() => {
      this.#log.debug({ subscription: subscription.id }, 'subscription expired');
      void this.#terminate(subscription, 'timeout', true);
    }, seconds * 1000);
  }

  /** Queues a NOTIFY with the current state (active) behind any NOTIFY still in flight. */
  #notify(subscription: Subscription): void {
    subscription.chain = subscription.chain.then(() => this.#sendNotify(subscription, undefined));
  }

  async #terminate(subscription: Subscription, reason: 'timeout' | 'noresource' | 'deactivated', notify: boolean): Promise<void> {
    if (subscription.terminated) return;
    subscription.terminated = true;
    this.#options.clock.clearTimeout(subscription.timer);
    this.#subscriptions.delete(subscription.id);
    if (notify) {
      subscription.chain = subscription.chain.then(() => this.#sendNotify(subscription, reason));
      await subscription.chain;
    }
    subscription.dialog.terminate();
  }

  async #sendNotify(subscription: Subscription, terminatedReason: string | undefined): Promise<void> {
    if (subscription.dialog.state === 'terminated') return;
    if (subscription.terminated && terminatedReason === undefined) return;
    let body: string;
    try {
      body = await this.#body(subscription);
    } catch (err) {
      this.#log.warn({ err, subscription: subscription.id }, 'state for NOTIFY could not be read');
      return;
    }
    const remaining = Math.max(0, Math.ceil((subscription.expiresAt - this.#options.clock.now()) / 1000));
    const state = terminatedReason === undefined ? `active;expires=${remaining}` : `terminated;reason=${terminatedReason}`;
    const eventHeader = subscription.eventId === undefined ? subscription.event : `${subscription.event};id=${subscription.eventId}`;
    const outcome = await subscription.dialog.sendRequest('NOTIFY', {
      headers: [
        ['Event', eventHeader],
        ['Subscription-State', state],
      ],
      body: Buffer.from(body, 'utf8'),
      contentType: CONTENT_TYPES[subscription.event],
    });
    if (terminatedReason !== undefined) return;
    const failed =
      outcome.kind !== 'response' || outcome.response.status === 481 || outcome.response.status === 408 || outcome.response.status >= 500;
    if (failed) {
      // RFC 6665 §4.2.2: a NOTIFY answered 481 (or never) means the subscriber is gone.
      this.#log.info({ subscription: subscription.id, outcome: outcome.kind }, 'subscriber gone; subscription ended');
      void this.#terminate(subscription, 'deactivated', false);
    }
  }

  async #body(subscription: Subscription): Promise<string> {
    switch (subscription.event) {
      case 'message-summary':
        return messageSummaryBody(await this.#counts(subscription.resource.split(',')), subscription.entity);
      case 'dialog': {
        subscription.version++;
        const state = await this.#deviceState(subscription.devices);
        return dialogInfoBody(subscription.entity, subscription.version - 1, state, subscription.resource);
      }
      case 'presence': {
        const state = await this.#deviceState(subscription.devices);
        return pidfBody(subscription.entity, state, subscription.resource);
      }
    }
  }

  /** One device's state, or the combined state of a hint's devices (unknown ones count as UNKNOWN). */
  async #deviceState(devices: readonly string[]): Promise<string> {
    const source = this.#options.sources.deviceStates;
    const states = await Promise.all(devices.map(async (device) => (await source?.get(device)) ?? 'UNKNOWN'));
    return states.length === 1 ? (states[0] as string) : aggregateDeviceStates(states);
  }

  async #counts(mailboxes: readonly string[]): Promise<MailboxCounts> {
    const source = this.#options.sources.mailboxes;
    const total: MailboxCounts = { newMessages: 0, oldMessages: 0 };
    if (source === undefined) return total;
    for (const name of mailboxes) {
      const counts = await source.get(name);
      total.newMessages += counts?.newMessages ?? 0;
      total.oldMessages += counts?.oldMessages ?? 0;
    }
    return total;
  }

  #mailboxChanged(name: string): void {
    if (this.#closed) return;
    const subscribed = new Set<string>();
    for (const subscription of this.#subscriptions.values()) {
      if (subscription.event !== 'message-summary' || !subscription.resource.split(',').includes(name)) continue;
      subscribed.add(subscription.endpoint.name);
      this.#notify(subscription);
    }
    for (const endpoint of this.#options.endpoints.values()) {
      if (!endpoint.mailboxes.includes(name) || subscribed.has(endpoint.name)) continue;
      this.#unsolicited(endpoint).catch((err: unknown) => this.#log.warn({ err, endpoint: endpoint.name }, 'unsolicited MWI failed'));
    }
  }

  /**
   * A phone registered a new contact: if its endpoint has `mailboxes=` and no message-summary
   * subscription, that contact gets the current counts at once (unsolicited MWI).
   */
  contactAdded(endpointName: string, uri: string): void {
    const endpoint = this.#options.endpoints.get(endpointName);
    if (this.#closed || endpoint === undefined || endpoint.mailboxes.length === 0 || this.#options.sources.mailboxes === undefined) return;
    for (const subscription of this.#subscriptions.values()) {
      if (subscription.event === 'message-summary' && subscription.endpoint.name === endpoint.name) return;
    }
    this.#unsolicited(endpoint, uri).catch((err: unknown) => this.#log.warn({ err, endpoint: endpoint.name }, 'unsolicited MWI failed'));
  }

  /** An out-of-dialog NOTIFY to every contact of an endpoint that did not subscribe (or to one). */
  async #unsolicited(endpoint: SipEndpointConfig, onlyUri?: string): Promise<void> {
    const all = await this.#options.contactsOf(endpoint);
    const chosen = onlyUri === undefined ? all : all.filter((target) => target.requestUri.toString() === onlyUri);
    // A contact written differently from how the registrar lists it: every contact hears it.
    const targets = chosen.length > 0 ? chosen : all;
    if (targets.length === 0) return;
    const counts = await this.#counts(endpoint.mailboxes);
    await Promise.all(
      targets.map(async (target) => {
        const transport = target.transport ?? this.#options.transportFor(endpoint, target.requestUri);
        if (transport === undefined) return;
        const account = (target.toUri ?? target.requestUri).clone();
        account.params.clear();
        await sendOutOfDialog(this.#options.ua, {
          method: 'NOTIFY',
          target,
          transport,
          fromUser: endpoint.name,
          headers: [
            ['Event', 'message-summary'],
            ['Subscription-State', 'active'],
          ],
          body: Buffer.from(messageSummaryBody(counts, account.toString()), 'utf8'),
          contentType: CONTENT_TYPES['message-summary'],
          userAgent: this.#options.userAgent,
          credentials: this.#options.credentialsFor?.(endpoint),
        });
      }),
    );
  }

  #deviceChanged(device: string): void {
    if (this.#closed) return;
    for (const subscription of this.#subscriptions.values()) {
      if (subscription.event !== 'message-summary' && subscription.devices.includes(device)) this.#notify(subscription);
    }
  }

  /**
   * The devices a dialog/presence subscription watches: the hint's for the extension in the
   * subscriber's context (`PJSIP/x` read as `SIP/x`), else `SIP/<user>` for an endpoint, else
   * `App:<user>` if such a device exists.
   */
  async #devicesFor(endpoint: SipEndpointConfig, user: string): Promise<readonly string[] | undefined> {
    if (user === '' || !/^[A-Za-z0-9._~+*#-]{1,64}$/.test(user)) return undefined;
    const hint = this.#options.sources.hints?.devicesFor(endpoint.subscribeContext ?? endpoint.context, user);
    if (hint !== undefined && hint.length > 0) return hint.map((device) => device.replace(/^PJSIP\//i, 'SIP/'));
    if (!/^[A-Za-z0-9._~+-]{1,64}$/.test(user)) return undefined;
    if (this.#options.endpoints.has(user)) return [`SIP/${user}`];
    const app = `App:${user}`;
    return (await this.#options.sources.deviceStates?.get(app)) === undefined ? undefined : [app];
  }

  #eventOf(request: SipRequest): { name: EventPackage; id: string | undefined } | undefined {
    const value = request.getHeader('Event');
    if (value === undefined) return undefined;
    const [name, ...params] = value.split(';').map((part) => part.trim());
    const lower = name?.toLowerCase();
    if (lower === undefined || !(this.allowEvents as string[]).includes(lower)) return undefined;
    const idParam = params.find((p) => p.toLowerCase().startsWith('id='));
    const id = idParam?.slice(3);
    return { name: lower as EventPackage, id: id !== undefined && /^[A-Za-z0-9._~+-]{1,64}$/.test(id) ? id : undefined };
  }

  /** The Expires asked for: the header, else the package default; undefined when malformed. */
  #requestedExpires(request: SipRequest): number | undefined {
    const value = request.getHeader('Expires');
    if (value === undefined) return DEFAULT_SUBSCRIPTION_EXPIRES;
    const trimmed = value.trim();
    if (!/^\d{1,10}$/.test(trimmed)) return undefined;
    return Number(trimmed);
  }

  #respond(
    transaction: ServerTransaction,
    request: SipRequest,
    status: number,
    options: { toTag?: string; reason?: string | undefined; headers?: ReadonlyArray<readonly [string, string]> } = {},
  ): void {
    transaction.respond(
      createResponse(request, status, {
        ...(options.toTag !== undefined ? { toTag: options.toTag } : {}),
        ...(options.reason !== undefined ? { reason: options.reason } : {}),
        headers: [...(options.headers ?? []), ['Server', this.#options.userAgent]],
      }),
    );
  }
}

/** RFC 3842 §5.2: the simple-message-summary body. Urgent counts are not tracked (0/0). */
export function messageSummaryBody(counts: MailboxCounts, account: string): string {
  return [
    `Messages-Waiting: ${counts.newMessages > 0 ? 'yes' : 'no'}`,
    `Message-Account: ${account}`,
    `Voice-Message: ${counts.newMessages}/${counts.oldMessages} (0/0)`,
    '',
  ].join('\r\n');
}

/** RFC 4235 §4: the dialog state of a device, as one dialog element (none when idle). */
export function dialogInfoBody(entity: string, version: number, deviceState: string, device: string): string {
  const dialogState =
    deviceState === 'RINGING' || deviceState === 'RINGINUSE'
      ? 'early'
      : deviceState === 'INUSE' || deviceState === 'BUSY' || deviceState === 'ONHOLD'
        ? 'confirmed'
        : undefined;
  const id = xmlEscape(device.replace(/[^A-Za-z0-9]/g, '-'));
  const dialog =
    dialogState === undefined
      ? ''
      : `  <dialog id="${id}" direction="${dialogState === 'early' ? 'recipient' : 'initiator'}">\r\n    <state>${dialogState}</state>\r\n  </dialog>\r\n`;
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\r\n' +
    `<dialog-info xmlns="urn:ietf:params:xml:ns:dialog-info" version="${version}" state="full" entity="${xmlEscape(entity)}">\r\n` +
    dialog +
    '</dialog-info>\r\n'
  );
}

const PRESENCE_NOTES: Record<string, string> = {
  NOT_INUSE: 'Ready',
  INUSE: 'On the phone',
  BUSY: 'On the phone',
  RINGING: 'Ringing',
  RINGINUSE: 'Ringing',
  ONHOLD: 'On hold',
  UNAVAILABLE: 'Unavailable',
  INVALID: 'Unavailable',
  UNKNOWN: 'Unknown',
};

/** RFC 3863 §4: one tuple, `open` unless the device is unavailable. */
export function pidfBody(entity: string, deviceState: string, device: string): string {
  const basic = deviceState === 'UNAVAILABLE' || deviceState === 'INVALID' || deviceState === 'UNKNOWN' ? 'closed' : 'open';
  return (
    '<?xml version="1.0" encoding="UTF-8"?>\r\n' +
    `<presence xmlns="urn:ietf:params:xml:ns:pidf" entity="${xmlEscape(entity)}">\r\n` +
    `  <tuple id="${xmlEscape(device.replace(/[^A-Za-z0-9]/g, '-'))}">\r\n` +
    `    <status><basic>${basic}</basic></status>\r\n` +
    `    <note>${PRESENCE_NOTES[deviceState] ?? 'Unknown'}</note>\r\n` +
    '  </tuple>\r\n' +
    '</presence>\r\n'
  );
}

function xmlEscape(text: string): string {
  return text.replace(/[<>&"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
