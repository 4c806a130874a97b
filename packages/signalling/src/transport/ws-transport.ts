/**
 * SIP over WebSocket (RFC 7118), `protocol=ws` and `protocol=wss` (over TLS with `cert_file`/
 * `priv_key_file`). The handshake must offer the `sip` subprotocol (§4.1; others are refused). Each
 * WebSocket message carries exactly one SIP message (§5), so a message is framed by the WebSocket
 * and read like a datagram. WebSocket clients (browsers) cannot accept connections: every request to
 * one goes on the connection it keeps open with us, found by its address and port (the `flow` of its
 * registration); a destination without a connection is a transport error.
 */
import { LocalNetworks, withExternalPort } from './local-net.js';
import { readFileSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { Logger } from '@switchboard/core';
import { type WebSocket, WebSocketServer } from 'ws';
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
import type { PeerAddress, Transport, TransportDelegate } from './transport.js';
import { applyReceived, normaliseAddress, responseDestination } from './via-received.js';

export interface WsTransportOptions {
  name: string;
  protocol: 'ws' | 'wss';
  bindAddress: string;
  bindPort: number;
  externalSignalingAddress?: string | undefined;
  /** `local_net`: peers that see our own address rather than the external one. */
  localNets?: readonly string[] | undefined;
  /** `external_signaling_port`: the port shown with the external address (default: the bound one). */
  externalSignalingPort?: number | undefined;
  logger: Logger;
  limits?: Partial<ParseLimits>;
  certFile?: string | undefined;
  privKeyFile?: string | undefined;
  /** Connections kept at most. Default 2048. */
  maxConnections?: number;
}

interface Connection {
  key: string;
  socket: WebSocket;
  remote: PeerAddress;
  vias: Set<string>;
}

const MAX_VIAS_PER_CONNECTION = 1000;

function connectionKey(address: string, port: number): string {
  return `${normaliseAddress(address)}|${port}`;
}

function viaKey(via: Via): string {
  return `${via.branch ?? ''}|${via.host}|${via.port ?? ''}`;
}

export class WsTransport implements Transport {
  readonly name: string;
  readonly protocol: 'ws' | 'wss';
  readonly viaTransport: string;
  readonly reliable = true;
  delegate: TransportDelegate | undefined;
  traceMessages = false;

  readonly #options: WsTransportOptions;
  readonly #log: Logger;
  readonly #limits: ParseLimits;
  readonly #connections = new Map<string, Connection>();
  readonly #viaRoutes = new Map<string, string>();
  #http: Server | undefined;
  #wss: WebSocketServer | undefined;
  #localAddress = '';
  #localPort = 0;
  #closed = false;

  constructor(options: WsTransportOptions) {
    this.name = options.name;
    this.protocol = options.protocol;
    // RFC 7118 §7: the Via transport is WS, or WSS over TLS.
    this.viaTransport = options.protocol === 'wss' ? 'WSS' : 'WS';
    this.#options = options;
    this.#log = options.logger;
    this.#limits = { ...DEFAULT_PARSE_LIMITS, ...options.limits };
  }

  get localAddress(): string {
    return this.#localAddress;
  }

  get localPort(): number {
    return this.#localPort;
  }

  listen(): Promise<PeerAddress> {
    const { bindAddress, bindPort } = this.#options;
    let http: Server;
    if (this.protocol === 'wss') {
      const { certFile, privKeyFile } = this.#options;
      if (certFile === undefined || privKeyFile === undefined) {
        return Promise.reject(new SipTransportError(`WSS transport ${this.name} needs cert_file and priv_key_file`));
      }
      try {
        http = createHttpsServer({ cert: readFileSync(certFile), key: readFileSync(privKeyFile) });
      } catch (err) {
        return Promise.reject(new SipTransportError(`WSS transport ${this.name}: cannot load its certificate or key`, { cause: err }));
      }
    } else {
      http = createHttpServer();
    }
    // Plain HTTP requests to the port get 426: only the WebSocket upgrade is served.
    http.on('request', (_req, res) => {
      res.writeHead(426, { Connection: 'close', Upgrade: 'websocket' });
      res.end();
    });
    http.maxConnections = this.#options.maxConnections ?? 2048;
    const wss = new WebSocketServer({
      server: http,
      maxPayload: this.#limits.maxMessageBytes,
      // RFC 7118 §4.1: the `sip` subprotocol is required; a handshake without it is refused.
      handleProtocols: (protocols) => (protocols.has('sip') ? 'sip' : false),
    });
    wss.on('connection', (socket, request) => this.#accept(socket, request));
    wss.on('error', (err) => this.#log.error({ err, transport: this.name }, 'WebSocket server error'));
    this.#http = http;
    this.#wss = wss;
    return new Promise((resolve, reject) => {
      const onError = (err: Error) =>
        reject(new SipTransportError(`cannot bind ${this.name} to ${bindAddress}:${bindPort}`, { cause: err }));
      http.once('error', onError);
      http.listen(bindPort, bindAddress, () => {
        http.off('error', onError);
        http.on('error', (err) => this.#log.error({ err, transport: this.name }, 'listening socket error'));
        const bound = http.address();
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
    const connection = this.#connections.get(connectionKey(destination.address, destination.port));
    if (connection === undefined) {
      throw new SipTransportError(`no WebSocket connection from ${destination.address}:${destination.port}`);
    }
    const data = withExternalPort(
      encodeMessage(message),
      LocalNetworks.of(this.#options.localNets).externalFor(this.#options.externalSignalingAddress, normaliseAddress(destination.address)),
      this.#localPort,
      this.#options.externalSignalingPort,
    );
    if (this.traceMessages) this.#log.trace({ to: connection.key, text: data.toString('utf8') }, 'sip message sent');
    await new Promise<void>((resolve, reject) => {
      // §5: text frames, as SIP messages are UTF-8 (a body that is not would go binary).
      connection.socket.send(data.toString('utf8'), (err) => {
        if (err) reject(new SipTransportError(`send to ${connection.key} failed`, { cause: err }));
        else resolve();
      });
    });
  }

  async sendResponse(response: SipResponse | EncodedResponse): Promise<void> {
    const key = this.#viaRoutes.get(viaKey(response.topVia));
    const connection = key === undefined ? undefined : this.#connections.get(key);
    return this.send(response, connection?.remote ?? responseDestination(response.topVia));
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const connection of this.#connections.values()) connection.socket.terminate();
    this.#connections.clear();
    this.#viaRoutes.clear();
    const wss = this.#wss;
    if (wss !== undefined) await new Promise<void>((resolve) => wss.close(() => resolve()));
    const http = this.#http;
    if (http !== undefined) await new Promise<void>((resolve) => http.close(() => resolve()));
  }

  #accept(socket: WebSocket, request: IncomingMessage): void {
    const address = request.socket.remoteAddress;
    const port = request.socket.remotePort;
    if (this.#closed || address === undefined || port === undefined) {
      socket.terminate();
      return;
    }
    const remote = { address: normaliseAddress(address), port };
    const key = connectionKey(remote.address, port);
    const connection: Connection = { key, socket, remote, vias: new Set() };
    this.#connections.set(key, connection);
    socket.on('message', (data, isBinary) => {
      try {
        const buffer = Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
        if (!isBinary && buffer.toString().trim() === '') return; // keep-alive
        this.#receive(connection, buffer);
      } catch (err) {
        this.#log.error({ err, transport: this.name }, 'failed to process a received message');
      }
    });
    socket.on('error', (err) => this.#log.debug({ err, remote: key }, 'WebSocket error'));
    socket.on('close', () => {
      if (this.#connections.get(key) === connection) this.#connections.delete(key);
      for (const via of connection.vias) if (this.#viaRoutes.get(via) === key) this.#viaRoutes.delete(via);
    });
  }

  #receive(connection: Connection, data: Buffer): void {
    const source = connection.remote;
    if (this.traceMessages) this.#log.trace({ from: connection.key, text: data.toString('utf8') }, 'sip message received');
    let message: SipMessage;
    try {
      message = parseMessage(data, { datagram: true, limits: this.#limits });
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
      const key = viaKey(message.topVia);
      this.#viaRoutes.set(key, connection.key);
      connection.vias.add(key);
      if (connection.vias.size > MAX_VIAS_PER_CONNECTION) {
        const oldest = connection.vias.values().next().value;
        if (oldest !== undefined) {
          connection.vias.delete(oldest);
          if (this.#viaRoutes.get(oldest) === connection.key) this.#viaRoutes.delete(oldest);
        }
      }
      delegate.onRequest(message, { transport: this, source });
    } else {
      delegate.onResponse(message, { transport: this, source });
    }
  }

  #rejectMalformed(connection: Connection, partial: unknown, problem: string, status: number): void {
    if (!(partial instanceof SipRequest) || !canAnswer(partial)) {
      this.#log.debug({ remote: connection.key, problem }, 'dropped malformed message');
      return;
    }
    const response = createResponse(partial, status, {
      toTag: newTag(),
      headers: [['Warning', `399 switchboard "${problem.replace(/["\\]/g, '')}"`]],
    });
    connection.socket.send(serializeMessage(response).toString('utf8'));
  }
}
