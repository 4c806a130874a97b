/**
 * Outbound registration (pjsip.conf `type=registration`): we register to a provider as a phone
 * does (RFC 3261 §10.2), so that it sends our calls here.
 *
 * - REGISTER to `server_uri`, To and From `client_uri`, one Call-ID for the life of the
 *   registration and a CSeq that grows by one per request (§10.2.4, §10.2.1.1);
 * - a 401/407 is answered with the `outbound_auth` credentials (outbound-auth.ts);
 * - 423 Interval Too Brief: again at once with the Min-Expires it names (§10.2.8);
 * - 2xx: the binding lasts the expires the registrar granted for our Contact (its `expires`
 *   parameter, else the Expires header, else what we asked); it is refreshed when 90% of that has
 *   passed (§10.2.4: before it expires);
 * - 403: again after `forbidden_retry_interval` (0: give up); any other failure or no answer: again
 *   after `retry_interval`, at most `max_retries` times in a row;
 * - stop(): the binding is removed with `Expires: 0` (§10.2.2), waiting a bounded time for the answer.
 *
 *   idle ──start()──> registering ──2xx──> registered ──refresh timer──> registering
 *                         │ failure: waiting ──retry timer──> registering (or stopped: gave up)
 *   any ──stop()──> unregistering ──> stopped
 */
import type { Clock, Logger, SipRegistrationConfig } from '@switchboard/core';
import { newBranch, newCallId, newTag } from '../../message/ids.js';
import { headerFields, SipRequest, type SipResponse } from '../../message/sip-message.js';
import { parseUri, type SipUri } from '../../message/uri.js';
import { Via } from '../../message/via.js';
import type { Transport } from '../../transport/transport.js';
import type { UserAgentCore } from '../../ua/user-agent-core.js';
import { authorizedAttempt, ChallengeResponder, type OutboundCredentials } from '../auth/outbound-auth.js';

export type OutboundRegistrationState = 'idle' | 'registering' | 'registered' | 'waiting' | 'unregistering' | 'stopped';

export interface OutboundRegistrationOptions {
  config: SipRegistrationConfig;
  ua: Pick<UserAgentCore, 'sendRequest'>;
  transport: Transport;
  clock: Clock;
  logger: Logger;
  credentials: OutboundCredentials | undefined;
  userAgent: string;
  /** `line = yes`: the token our Contact carries (line-identify.ts). */
  lineToken?: string | undefined;
  /** Told on every state change (tests and logs follow the registration this way). */
  onState?(state: OutboundRegistrationState, detail: { status?: number; expires?: number }): void;
}

type Outcome = { kind: 'response'; response: SipResponse } | { kind: 'none' };

/** Refresh when this share of the granted interval has passed. */
const REFRESH_AT = 0.9;

export class OutboundRegistration {
  readonly #options: OutboundRegistrationOptions;
  readonly #log: Logger;
  readonly #serverUri: SipUri;
  readonly #clientUri: SipUri;
  readonly #callId: string;
  readonly #fromTag = newTag();
  #cseq = Math.floor(Math.random() * 0x7fff) + 1;
  #state: OutboundRegistrationState = 'idle';
  #timer: unknown;
  #failures = 0;
  /** The interval asked for (raised by a 423). */
  #expiration: number;
  #contact = '';

  constructor(options: OutboundRegistrationOptions) {
    this.#options = options;
    this.#log = options.logger.child({ registration: options.config.name });
    const server = parseUri(options.config.serverUri);
    const client = parseUri(options.config.clientUri);
    if (server.kind !== 'sip' || client.kind !== 'sip')
      throw new Error(`registration '${options.config.name}': server_uri and client_uri must be SIP URIs`);
    this.#serverUri = server;
    this.#clientUri = client;
    this.#callId = newCallId();
    this.#expiration = options.config.expiration;
  }

  get state(): OutboundRegistrationState {
    return this.#state;
  }

  /** The configuration it registers with (`pjsip show registrations`). */
  get config(): SipRegistrationConfig {
    return this.#options.config;
  }

  start(): void {
    if (this.#state !== 'idle') return;
    void this.#register();
  }

  /** Removes the binding (Expires: 0); resolves when the registrar answered or `timeoutMs` passed. */
  async stop(timeoutMs = 2000): Promise<void> {
    const wasRegistered = this.#state === 'registered';
    this.#options.clock.clearTimeout(this.#timer);
    if (this.#state === 'stopped' || this.#state === 'unregistering') return;
    if (!wasRegistered) {
      this.#setState('stopped', {});
      return;
    }
    this.#setState('unregistering', {});
    let timer: unknown;
    const timeout = new Promise<void>((resolve) => {
      timer = this.#options.clock.setTimeout(resolve, timeoutMs);
    });
    await Promise.race([this.#exchange(0), timeout]);
    this.#options.clock.clearTimeout(timer);
    this.#setState('stopped', {});
  }

  async #register(): Promise<void> {
    if (this.#state === 'stopped' || this.#state === 'unregistering') return;
    this.#setState('registering', {});
    const outcome = await this.#exchange(this.#expiration);
    // stop() may have come while the REGISTER was out.
    if (this.#state !== 'registering') return;
    if (outcome.kind === 'none') {
      this.#failed(0, this.#options.config.retryInterval);
      return;
    }
    const response = outcome.response;
    const status = response.status;
    if (status >= 200 && status < 300) {
      this.#failures = 0;
      const granted = this.#grantedExpires(response);
      this.#setState('registered', { status, expires: granted });
      this.#log.info({ server: this.#options.config.serverUri, expires: granted }, 'outbound registration succeeded');
      this.#schedule(Math.max(1, Math.floor(granted * REFRESH_AT)));
      return;
    }
    if (status === 423) {
      const minExpires = Number(response.getHeader('Min-Expires')?.trim());
      if (Number.isInteger(minExpires) && minExpires > this.#expiration) {
        this.#expiration = minExpires;
        void this.#register();
        return;
      }
    }
    if (status === 403) {
      this.#failed(status, this.#options.config.forbiddenRetryInterval);
      return;
    }
    this.#failed(status, this.#options.config.retryInterval);
  }

  #failed(status: number, retryAfterSeconds: number): void {
    this.#failures++;
    const { maxRetries, serverUri } = this.#options.config;
    if (retryAfterSeconds === 0 || this.#failures > maxRetries) {
      this.#log.warn({ server: serverUri, status, attempts: this.#failures }, 'outbound registration failed; giving up');
      this.#setState('stopped', { status });
      return;
    }
    this.#log.warn({ server: serverUri, status, retryIn: retryAfterSeconds }, 'outbound registration failed; will retry');
    this.#setState('waiting', { status });
    this.#schedule(retryAfterSeconds);
  }

  #schedule(seconds: number): void {
    this.#options.clock.clearTimeout(this.#timer);
    this.#timer = this.#options.clock.setTimeout(() => void this.#register(), seconds * 1000);
  }

  /** §10.2.4: our Contact's `expires` parameter in the 2xx, else its Expires header, else what we asked. */
  #grantedExpires(response: SipResponse): number {
    const ours = response.contacts.find(
      (c) => c.uri.kind === 'sip' && c.uri.user === this.#contactUser && c.uri.port === this.#options.transport.localPort,
    );
    const param = ours?.params.get('expires');
    const fromParam = param === undefined || param === null ? Number.NaN : Number(param);
    if (Number.isInteger(fromParam) && fromParam > 0) return fromParam;
    const header = Number(response.getHeader('Expires')?.trim());
    if (Number.isInteger(header) && header > 0) return header;
    return this.#expiration;
  }

  get #contactUser(): string {
    return this.#options.config.contactUser ?? 's';
  }

  /** One REGISTER (answering challenges) and its final response. */
  async #exchange(expires: number): Promise<Outcome> {
    const request = await this.#build(expires);
    const responder = this.#options.credentials === undefined ? undefined : new ChallengeResponder(this.#options.credentials);
    return new Promise<Outcome>((resolve) => {
      const send = (attempt: SipRequest) => {
        this.#cseq = attempt.cseq.seq;
        this.#options.ua.sendRequest(attempt, this.#options.transport, this.#serverUri, {
          onResponse: (response) => {
            if (response.status < 200) return;
            const retry = response.status === 401 || response.status === 407 ? authorizedAttempt(attempt, response, responder) : undefined;
            if (retry !== undefined) send(retry);
            else resolve({ kind: 'response', response });
          },
          onTimeout: () => resolve({ kind: 'none' }),
          onTransportError: (err) => {
            this.#log.info({ err }, 'REGISTER could not be sent');
            resolve({ kind: 'none' });
          },
        });
      };
      send(request);
    });
  }

  async #build(expires: number): Promise<SipRequest> {
    const transport = this.#options.transport;
    const localHost = await transport.advertisedHost(this.#serverUri.host);
    if (this.#contact === '') {
      const transportParam = transport.protocol === 'udp' ? '' : `;transport=${transport.protocol}`;
      const lineParam = this.#options.lineToken === undefined ? '' : `;line=${this.#options.lineToken}`;
      const host = localHost.includes(':') ? `[${localHost}]` : localHost;
      this.#contact = `<sip:${this.#contactUser}@${host}:${transport.localPort}${transportParam}${lineParam}>`;
    }
    const via = new Via(
      transport.viaTransport,
      localHost,
      transport.localPort,
      new Map([
        ['branch', newBranch()],
        ['rport', null],
      ]),
    );
    const account = this.#clientUri.clone();
    account.params.clear();
    account.headers = undefined;
    const requestUri = this.#serverUri.clone();
    requestUri.headers = undefined;
    this.#cseq++;
    return new SipRequest(
      'REGISTER',
      requestUri,
      headerFields([
        ['Via', via.toString()],
        ['Max-Forwards', '70'],
        ['From', `<${account.toString()}>;tag=${this.#fromTag}`],
        ['To', `<${account.toString()}>`],
        ['Call-ID', this.#callId],
        ['CSeq', `${this.#cseq} REGISTER`],
        ['Contact', this.#contact],
        ['Expires', String(expires)],
        ['User-Agent', this.#options.userAgent],
      ]),
    );
  }

  #setState(state: OutboundRegistrationState, detail: { status?: number; expires?: number }): void {
    this.#state = state;
    try {
      this.#options.onState?.(state, detail);
    } catch (err) {
      this.#log.error({ err }, 'registration state listener failed');
    }
  }
}
