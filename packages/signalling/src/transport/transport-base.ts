/**
 * What every transport (UDP, TCP/TLS, WebSocket) keeps alike: its name, the delegate above it, the
 * trace switch, the address it bound and the host it advertises (RFC 3261 §18), and the binding of
 * a listening server with its TLS files for the connection transports.
 */
import { readFileSync } from 'node:fs';
import type { Server } from 'node:net';
import { type Logger, SampledLog, systemClock } from '@switchboard/core';
import { SipTransportError } from '../errors.js';
import { DEFAULT_PARSE_LIMITS, type ParseLimits } from '../message/parser.js';
import { isWildcardAddress, localAddressToward } from './local-address.js';
import { type EncodedMessage, type EncodedResponse, encodeMessage } from '../message/encoded-message.js';
import { LocalNetworks, withExternalPort } from './local-net.js';
import type { SipMessage, SipRequest, SipResponse } from '../message/sip-message.js';
import type { Via } from '../message/via.js';
import { answerableRequest, malformedResponse, receiveMessage } from './incoming.js';
import { reportSipMessage } from './message-observers.js';
import type { PeerAddress, Transport, TransportDelegate, TransportProtocol } from './transport.js';
import { normaliseAddress } from './via-received.js';

/** The options every transport takes (pjsip.conf `type=transport`). */
export interface BoundTransportOptions {
  name: string;
  bindAddress: string;
  bindPort: number;
  externalSignalingAddress?: string | undefined;
  /** `local_net`: peers that see our own address rather than the external one. */
  localNets?: readonly string[] | undefined;
  /** `external_signaling_port`: the port shown with the external address (default: the bound one). */
  externalSignalingPort?: number | undefined;
  logger: Logger;
  limits?: Partial<ParseLimits>;
}

export abstract class BoundTransport implements Transport {
  readonly name: string;
  abstract readonly protocol: TransportProtocol;
  abstract readonly viaTransport: string;
  abstract readonly reliable: boolean;
  delegate: TransportDelegate | undefined;
  /** Logs every message in full at trace level; switchable at run time. */
  traceMessages = false;
  protected readonly log: Logger;
  /** Remote input is logged sampled: a flood of bad packets gives one line per kind and interval. */
  protected readonly sampled: SampledLog;
  protected readonly limits: ParseLimits;
  readonly #externalAddress: string | undefined;
  readonly #externalPort: number | undefined;
  readonly #localNets: LocalNetworks;
  #local: PeerAddress = { address: '', port: 0 };

  constructor(options: BoundTransportOptions) {
    this.name = options.name;
    this.log = options.logger;
    this.sampled = new SampledLog(options.logger, systemClock);
    this.limits = { ...DEFAULT_PARSE_LIMITS, ...options.limits };
    this.#externalAddress = options.externalSignalingAddress;
    this.#externalPort = options.externalSignalingPort;
    this.#localNets = LocalNetworks.of(options.localNets);
  }

  /** The address and port actually bound. */
  get localAddress(): string {
    return this.#local.address;
  }

  get localPort(): number {
    return this.#local.port;
  }

  /**
   * The host to write in Via sent-by, Contact and SDP for a peer: the configured external address,
   * else the bound address, else the one the system uses toward the peer.
   */
  async advertisedHost(peer: string): Promise<string> {
    const external = this.#localNets.externalFor(this.#externalAddress, normaliseAddress(peer));
    if (external !== undefined) return external;
    if (!isWildcardAddress(this.#local.address)) return this.#local.address;
    return localAddressToward(normaliseAddress(peer));
  }

  /**
   * The bytes of `message` for a peer at `address`: a peer outside `local_net` sees the external
   * address with `external_signaling_port` in place of the bound port (local-net.ts).
   */
  protected encodeFor(message: SipMessage | EncodedMessage, address: string): Buffer {
    const external = this.#localNets.externalFor(this.#externalAddress, normaliseAddress(address));
    return withExternalPort(encodeMessage(message), external, this.localPort, this.#externalPort);
  }

  abstract send(message: SipMessage | EncodedMessage, destination: PeerAddress): Promise<void>;
  abstract sendResponse(response: SipResponse | EncodedResponse): Promise<void>;
  abstract close(): Promise<void>;

  /**
   * One message in, from `source` (`label` names it in logs): traced when tracing is on, then up the
   * shared receive path (incoming.ts). A malformed request that can be answered goes to `reply`
   * with a builder of its answer; a connection transport remembers each request's route in `requestVia`.
   */
  protected receive(
    data: Buffer,
    from: { source: PeerAddress; label: string },
    how: { datagram: boolean; reply(request: SipRequest, answer: () => SipResponse): void; requestVia?(via: Via): void },
  ): void {
    if (this.traceMessages) this.log.trace({ from: from.label, text: data.toString('utf8') }, 'sip message received');
    reportSipMessage({
      direction: 'received',
      data,
      protocol: this.protocol,
      remote: from.source,
      local: { address: this.localAddress, port: this.localPort },
    });
    receiveMessage(data, {
      datagram: how.datagram,
      limits: this.limits,
      delegate: this.delegate,
      context: { transport: this, source: from.source },
      malformed: (partial, problem, status) => {
        const request = answerableRequest(partial);
        if (request === undefined) {
          this.sampled.write('debug', 'malformed-dropped', { from: from.label, problem }, 'dropped malformed message');
          return;
        }
        this.sampled.write(
          'debug',
          'malformed-answered',
          { from: from.label, problem, method: request.method },
          'malformed request answered',
        );
        how.reply(request, () => malformedResponse(request, problem, status));
      },
      ...(how.requestVia !== undefined ? { requestVia: how.requestVia } : {}),
    });
  }

  /** Records what listen() bound, and returns it for listen() to resolve with. */
  protected bound(address: PeerAddress): PeerAddress {
    this.#local = address;
    return address;
  }
}

/** Binds a listening server (TCP, TLS, or HTTP for WebSocket); resolves with the bound address and port. */
export function listenOn(server: Server, name: string, bind: PeerAddress, log: Logger): Promise<PeerAddress> {
  return new Promise((resolve, reject) => {
    const onError = (err: Error) => reject(new SipTransportError(`cannot bind ${name} to ${bind.address}:${bind.port}`, { cause: err }));
    server.once('error', onError);
    server.listen(bind.port, bind.address, () => {
      server.off('error', onError);
      server.on('error', (err) => log.error({ err, transport: name }, 'listening socket error'));
      const bound = server.address();
      if (bound === null || typeof bound === 'string') {
        reject(new SipTransportError(`${name} has no address`));
        return;
      }
      resolve({ address: bound.address, port: bound.port });
    });
  });
}

/** The certificate chain and key of a TLS or WSS transport (`cert_file`, `priv_key_file`). */
export function readTlsFiles(
  kind: 'TLS' | 'WSS',
  name: string,
  certFile: string | undefined,
  privKeyFile: string | undefined,
): { cert: Buffer; key: Buffer } {
  if (certFile === undefined || privKeyFile === undefined)
    throw new SipTransportError(`${kind} transport ${name} needs cert_file and priv_key_file`);
  try {
    return { cert: readFileSync(certFile), key: readFileSync(privKeyFile) };
  } catch (err) {
    throw new SipTransportError(`${kind} transport ${name}: cannot load its certificate or key`, { cause: err });
  }
}
