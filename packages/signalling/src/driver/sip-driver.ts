/**
 * The SIP channel driver (technology `SIP`, alias `PJSIP`): binds the configured UDP transports,
 * assembles the stack (transport → transaction layer → UA core) and turns each inbound INVITE
 * into an InboundCall presented to core.
 */
import {
  type ChannelDriver,
  type ChannelDriverHost,
  type Clock,
  type Logger,
  type SipConfig,
  type SipTransportConfig,
  silentLogger,
  systemClock,
} from '@switchboard/core';
import type { IncomingInvite } from '../dialog/incoming-invite.js';
import { TransactionLayer } from '../transaction/transaction-layer.js';
import type { IncomingContext, Transport } from '../transport/transport.js';
import { UdpTransport } from '../transport/udp-transport.js';
import { UserAgentCore } from '../ua/user-agent-core.js';
import { ChannelNamer } from './channel-names.js';
import { IdentifyByAddress, type InboundAuthenticator } from './identify.js';
import { InboundCall, type SipMediaEngine } from './inbound-call.js';

export interface SipDriverOptions {
  config: SipConfig;
  host: ChannelDriverHost;
  /** The engine (a full MediaEngine will do); the driver only creates, points and destroys legs. */
  media: SipMediaEngine;
  logger?: Logger;
  clock?: Clock;
  /** Server/User-Agent header value. */
  userAgent?: string;
  /** Authenticators tried after identification by source address (digest auth plugs in here). */
  authenticators?: readonly InboundAuthenticator[];
  /** How long close() waits for the BYEs it sends to be answered. */
  closeTimeoutMs?: number;
}

export interface ListeningAddress {
  transport: string;
  protocol: 'udp';
  address: string;
  port: number;
}

export class SipDriver implements ChannelDriver {
  readonly technology = 'SIP';
  readonly aliases: readonly string[] = ['PJSIP'];
  readonly #options: SipDriverOptions;
  readonly #log: Logger;
  readonly #clock: Clock;
  readonly #transactions: TransactionLayer;
  readonly #ua: UserAgentCore;
  readonly #transports: UdpTransport[] = [];
  readonly #transportConfigs = new Map<Transport, SipTransportConfig>();
  readonly #calls = new Set<InboundCall>();
  readonly #authenticators: readonly InboundAuthenticator[];
  readonly #namer = new ChannelNamer();
  #started = false;
  #closing = false;

  constructor(options: SipDriverOptions) {
    this.#options = options;
    const log = options.logger ?? silentLogger;
    this.#log = log.child({ module: 'switchboard:signalling:driver' });
    this.#clock = options.clock ?? systemClock;
    this.#transactions = new TransactionLayer({
      clock: this.#clock,
      logger: log.child({ module: 'switchboard:signalling:transaction' }),
    });
    this.#ua = new UserAgentCore({
      transactions: this.#transactions,
      clock: this.#clock,
      logger: log.child({ module: 'switchboard:signalling:dialog' }),
      userAgent: options.userAgent ?? 'Switchboard',
    });
    this.#ua.delegate = { onInvite: (invite, context) => this.#receiveInvite(invite, context) };
    this.#authenticators = [
      new IdentifyByAddress(options.config.identifies, options.config.endpoints, this.#log),
      ...(options.authenticators ?? []),
    ];
  }

  /** Binds every UDP transport. Other protocols are logged as not implemented yet. */
  async start(): Promise<void> {
    if (this.#started) return;
    this.#started = true;
    const transportLog = (this.#options.logger ?? silentLogger).child({ module: 'switchboard:signalling:transport' });
    try {
      for (const config of this.#options.config.transports) {
        if (config.protocol !== 'udp') {
          this.#log.warn({ transport: config.name, protocol: config.protocol }, 'SIP transport protocol not implemented yet; skipped');
          continue;
        }
        const transport = new UdpTransport({
          name: config.name,
          bindAddress: config.bindAddress,
          bindPort: config.bindPort,
          externalSignalingAddress: config.externalSignalingAddress,
          logger: transportLog,
        });
        transport.delegate = this.#transactions;
        this.#transports.push(transport);
        this.#transportConfigs.set(transport, config);
        await transport.listen();
        this.#log.info({ transport: config.name, address: transport.localAddress, port: transport.localPort }, 'SIP transport listening');
      }
    } catch (err) {
      await Promise.allSettled(this.#transports.map((t) => t.close()));
      throw err;
    }
  }

  /** The bound address of every transport, for the server's startup log. */
  listening(): ListeningAddress[] {
    return this.#transports.map((t) => ({ transport: t.name, protocol: t.protocol, address: t.localAddress, port: t.localPort }));
  }

  /** Turns full-message logging (trace level) on or off at run time. */
  setMessageTrace(enabled: boolean): void {
    for (const transport of this.#transports) transport.traceMessages = enabled;
  }

  /** Calls that have not ended yet. */
  get activeCalls(): number {
    return this.#calls.size;
  }

  /**
   * Ends every call (BYE for answered ones, 503 for unanswered ones), waits up to closeTimeoutMs
   * for the BYEs to be answered, then stops the transactions and closes the sockets.
   */
  async close(): Promise<void> {
    if (this.#closing) return;
    this.#closing = true;
    const ending = Promise.allSettled([...this.#calls].map((call) => call.shutdown()));
    let timer: unknown;
    const timeout = new Promise<void>((resolve) => {
      timer = this.#clock.setTimeout(resolve, this.#options.closeTimeoutMs ?? 2000);
    });
    await Promise.race([ending, timeout]);
    this.#clock.clearTimeout(timer);
    this.#ua.close();
    this.#transactions.close();
    await Promise.allSettled(this.#transports.map((t) => t.close()));
    this.#log.info('SIP driver closed');
  }

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
    const call = new InboundCall(invite, context, {
      host: this.#options.host,
      media: this.#options.media,
      logger: this.#log,
      authenticators: this.#authenticators,
      transportConfig,
      channelName: (endpoint) => this.#namer.next(endpoint),
      onEnded: (ended) => this.#calls.delete(ended),
    });
    this.#calls.add(call);
    call.start().catch((err: unknown) => {
      this.#log.error({ err, callId: call.protocolId }, 'inbound call setup failed');
      void call.hangup(41);
    });
  }
}
