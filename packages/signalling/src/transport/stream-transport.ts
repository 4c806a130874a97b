/**
 * SIP over TCP and TLS (RFC 3261 §18, §26.2.1; TLS with node:tls). One listening socket per
 * configured transport; every connection, accepted or opened by us, is kept by its remote address
 * and port and reused in both directions:
 * - a response goes back on the connection its request came in on, while it is open (§18.2.2);
 *   otherwise to the Via's received/rport or sent-by, on a connection opened for it;
 * - a request to an address with an open connection uses it (a phone that registered over TCP is
 *   reached on its own connection, which is what lets calls reach it behind NAT).
 * Receive path: framing by Content-Length (stream-framer.ts) → parse → identifying headers →
 * Via received/rport → delegate; malformed but answerable requests get 400 on the same connection.
 * A stream that cannot be framed any more is closed.
 */
import { LocalNetworks, withExternalPort } from './local-net.js';
import { readFileSync } from 'node:fs';
import { isIP, type Server, type Socket, connect as tcpConnect, createServer as createTcpServer } from 'node:net';
import { lookup } from 'node:dns/promises';
import { createServer as createTlsServer, connect as tlsConnect, type TLSSocket } from 'node:tls';
import type { Logger } from '@switchboard/core';
import { SipParseError, SipTransportError } from '../errors.js';
import { createResponse } from '../message/builders.js';
import { newTag } from '../message/ids.js';
import { DEFAULT_PARSE_LIMITS, type ParseLimits, parseMessage } from '../message/parser.js';
import { type EncodedResponse, encodeMessage } from '../message/encoded-response.js';
import { serializeMessage } from '../message/serializer.js';
import { type SipMessage, SipRequest, type SipResponse } from '../message/sip-message.js';
import { canAnswer, findEssentialProblem } from '../message/validate.js';
import type { Via } from '../message/via.js';
import { isWildcardAddress, localAddressToward } from './local-address.js';
import { StreamFramer } from './stream-framer.js';
import type { PeerAddress, Transport, TransportDelegate } from './transport.js';
import { applyReceived, normaliseAddress, responseDestination } from './via-received.js';

export interface StreamTransportOptions {
  name: string;
  protocol: 'tcp' | 'tls';
  bindAddress: string;
  bindPort: number;
  externalSignalingAddress?: string | undefined;
  /** `local_net`: peers that see our own address rather than the external one. */
  localNets?: readonly string[] | undefined;
  /** `external_signaling_port`: the port shown with the external address (default: the bound one). */
  externalSignalingPort?: number | undefined;
  /**
   * pjsip.conf `[global] keep_alive_interval`, seconds: a double-CRLF ping (RFC 5626 §3.5.1) on
   * every open connection at this interval, so NAT bindings stay open; 0 or absent: none.
   */
  keepAliveIntervalSeconds?: number | undefined;
  logger: Logger;
  limits?: Partial<ParseLimits>;
  /** TLS: PEM certificate chain and private key files (`cert_file`, `priv_key_file`). */
  certFile?: string | undefined;
  privKeyFile?: string | undefined;
  /** TLS: check the certificate of servers we connect to (off by default, as Asterisk's verify_server). */
  verifyServer?: boolean;
  /** A connection without traffic for this long is closed. Default 15 min. */
  idleTimeoutMs?: number;
  /** Connections kept at most; new ones beyond are refused. Default 2048. */
  maxConnections?: number;
}

interface Connection {
  key: string;
  socket: Socket | TLSSocket;
  framer: StreamFramer;
  remote: PeerAddress;
  /** Via keys of requests that came in on this connection (their responses go back here). */
  vias: Set<string>;
  ready: Promise<void>;
}

/** Requests remembered per connection for response routing; older ones are forgotten first. */
const MAX_VIAS_PER_CONNECTION = 1000;

function connectionKey(address: string, port: number): string {
  return `${normaliseAddress(address)}|${port}`;
}

/** A request's top Via as its response will carry it (branch and sent-by do not change). */
function viaKey(via: Via): string {
  return `${via.branch ?? ''}|${via.host}|${via.port ?? ''}`;
}

export class StreamTransport implements Transport {
  readonly name: string;
  readonly protocol: 'tcp' | 'tls';
  readonly viaTransport: string;
  readonly reliable = true;
  delegate: TransportDelegate | undefined;
  traceMessages = false;

  readonly #options: StreamTransportOptions;
  readonly #log: Logger;
  readonly #limits: ParseLimits;
  readonly #connections = new Map<string, Connection>();
  /** Via key → connection key, for responses (§18.2.2). */
  readonly #viaRoutes = new Map<string, string>();
  #server: Server | undefined;
  #tls: { cert: Buffer; key: Buffer } | undefined;
  #localAddress = '';
  #localPort = 0;
  #closed = false;
  #keepAlive: NodeJS.Timeout | undefined;

  constructor(options: StreamTransportOptions) {
    this.name = options.name;
    this.protocol = options.protocol;
    this.viaTransport = options.protocol === 'tls' ? 'TLS' : 'TCP';
    this.#options = options;
    this.#log = options.logger;
    this.#limits = { ...DEFAULT_PARSE_LIMITS, ...options.limits };
    const interval = options.keepAliveIntervalSeconds ?? 0;
    if (interval > 0) {
      this.#keepAlive = setInterval(() => {
        for (const connection of this.#connections.values()) if (!connection.socket.destroyed) connection.socket.write('\r\n\r\n');
      }, interval * 1000);
      this.#keepAlive.unref();
    }
  }

  get localAddress(): string {
    return this.#localAddress;
  }

  get localPort(): number {
    return this.#localPort;
  }

  get connectionCount(): number {
    return this.#connections.size;
  }

  listen(): Promise<PeerAddress> {
    const { bindAddress, bindPort } = this.#options;
    let server: Server;
    if (this.protocol === 'tls') {
      const { certFile, privKeyFile } = this.#options;
      if (certFile === undefined || privKeyFile === undefined) {
        return Promise.reject(new SipTransportError(`TLS transport ${this.name} needs cert_file and priv_key_file`));
      }
      try {
        this.#tls = { cert: readFileSync(certFile), key: readFileSync(privKeyFile) };
        server = createTlsServer({ cert: this.#tls.cert, key: this.#tls.key }, (socket) => this.#accept(socket));
      } catch (err) {
        return Promise.reject(new SipTransportError(`TLS transport ${this.name}: cannot load its certificate or key`, { cause: err }));
      }
      // A failed handshake is a client's problem, not ours; it is logged and the socket dropped.
      server.on('tlsClientError', (err) => this.#log.debug({ err, transport: this.name }, 'TLS handshake failed'));
    } else {
      server = createTcpServer((socket) => this.#accept(socket));
    }
    server.maxConnections = this.#options.maxConnections ?? 2048;
    this.#server = server;
    return new Promise((resolve, reject) => {
      const onError = (err: Error) =>
        reject(new SipTransportError(`cannot bind ${this.name} to ${bindAddress}:${bindPort}`, { cause: err }));
      server.once('error', onError);
      server.listen(bindPort, bindAddress, () => {
        server.off('error', onError);
        server.on('error', (err) => this.#log.error({ err, transport: this.name }, 'listening socket error'));
        const bound = server.address();
        if (bound === null || typeof bound === 'string') {
          reject(new SipTransportError(`${this.name} has no address`));
          return;
        }
        this.#localAddress = bound.address;
        this.#localPort = bound.port;
        resolve({ address: bound.address, port: bound.port });
      });
    });
  }

  async advertisedHost(peer: string): Promise<string> {
    const external = LocalNetworks.of(this.#options.localNets).externalFor(this.#options.externalSignalingAddress, normaliseAddress(peer));
    if (external !== undefined) return external;
    if (!isWildcardAddress(this.#localAddress)) return this.#localAddress;
    return localAddressToward(normaliseAddress(peer));
  }

  async send(message: SipMessage | EncodedResponse, destination: PeerAddress): Promise<void> {
    if (this.#closed) throw new SipTransportError(`transport ${this.name} is closed`);
    const data = withExternalPort(
      encodeMessage(message),
      LocalNetworks.of(this.#options.localNets).externalFor(this.#options.externalSignalingAddress, normaliseAddress(destination.address)),
      this.#localPort,
      this.#options.externalSignalingPort,
    );
    const connection = await this.#connectionTo(destination);
    await connection.ready;
    if (this.traceMessages) {
      this.#log.trace({ to: `${connection.remote.address}:${connection.remote.port}`, text: data.toString('utf8') }, 'sip message sent');
    }
    await new Promise<void>((resolve, reject) => {
      connection.socket.write(data, (err) => {
        if (err) reject(new SipTransportError(`send to ${connection.key} failed`, { cause: err }));
        else resolve();
      });
    });
  }

  /** RFC 3261 §18.2.2: on the request's connection while it is open, else where the Via says. */
  async sendResponse(response: SipResponse | EncodedResponse): Promise<void> {
    const key = this.#viaRoutes.get(viaKey(response.topVia));
    const connection = key === undefined ? undefined : this.#connections.get(key);
    if (connection !== undefined) {
      return this.send(response, connection.remote);
    }
    return this.send(response, responseDestination(response.topVia));
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#keepAlive !== undefined) clearInterval(this.#keepAlive);
    for (const connection of this.#connections.values()) connection.socket.destroy();
    this.#connections.clear();
    this.#viaRoutes.clear();
    const server = this.#server;
    if (server === undefined) return;
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  #accept(socket: Socket | TLSSocket): void {
    if (this.#closed) {
      socket.destroy();
      return;
    }
    const address = socket.remoteAddress;
    const port = socket.remotePort;
    if (address === undefined || port === undefined) {
      socket.destroy();
      return;
    }
    this.#adopt(socket, { address: normaliseAddress(address), port }, Promise.resolve());
  }

  async #connectionTo(destination: PeerAddress): Promise<Connection> {
    const address = await this.#resolve(destination.address);
    const key = connectionKey(address, destination.port);
    const existing = this.#connections.get(key);
    if (existing !== undefined) return existing;
    const options = { host: address, port: destination.port };
    let socket: Socket | TLSSocket;
    let ready: Promise<void>;
    if (this.protocol === 'tls') {
      const tlsSocket = tlsConnect({ ...options, rejectUnauthorized: this.#options.verifyServer ?? false });
      socket = tlsSocket;
      ready = new Promise((resolve, reject) => {
        tlsSocket.once('secureConnect', () => resolve());
        tlsSocket.once('error', (err) => reject(new SipTransportError(`TLS connection to ${key} failed`, { cause: err })));
      });
    } else {
      const tcpSocket = tcpConnect(options);
      socket = tcpSocket;
      ready = new Promise((resolve, reject) => {
        tcpSocket.once('connect', () => resolve());
        tcpSocket.once('error', (err) => reject(new SipTransportError(`TCP connection to ${key} failed`, { cause: err })));
      });
    }
    // The rejection is observed by send(); this keeps an unobserved copy from being reported.
    ready.catch(() => undefined);
    return this.#adopt(socket, { address, port: destination.port }, ready);
  }

  #adopt(socket: Socket | TLSSocket, remote: PeerAddress, ready: Promise<void>): Connection {
    const key = connectionKey(remote.address, remote.port);
    const connection: Connection = {
      key,
      socket,
      framer: new StreamFramer(this.#limits.maxMessageBytes),
      remote,
      vias: new Set(),
      ready,
    };
    this.#connections.set(key, connection);
    socket.setNoDelay(true);
    socket.setTimeout(this.#options.idleTimeoutMs ?? 15 * 60_000, () => socket.destroy());
    socket.on('data', (chunk: Buffer) => {
      try {
        this.#receive(connection, chunk);
      } catch (err) {
        this.#log.error({ err, transport: this.name }, 'failed to process received data');
      }
    });
    socket.on('error', (err) => this.#log.debug({ err, remote: key }, 'connection error'));
    socket.on('close', () => this.#forget(connection));
    return connection;
  }

  #forget(connection: Connection): void {
    if (this.#connections.get(connection.key) === connection) this.#connections.delete(connection.key);
    for (const via of connection.vias) if (this.#viaRoutes.get(via) === connection.key) this.#viaRoutes.delete(via);
  }

  #receive(connection: Connection, chunk: Buffer): void {
    let frames: ReturnType<StreamFramer['push']>;
    try {
      frames = connection.framer.push(chunk);
    } catch (err) {
      if (!(err instanceof SipParseError)) throw err;
      this.#log.debug({ remote: connection.key, problem: err.message }, 'stream cannot be framed; connection closed');
      connection.socket.destroy();
      return;
    }
    for (const frame of frames) {
      if (frame.kind === 'ping') {
        // RFC 5626 §3.5.1: a CRLF pong answers a double-CRLF ping.
        connection.socket.write('\r\n');
        continue;
      }
      this.#receiveMessage(connection, frame.data);
    }
  }

  #receiveMessage(connection: Connection, data: Buffer): void {
    const source = connection.remote;
    if (this.traceMessages) this.#log.trace({ from: connection.key, text: data.toString('utf8') }, 'sip message received');
    let message: SipMessage;
    try {
      message = parseMessage(data, { datagram: false, limits: this.#limits });
    } catch (err) {
      if (!(err instanceof SipParseError)) throw err;
      this.#rejectMalformed(connection, err.partial, err.message, err.status);
      return;
    }
    const problem = findEssentialProblem(message);
    if (problem !== undefined) {
      this.#rejectMalformed(connection, message, problem, 400);
      return;
    }
    const delegate = this.delegate;
    if (delegate === undefined) return;
    if (message.type === 'request') {
      const updated = applyReceived(message.topVia, source);
      if (updated !== undefined) message.replaceTopVia(updated);
      this.#remember(connection, message.topVia);
      delegate.onRequest(message, { transport: this, source });
    } else {
      delegate.onResponse(message, { transport: this, source });
    }
  }

  #remember(connection: Connection, via: Via): void {
    const key = viaKey(via);
    this.#viaRoutes.set(key, connection.key);
    connection.vias.add(key);
    if (connection.vias.size > MAX_VIAS_PER_CONNECTION) {
      const oldest = connection.vias.values().next().value;
      if (oldest !== undefined) {
        connection.vias.delete(oldest);
        if (this.#viaRoutes.get(oldest) === connection.key) this.#viaRoutes.delete(oldest);
      }
    }
  }

  #rejectMalformed(connection: Connection, partial: unknown, problem: string, status: number): void {
    if (!(partial instanceof SipRequest) || !canAnswer(partial)) {
      this.#log.debug({ remote: connection.key, problem }, 'dropped malformed message');
      return;
    }
    this.#log.debug({ remote: connection.key, problem, method: partial.method }, 'malformed request answered');
    const response = createResponse(partial, status, {
      toTag: newTag(),
      headers: [['Warning', `399 switchboard "${problem.replace(/["\\]/g, '')}"`]],
    });
    connection.socket.write(serializeMessage(response));
  }

  async #resolve(host: string): Promise<string> {
    if (isIP(host) !== 0) return normaliseAddress(host);
    try {
      return normaliseAddress((await lookup(host)).address);
    } catch (err) {
      throw new SipTransportError(`cannot resolve ${host}`, { cause: err });
    }
  }
}
