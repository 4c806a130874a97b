// Over 500 lines: the one entry that wires transports, registration, auth, calls, messaging and events together; each of those lives in its own folder.
/**
 * The SIP channel driver (technology `SIP`, alias `PJSIP`): binds the configured UDP transports,
 * assembles the stack (transport → transaction layer → UA core), turns each inbound INVITE into an
 * InboundCall presented to core, answers REGISTER through the registrar, and builds outbound calls
 * for dial strings (`prepareOutbound`).
 */
import { type DtlsIdentity, DtlsIdentities, ephemeralDtlsIdentity } from './sdp/dtls-certificates.js';
import {
  type ChannelDriver,
  type EndpointContactQualify,
  type ChannelDriverHost,
  type Clock,
  CoreError,
  type Logger,
  type OutboundCall,
  type OutboundCallRequest,
  type SipAuthConfig,
  type SipConfig,
  type SipEndpointConfig,
  type SipGlobalConfig,
  type SipTransportConfig,
  defaultSipGlobal,
  silentLogger,
  sampleMessages,
  systemClock,
} from '@switchboard/core';
import { SipParseError } from '../errors.js';
import { parseUri, SipUri } from '../message/uri.js';
import type { IncomingInvite } from '../dialog/incoming-invite.js';
import { TransactionLayer } from '../transaction/transaction-layer.js';
import type { OverloadLimits } from '../transaction/overload-control.js';
import type { StreamConnectionLimits } from '../transport/connection-guard.js';
import { StreamTransport } from '../transport/stream-transport.js';
import type { IncomingContext, Transport, TransportProtocol } from '../transport/transport.js';
import { WsTransport } from '../transport/ws-transport.js';
import { UdpTransport } from '../transport/udp-transport.js';
import { UserAgentCore } from '../ua/user-agent-core.js';
import { ChannelNamer } from './channel-names.js';
import type { DigestAlgorithm } from './auth/digest.js';
import { DigestAuthenticator, type DigestAuthenticatorOptions } from './auth/digest-auth.js';
import { authenticateInbound, type InboundAuthenticator } from './auth/identify.js';
import { EndpointIdentifier, REQUEST_REFUSED } from './auth/endpoint-identifier.js';
import { LiveSipConfig } from './auth/live-config.js';
import { mediaTransportConfig } from './sdp/nat-media.js';
import { SipReferSender } from './messaging/out-of-dialog-refer.js';
import { InboundCall, type SipMediaEngine } from './calls/inbound-call.js';
import { OutboundSipCall, type OutboundTarget } from './calls/outbound-call.js';
import { type ReplacesTarget, replacesMatches } from './calls/replaces.js';
import { RTP_TIMEOUT_MESSAGE } from './calls/rtp-timeout.js';
import type { OutboundCredentials } from './auth/outbound-auth.js';
import { OutboundRegistration } from './registration/outbound-registration.js';
import { IdentifyByLine } from './auth/line-identify.js';
import { type EndpointStatusListener, InMemoryContactStore, Registrar, type RegistrarContactStore } from './registration/registrar.js';
import { type InboundTextMessageSink, SipMessaging } from './messaging/text-messages.js';
import { Qualifier, type QualifyListener } from './registration/qualify.js';
import { type PresenceSources, SubscriptionServer } from './events/subscriptions.js';

export interface SipDriverOptions {
  config: SipConfig;
  host: ChannelDriverHost;
  /** The engine (a full MediaEngine will do): the driver creates, points and destroys legs, and arms their RTP timeouts. */
  media: SipMediaEngine;
  logger?: Logger;
  clock?: Clock;
  /** Server/User-Agent header value. */
  userAgent?: string;
  /** Authenticators tried before the endpoint identifiers of `endpoint_identifier_order`. */
  authenticators?: readonly InboundAuthenticator[];
  /** How long close() waits for the BYEs it sends to be answered. */
  closeTimeoutMs?: number;
  /**
   * Where registrations are kept. The server passes core's `store.contacts` so they survive a
   * restart; without one they live in memory.
   */
  contactStore?: RegistrarContactStore;
  /** Told when contacts come and go and endpoints go online/offline. */
  endpointStatus?: EndpointStatusListener;
  /**
   * Credentials for requests to an endpoint that challenges them (a trunk answering 401/407);
   * without it the endpoint's `outbound_auth` section answers.
   */
  outboundAuth?: (endpoint: SipEndpointConfig) => { username: string; password: string } | undefined;
  /**
   * Told when a qualified contact (AOR `qualify_frequency` > 0) becomes reachable or unreachable,
   * and when the endpoint's peer status follows.
   */
  qualify?: QualifyListener;
  /**
   * Mailboxes (message-summary NOTIFYs for endpoints with `mailboxes=`) and device states (dialog
   * and presence subscriptions); without them SUBSCRIBE for those packages gets 489.
   */
  presence?: PresenceSources;
  /** Where inbound MESSAGEs from our endpoints go (core's `textMessages.received` for `SIP`). */
  textMessages?: InboundTextMessageSink;
  /** When new calls are refused with 503 (loop lag, calls in setup); see overload-control.ts. */
  overload?: Partial<OverloadLimits>;
  /**
   * The certificate DTLS-SRTP calls present unless their endpoint names its own (`dtls_cert_file`);
   * the server keeps one in its data directory (loadOrCreateDtlsIdentity). Without it, start()
   * makes one for the driver's lifetime.
   */
  dtlsCertificate?: DtlsIdentity;
  /** Digest settings (realm, nonce lifetime, failure limits) for endpoints with `auth=`. */
  digest?: Omit<DigestAuthenticatorOptions, 'endpoints' | 'auths' | 'clock' | 'logger'>;
}

/**
 * Log messages about what remote peers send, written sampled (see sampleMessages). A failed
 * authentication is not among them: the security log needs every one (fail2ban counts them per
 * address), and their number is already bounded by the failure limiter — a few per address before
 * it is refused for a cool-off, and a global limit past which only known addresses may try.
 */
const REMOTE_INPUT_MESSAGES = ['inbound call refused', 'offer refused', 'request from a blocked address refused', RTP_TIMEOUT_MESSAGE];

export interface ListeningAddress {
  transport: string;
  protocol: TransportProtocol;
  address: string;
  port: number;
}

export class SipDriver implements ChannelDriver {
  readonly technology = 'SIP';
  readonly aliases: readonly string[] = ['PJSIP'];
  readonly #options: SipDriverOptions;
  #dtlsIdentity: DtlsIdentity | undefined;
  readonly #dtlsCertificates = new DtlsIdentities(() => this.#dtlsIdentity);
  readonly #log: Logger;
  readonly #clock: Clock;
  readonly #transactions: TransactionLayer;
  readonly #ua: UserAgentCore;
  readonly #transports: Array<UdpTransport | StreamTransport | WsTransport> = [];
  readonly #transportConfigs = new Map<Transport, SipTransportConfig>();
  readonly #calls = new Set<InboundCall>();
  readonly #outbound = new Set<OutboundSipCall>();
  readonly #registrar: Registrar;
  readonly #endpoints: ReadonlyMap<string, SipEndpointConfig>;
  readonly #live: LiveSipConfig;
  readonly #authenticators: readonly InboundAuthenticator[];
  readonly #namer = new ChannelNamer();
  readonly #messaging: SipMessaging;
  readonly #referSender: SipReferSender;
  readonly #subscriptions: SubscriptionServer;
  #qualifier: Qualifier | undefined;
  /** pjsip.conf `type=registration`: our registrations to providers. */
  readonly #registrations: OutboundRegistration[] = [];
  /** Requests to a registration's `line` Contact belong to its endpoint. */
  readonly #lines: IdentifyByLine;
  readonly #userAgent: string;
  #started = false;
  #closing = false;
  /** Ends the subscription to the engine's notifications (close). */
  readonly #stopMediaNotifications: () => void;

  constructor(options: SipDriverOptions) {
    this.#options = options;
    this.#dtlsIdentity = options.dtlsCertificate;
    // pjsip.conf `[global] user_agent` wins over the server's default.
    this.#userAgent = options.config.global?.userAgent ?? options.userAgent ?? 'Switchboard';
    const log = options.logger ?? silentLogger;
    // Lines logged per request from anyone (a refused call) are sampled: a flood stays a few lines.
    this.#log = sampleMessages(log.child({ module: 'switchboard:signalling:driver' }), systemClock, REMOTE_INPUT_MESSAGES);
    this.#clock = options.clock ?? systemClock;
    // A call whose phone went quiet for its endpoint's rtp_timeout ends (calls/rtp-timeout.ts).
    this.#stopMediaNotifications =
      options.media.onNotification?.((notification) => {
        if (notification.type === 'legRtpTimeout') this.#callOfLeg(notification.legId)?.rtpTimedOut(notification.seconds);
      }) ?? (() => {});
    this.#transactions = new TransactionLayer({
      clock: this.#clock,
      ...(options.config.global?.maxForwards !== undefined ? { maxForwards: options.config.global.maxForwards } : {}),
      logger: log.child({ module: 'switchboard:signalling:transaction' }),
      // On the real clock only: tests on a fake clock expect retransmissions when they advance it.
      ...(options.clock === undefined ? { afterPendingIo: (fn: () => void) => setImmediate(fn), measureLoopLag: true } : {}),
      overload: { ...overloadLimitsOf(options.config.global), ...options.overload },
    });
    this.#ua = new UserAgentCore({
      transactions: this.#transactions,
      clock: this.#clock,
      logger: log.child({ module: 'switchboard:signalling:dialog' }),
      userAgent: this.#userAgent,
      allow: ['INVITE', 'ACK', 'CANCEL', 'BYE', 'OPTIONS', 'REGISTER', 'INFO', 'MESSAGE', 'SUBSCRIBE', 'NOTIFY', 'REFER', 'UPDATE'],
      // RFC 4028: session timers are served for the calls we answer (driver/session-timer.ts);
      // RFC 3891: an INVITE may replace one of our dialogs (driver/replaces.ts).
      supported: ['timer', 'replaces'],
    });
    this.#ua.delegate = {
      onInvite: (invite, context) => this.#receiveInvite(invite, context),
      onRequest: (request, context, transaction) => {
        if (this.#closing) return false;
        switch (request.method) {
          case 'REGISTER':
            this.#registrar.handleRegister(request, context, transaction);
            return true;
          case 'MESSAGE':
            this.#messaging.handleMessage(request, context, transaction);
            return true;
          case 'SUBSCRIBE':
            this.#subscriptions.handleSubscribe(request, context, transaction);
            return true;
          default:
            return false;
        }
      },
    };
    // The objects in force: pjsip.conf and dynamic configuration, replaced by applyConfig().
    const live = new LiveSipConfig(options.config);
    this.#live = live;
    const config = live.config;
    this.#endpoints = live.endpoints;
    const global = config.global ?? defaultSipGlobal();
    const digest = new DigestAuthenticator({
      algorithms: challengeAlgorithms(config.auths),
      ...(global.defaultRealm !== undefined ? { realm: global.defaultRealm } : {}),
      ...options.digest,
      limits: { ...config.global?.authLimits, ...options.digest?.limits },
      endpoints: config.endpoints,
      auths: config.auths,
      clock: this.#clock,
      logger: sampleMessages(log.child({ module: 'switchboard:signalling:auth' }), systemClock, REMOTE_INPUT_MESSAGES),
    });
    this.#lines = new IdentifyByLine(config.registrations ?? [], this.#endpoints);
    // Identification in `endpoint_identifier_order`, then the identified endpoint's digest
    // (endpoint-identifier.ts); rebuilt when the objects in force change. While no endpoint has an
    // auth nothing is challenged (unknown callers then get 403).
    const identifierLog = sampleMessages(log.child({ module: 'switchboard:signalling:identify' }), systemClock, [REQUEST_REFUSED]);
    const identifierFor = (objects: SipConfig) =>
      new EndpointIdentifier({
        order: global.endpointIdentifierOrder,
        identifies: objects.identifies,
        endpoints: objects.endpoints,
        ...(digest.hasCredentials ? { digest } : {}),
        log: identifierLog,
      });
    let identifier = identifierFor(config);
    live.onChange((next) => {
      digest.reindex(next.endpoints, next.auths);
      identifier = identifierFor(next);
    });
    this.#authenticators = [
      this.#lines,
      ...(options.authenticators ?? []),
      { authenticate: (request, source) => identifier.authenticate(request, source) },
    ];
    this.#registrar = new Registrar({
      config,
      store: options.contactStore ?? new InMemoryContactStore(),
      clock: this.#clock,
      logger: log.child({ module: 'switchboard:signalling:registrar' }),
      authenticators: this.#authenticators,
      userAgent: this.#userAgent,
      listener: {
        contactChanged: (change) => {
          // A new binding is pinged at once; a removed one is forgotten so it reports afresh.
          if (change.kind === 'created') this.#qualifier?.qualifyAor(change.aor);
          else if (change.kind === 'removed' || change.kind === 'expired') this.#qualifier?.forgetContact(change.aor, change.uri);
          // A phone that just registered hears its mailboxes' state (unsolicited MWI).
          if (change.kind === 'created' && change.endpoint !== undefined) this.#subscriptions.contactAdded(change.endpoint, change.uri);
          options.endpointStatus?.contactChanged?.(change);
        },
        endpointStateChanged: (endpoint, state) => options.endpointStatus?.endpointStateChanged?.(endpoint, state),
      },
    });
    live.onChange((next) => this.#registrar.reloadObjects(next));
    this.#messaging = new SipMessaging({
      ua: this.#ua,
      authenticators: this.#authenticators,
      endpoints: this.#endpoints,
      contactsOf: (endpoint) => this.#contactTargets(endpoint),
      transportFor: (endpoint, uri) => (endpoint === undefined ? this.#transports[0] : this.#transportFor(endpoint, uri)),
      sink: options.textMessages,
      credentialsFor: (endpoint) => this.#outboundCredentials(endpoint),
      userAgent: this.#userAgent,
      logger: log.child({ module: 'switchboard:signalling:message' }),
    });
    this.#referSender = new SipReferSender({
      ua: this.#ua,
      endpoints: this.#endpoints,
      contactsOf: (endpoint) => this.#contactTargets(endpoint),
      transportFor: (endpoint, uri) => (endpoint === undefined ? this.#transports[0] : this.#transportFor(endpoint, uri)),
      credentialsFor: (endpoint) => this.#outboundCredentials(endpoint),
      userAgent: options.userAgent ?? 'Switchboard',
      logger: log.child({ module: 'switchboard:signalling:refer' }),
    });
    this.#subscriptions = new SubscriptionServer({
      ua: this.#ua,
      clock: this.#clock,
      logger: log.child({ module: 'switchboard:signalling:subscriptions' }),
      authenticators: this.#authenticators,
      endpoints: this.#endpoints,
      sources: options.presence ?? {},
      contactsOf: (endpoint) => this.#contactTargets(endpoint),
      transportFor: (endpoint, uri) => this.#transportFor(endpoint, uri),
      userAgent: this.#userAgent,
      credentialsFor: (endpoint) => this.#outboundCredentials(endpoint),
    });
  }

  /**
   * What answers the challenges of requests to an endpoint: the server's mapping if it gave one,
   * else the endpoint's `outbound_auth` section.
   */
  #outboundCredentials(endpoint: SipEndpointConfig): OutboundCredentials | undefined {
    const mapped = this.#options.outboundAuth?.(endpoint);
    if (mapped !== undefined) return mapped;
    const name = endpoint.outboundAuth;
    const auth = name === undefined ? undefined : this.#live.config.auths.find((a) => a.name === name);
    return auth === undefined ? undefined : { username: auth.username, password: auth.password };
  }

  /**
   * Puts new SIP objects in force (dynamic configuration, pjsip.conf reload): endpoints, aors, auths
   * and identifies apply to the next request; calls in progress keep theirs. Transports and outbound
   * registrations are left as they are until a restart. The `[global]` overload options apply at once.
   */
  applyConfig(next: SipConfig): void {
    const delta = this.#live.apply(next);
    this.#transactions.overload.setLimits({ ...overloadLimitsOf(next.global), ...this.#options.overload });
    this.#log.info(delta, 'SIP objects changed');
  }

  /** The sender core's REFER service calls for technology `SIP` (out-of-dialog REFER). */
  get referSender(): SipReferSender {
    return this.#referSender;
  }

  /** Active SUBSCRIBE dialogs (message-summary, dialog, presence). */
  get activeSubscriptions(): number {
    return this.#subscriptions.size;
  }

  /**
   * The sender core's text message service calls for technology `SIP` (register it with
   * `core.textMessages.registerSender('SIP', driver.textMessageSender)`).
   */
  get textMessageSender(): { send: SipMessaging['send'] } {
    return this.#messaging.sender;
  }

  /** Every live registered contact of the endpoint's AORs, then its static ones, as call targets. */
  async #contactTargets(endpoint: SipEndpointConfig): Promise<Array<OutboundTarget & { aor: string }>> {
    return (await this.#registrar.lookup(endpoint.aors, endpoint)).map((contact) => {
      // The To names the AOR (the user the phone registered as), the Request-URI the contact.
      const to = new SipUri({
        host: contact.uri.host,
        user: contact.aor,
        ...(contact.uri.port !== undefined ? { port: contact.uri.port } : {}),
      });
      return {
        aor: contact.aor,
        requestUri: contact.uri,
        toUri: to,
        flow: contact.flow,
        route: contact.path,
        transport: this.#transportFor(endpoint, contact.uri),
      };
    });
  }

  get registrar(): Registrar {
    return this.#registrar;
  }

  /** Binds every transport: UDP, TCP, TLS, WS and WSS. */
  async start(): Promise<void> {
    if (this.#started) return;
    this.#started = true;
    this.#dtlsIdentity ??= await ephemeralDtlsIdentity();
    const transportLog = (this.#options.logger ?? silentLogger).child({ module: 'switchboard:signalling:transport' });
    await this.#registrar.start();
    try {
      for (const config of this.#options.config.transports) {
        const protocol = config.protocol;
        const common = {
          name: config.name,
          bindAddress: config.bindAddress,
          bindPort: config.bindPort,
          externalSignalingAddress: config.externalSignalingAddress,
          localNets: config.localNets,
          externalSignalingPort: config.externalSignalingPort,
          keepAliveIntervalSeconds: (this.#options.config.global ?? defaultSipGlobal()).keepAliveInterval,
          logger: transportLog,
        };
        const keys = { certFile: config.certFile, privKeyFile: config.privKeyFile, connectionLimits: connectionLimitsOf(config) };
        const transport =
          protocol === 'udp'
            ? new UdpTransport({
                ...common,
                ...(config.nativeSocket !== undefined ? { nativeSocket: config.nativeSocket } : {}),
                ...(this.#options.clock === undefined ? { queueDelayProbeMs: QUEUE_DELAY_PROBE_MS } : {}),
              })
            : protocol === 'tcp' || protocol === 'tls'
              ? new StreamTransport({ ...common, ...keys, protocol })
              : new WsTransport({ ...common, ...keys, protocol });
        transport.delegate = this.#transactions;
        this.#transports.push(transport);
        this.#transportConfigs.set(transport, config);
        await transport.listen();
        this.#log.info(
          {
            transport: config.name,
            protocol,
            address: transport.localAddress,
            port: transport.localPort,
            ...(transport instanceof UdpTransport ? { socket: transport.socketKind } : {}),
          },
          'SIP transport listening',
        );
      }
    } catch (err) {
      await Promise.allSettled(this.#transports.map((t) => t.close()));
      throw err;
    }
    this.#startRegistrations();
    const qualify = this.#options.qualify;
    // Kept even when no AOR qualifies periodically: PJSIPQualify asks for a round on demand.
    if (qualify !== undefined) {
      this.#qualifier = new Qualifier({
        ua: this.#ua,
        clock: this.#clock,
        logger: (this.#options.logger ?? silentLogger).child({ module: 'switchboard:signalling:qualify' }),
        aors: this.#live.config.aors,
        endpoints: this.#live.config.endpoints,
        contactsOf: async (aor, endpoint) => (await this.#contactTargets(endpoint)).filter((t) => t.aor === aor),
        transportFor: (endpoint, target) => this.#transportFor(endpoint, target.requestUri),
        listener: qualify,
        userAgent: this.#userAgent,
      });
      this.#qualifier.start();
    }
  }

  /** Registers to every provider of `type=registration` (outbound-registration.ts). */
  #startRegistrations(): void {
    const config = this.#live.config;
    for (const registration of config.registrations ?? []) {
      let server: SipUri | undefined;
      try {
        const parsed = parseUri(registration.serverUri);
        if (parsed.kind === 'sip') server = parsed;
      } catch (err) {
        if (!(err instanceof SipParseError)) throw err;
      }
      const named = registration.transport === undefined ? undefined : this.#transports.find((t) => t.name === registration.transport);
      const wanted = server === undefined ? undefined : uriProtocol(server);
      const transport = named ?? (wanted === undefined ? this.#transports[0] : this.#transports.find((t) => t.protocol === wanted));
      if (server === undefined || transport === undefined) {
        this.#log.warn({ registration: registration.name }, 'outbound registration has no usable server URI or transport; skipped');
        continue;
      }
      const auth = registration.outboundAuth === undefined ? undefined : config.auths.find((a) => a.name === registration.outboundAuth);
      const client = new OutboundRegistration({
        config: registration,
        ua: this.#ua,
        transport,
        clock: this.#clock,
        logger: this.#log,
        credentials: auth === undefined ? undefined : { username: auth.username, password: auth.password },
        userAgent: this.#userAgent,
        lineToken: this.#lines.tokenFor(registration.name),
      });
      this.#registrations.push(client);
      client.start();
    }
  }

  /** The bound address of every transport, for the server's startup log. */
  listening(): ListeningAddress[] {
    return this.#transports.map((t) => ({ transport: t.name, protocol: t.protocol, address: t.localAddress, port: t.localPort }));
  }

  /** Each outbound registration with its current state (`pjsip show registrations`). */
  registrations(): { name: string; serverUri: string; clientUri: string; outboundAuth?: string; state: string }[] {
    return this.#registrations.map((r) => ({
      name: r.config.name,
      serverUri: r.config.serverUri,
      clientUri: r.config.clientUri,
      ...(r.config.outboundAuth !== undefined ? { outboundAuth: r.config.outboundAuth } : {}),
      state: r.state,
    }));
  }

  /** Turns full-message logging (trace level) on or off at run time. */
  setMessageTrace(enabled: boolean): void {
    for (const transport of this.#transports) transport.traceMessages = enabled;
  }

  /** The call whose media leg this is (looked up only when a leg's RTP timeout runs out). */
  #callOfLeg(legId: string): InboundCall | OutboundSipCall | undefined {
    for (const call of this.#calls) if (call.mediaLegId === legId) return call;
    for (const call of this.#outbound) if (call.mediaLegId === legId) return call;
    return undefined;
  }

  /** The answered call whose dialog a Replaces names (RFC 3891 §3), if we have one. */
  findConfirmedCall(target: ReplacesTarget): InboundCall | OutboundSipCall | undefined {
    for (const call of [...this.#calls, ...this.#outbound]) {
      const dialog = call.confirmedDialog;
      if (dialog !== undefined && replacesMatches(target, dialog)) return call;
    }
    return undefined;
  }

  /**
   * Where a redirect sends a call (API `redirect`, `endpoint=SIP/<resource>`): the URI given
   * (`alice/sip:alice@192.0.2.5`), or the endpoint's first registered or static contact, with the
   * number as user part for `trunk/5551234`. An unknown endpoint is a 404; one with no contact 409.
   */
  async redirectTarget(resource: string): Promise<SipUri> {
    const slash = resource.indexOf('/');
    const name = slash === -1 ? resource : resource.slice(0, slash);
    const rest = slash === -1 ? undefined : resource.slice(slash + 1);
    const endpoint = this.#endpoints.get(name);
    if (endpoint === undefined) throw new CoreError('not_found', `SIP endpoint '${name}' does not exist`);
    if (rest !== undefined && /^sips?:/i.test(rest)) {
      try {
        const uri = parseUri(rest);
        if (uri.kind === 'sip') return uri;
      } catch (err) {
        if (!(err instanceof SipParseError)) throw err;
      }
      throw new CoreError('unprocessable', `invalid SIP URI '${rest}'`);
    }
    const [first] = await this.#registrar.lookup(endpoint.aors, endpoint);
    if (first === undefined) throw new CoreError('conflict', `SIP endpoint '${name}' has no contact to redirect to`);
    const uri = first.uri.clone();
    if (rest !== undefined && rest !== '') uri.user = rest;
    else if (uri.user === undefined) uri.user = name;
    return uri;
  }

  /** Calls that have not ended yet. */
  get activeCalls(): number {
    return this.#calls.size + this.#outbound.size;
  }

  /**
   * A call for a dial string's resource (core's ChannelDriver contract):
   * - `alice`: every contact of alice's AORs (registered and static), forked in parallel;
   * - `alice/sip:alice@192.0.2.5:5070`: that URI, through alice's transport and codecs;
   * - `trunk/5551234`: the number at the trunk's single (static or registered) contact;
   * - `5551234@trunk`: the same (Asterisk's `PJSIP/number@endpoint` form).
   * An unknown endpoint throws CoreError not_found; a malformed URI invalid_argument.
   */
  prepareOutbound(request: OutboundCallRequest): OutboundCall {
    const slash = request.resource.indexOf('/');
    const at = slash === -1 ? request.resource.lastIndexOf('@') : -1;
    const name = slash !== -1 ? request.resource.slice(0, slash) : at > 0 ? request.resource.slice(at + 1) : request.resource;
    const rest = slash !== -1 ? request.resource.slice(slash + 1) : at > 0 ? request.resource.slice(0, at) : undefined;
    const endpoint = this.#endpoints.get(name);
    if (endpoint === undefined) throw new CoreError('not_found', `SIP endpoint '${name}' does not exist`);
    const transport = this.#transportFor(endpoint);
    if (transport === undefined) throw new CoreError('unavailable', 'no SIP transport is listening');
    const transportConfig = this.#transportConfigs.get(transport);
    if (transportConfig === undefined) throw new CoreError('unavailable', 'no SIP transport is listening');

    let targets: () => Promise<OutboundTarget[]>;
    if (rest !== undefined && /^sips?:/i.test(rest)) {
      let uri: SipUri;
      try {
        const parsed = parseUri(rest);
        if (parsed.kind !== 'sip') throw new SipParseError('not a SIP URI');
        uri = parsed;
      } catch (err) {
        if (err instanceof SipParseError) throw new CoreError('invalid_argument', `invalid SIP URI '${rest}'`);
        throw err;
      }
      targets = async () => [{ requestUri: uri, transport: this.#transportFor(endpoint, uri) }];
    } else if (rest !== undefined && rest !== '') {
      if (!/^[A-Za-z0-9+*#._~!$&'()=,;-]+$/.test(rest)) throw new CoreError('invalid_argument', `invalid number '${rest}'`);
      targets = async () => {
        const contacts = await this.#registrar.lookup(endpoint.aors, endpoint);
        const first = contacts[0];
        if (first === undefined) return [];
        const uri = first.uri.clone();
        uri.user = rest;
        return [{ requestUri: uri, flow: first.flow, route: first.path, transport: this.#transportFor(endpoint, uri) }];
      };
    } else {
      targets = () => this.#contactTargets(endpoint);
    }

    const channelName = this.#namer.next(endpoint.name);
    const codecs = request.formats !== undefined && request.formats.length > 0 ? request.formats : endpoint.codecs;
    const call = new OutboundSipCall({
      ua: this.#ua,
      media: this.#options.media,
      dtlsCertificates: this.#dtlsCertificates,
      clock: this.#clock,
      logger: this.#log,
      endpoint,
      transport,
      // `media_address` of the endpoint names the address of our SDP (nat-media.ts).
      transportConfig: mediaTransportConfig(transportConfig, undefined, endpoint),
      name: channelName,
      caller: endpoint.callerId !== undefined && request.caller.number === '' ? endpoint.callerId : request.caller,
      codecs,
      userAgent: this.#userAgent,
      targets,
      outboundCredentials: this.#outboundCredentials(endpoint),
      onEnded: (ended) => this.#outbound.delete(ended),
      findDialog: (target) => this.findConfirmedCall(target),
      redirectTarget: (resource) => this.redirectTarget(resource),
      mediaNear: request.mediaNear,
    });
    return {
      name: channelName,
      endpoint: endpoint.name,
      tech: call,
      dial: async (events, options) => {
        if (this.#closing) throw new CoreError('unavailable', 'the SIP driver is shutting down');
        this.#outbound.add(call);
        await call.dial(events, options);
      },
    };
  }

  /**
   * The transport for a call: the protocol a target URI asks for (`;transport=tcp|tls`, or `sips:`
   * for TLS, RFC 3261 §19.1.4, §26.2.1), else the endpoint's `transport=`, else the first one.
   */
  #transportFor(endpoint: SipEndpointConfig, uri?: SipUri): UdpTransport | StreamTransport | WsTransport | undefined {
    const wanted = uri === undefined ? undefined : uriProtocol(uri);
    if (wanted !== undefined) {
      const named = this.#transports.find((t) => t.name === endpoint.transport && t.protocol === wanted);
      return named ?? this.#transports.find((t) => t.protocol === wanted);
    }
    if (endpoint.transport !== undefined) {
      const named = this.#transports.find((t) => t.name === endpoint.transport);
      if (named !== undefined) return named;
    }
    return this.#transports[0];
  }

  /** PJSIPQualify: an OPTIONS ping to each contact of the endpoint now (qualify.ts). */
  qualify(endpointName: string): Promise<EndpointContactQualify[]> {
    const endpoint = this.#live.config.endpoints.find((e) => e.name === endpointName);
    if (endpoint === undefined) throw new CoreError('not_found', `Unable to retrieve endpoint ${endpointName}`);
    if (this.#qualifier === undefined) throw new CoreError('unavailable', 'Qualify is not available');
    return this.#qualifier.qualifyEndpoint(endpoint);
  }

  /**
   * Ends every call (BYE for answered ones, 503 for unanswered ones), waits up to closeTimeoutMs
   * for the BYEs to be answered, then stops the transactions and closes the sockets.
   */
  async close(): Promise<void> {
    if (this.#closing) return;
    this.#closing = true;
    const ending = Promise.allSettled([
      this.#subscriptions.close(),
      ...this.#registrations.map((registration) => registration.stop()),
      ...[...this.#calls].map((call) => call.shutdown()),
      ...[...this.#outbound].map((call) => call.shutdown()),
    ]);
    let timer: unknown;
    const timeout = new Promise<void>((resolve) => {
      timer = this.#clock.setTimeout(resolve, this.#options.closeTimeoutMs ?? 2000);
    });
    await Promise.race([ending, timeout]);
    this.#clock.clearTimeout(timer);
    this.#stopMediaNotifications();
    this.#qualifier?.close();
    this.#registrar.close();
    this.#ua.close();
    this.#transactions.close();
    await Promise.allSettled(this.#transports.map((t) => t.close()));
    this.#log.info('SIP driver closed');
  }

  /**
   * Who calls is settled before anything of the call is built: a challenged or refused INVITE
   * (half of the INVITEs of digest phones, every one of a flood) costs its response and nothing else.
   */
  #receiveInvite(invite: IncomingInvite, context: IncomingContext): void {
    if (this.#closing) {
      invite.reject(503);
      return;
    }
    const transportConfig = this.#transportConfigs.get(context.transport);
    if (transportConfig === undefined) {
      invite.reject(500);
      return;
    }
    const source = context.source;
    authenticateInbound(this.#authenticators, invite.request, source)
      .then((auth) => {
        // Cancelled, or the server began stopping, while the caller was being identified.
        if (invite.state !== 'proceeding') return;
        if (this.#closing) {
          invite.reject(503);
          return;
        }
        if (auth.kind === 'reject') {
          this.#log.info(
            { callId: invite.request.callId, source: `${source.address}:${source.port}`, status: auth.status },
            'inbound call refused',
          );
          invite.reject(auth.status, {
            ...(auth.reason !== undefined ? { reason: auth.reason } : {}),
            ...(auth.headers !== undefined ? { headers: auth.headers } : {}),
          });
          return;
        }
        this.#startInboundCall(invite, context, transportConfig, auth.endpoint);
      })
      .catch((err: unknown) => {
        this.#log.error({ err, callId: invite.request.callId }, 'inbound call identification failed');
        invite.reject(500);
      });
  }

  #startInboundCall(
    invite: IncomingInvite,
    context: IncomingContext,
    transportConfig: SipTransportConfig,
    endpoint: SipEndpointConfig,
  ): void {
    const call = new InboundCall(invite, context, {
      host: this.#options.host,
      media: this.#options.media,
      dtlsCertificates: this.#dtlsCertificates,
      logger: this.#log,
      // A caller inside `local_net` is answered with our own media address (nat-media.ts).
      transportConfig: mediaTransportConfig(transportConfig, context.source.address, undefined),
      channelName: (name) => this.#namer.next(name),
      userAgent: this.#userAgent,
      clock: this.#clock,
      ua: this.#ua,
      credentialsFor: (target) => this.#outboundCredentials(target),
      onEnded: (ended) => this.#calls.delete(ended),
      findDialog: (target) => this.findConfirmedCall(target),
      redirectTarget: (resource) => this.redirectTarget(resource),
    });
    this.#calls.add(call);
    call.start(endpoint).catch((err: unknown) => {
      this.#log.error({ err, callId: call.protocolId }, 'inbound call setup failed');
      void call.hangup(41);
    });
  }
}

/** The protocol a URI asks for: `transport=` (udp, tcp, tls, ws, wss) or the `sips` scheme (TLS). */
function uriProtocol(uri: SipUri): TransportProtocol | undefined {
  const param = uri.params.get('transport')?.toLowerCase();
  if (param === 'udp' || param === 'tcp' || param === 'tls' || param === 'ws' || param === 'wss') return param;
  return uri.scheme === 'sips' ? 'tls' : undefined;
}

/**
 * The challenges to send: every algorithm some auth accepts (pjsip.conf `supported_algorithms_uas`),
 * MD5 first. The user is unknown when the 401 goes out, so the union is offered to everyone.
 */
function challengeAlgorithms(auths: readonly SipAuthConfig[]): DigestAlgorithm[] {
  const wanted = new Set(auths.flatMap((auth) => auth.supportedAlgorithmsUas ?? ['MD5']));
  return (['MD5', 'SHA-256'] as const).filter((algorithm) => wanted.has(algorithm));
}

/** The transport's connection limits as written in pjsip.conf (unset ones keep their defaults). */
function connectionLimitsOf(config: SipTransportConfig): Partial<StreamConnectionLimits> {
  const limits: Partial<StreamConnectionLimits> = {};
  if (config.maxConnectionsPerAddress !== undefined) limits.maxConnectionsPerAddress = config.maxConnectionsPerAddress;
  if (config.idleTimeoutMs !== undefined) limits.idleTimeoutMs = config.idleTimeoutMs;
  if (config.unauthenticatedIdleTimeoutMs !== undefined) limits.unauthenticatedIdleTimeoutMs = config.unauthenticatedIdleTimeoutMs;
  if (config.messageTimeoutMs !== undefined) limits.messageTimeoutMs = config.messageTimeoutMs;
  return limits;
}

/**
 * How often each UDP transport measures its receive queue's delay (overload control): 25 samples in
 * the control's 250 ms window, at a cost of 100 small datagrams a second.
 */
const QUEUE_DELAY_PROBE_MS = 10;

/** pjsip.conf `type = global` overload options (unset ones keep OverloadControl's defaults). */
function overloadLimitsOf(global: SipGlobalConfig | undefined): Partial<OverloadLimits> {
  const limits: Partial<OverloadLimits> = {};
  if (global?.overloadMaxLoopLagMs !== undefined) limits.maxLoopLagMs = global.overloadMaxLoopLagMs;
  if (global?.overloadMaxCallsInSetup !== undefined) limits.maxInvitesInProgress = global.overloadMaxCallsInSetup;
  if (global?.overloadRetryAfterS !== undefined) limits.retryAfterS = global.overloadRetryAfterS;
  return limits;
}
