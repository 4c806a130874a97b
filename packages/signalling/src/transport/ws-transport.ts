/**
 * SIP over WebSocket (RFC 7118), `protocol=ws` and `protocol=wss` (over TLS with `cert_file`/
 * `priv_key_file`). The handshake must offer the `sip` subprotocol (§4.1; others are refused). Each
 * WebSocket message carries exactly one SIP message (§5), so a message is framed by the WebSocket
 * and read like a datagram. WebSocket clients (browsers) cannot accept connections: every request to
 * one goes on the connection it keeps open with us, found by its address and port (the `flow` of its
 * registration); a destination without a connection is a transport error.
 */
import { reportSipMessage } from './message-observers.js';
import { createServer as createHttpServer, type IncomingMessage, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { Socket } from 'node:net';
import { type Clock, sampleMessages, systemClock } from '@switchboard/core';
import { type WebSocket, WebSocketServer } from 'ws';
import { SipTransportError } from '../errors.js';
import type { EncodedMessage, EncodedResponse } from '../message/encoded-message.js';
import { serializeMessage } from '../message/serializer.js';
import type { SipMessage, SipResponse } from '../message/sip-message.js';
import {
  ConnectionCounter,
  ConnectionDeadlines,
  DEFAULT_STREAM_CONNECTION_LIMITS,
  type StreamConnectionLimits,
} from './connection-guard.js';
import { ConnectionTable, connectionKey, type RoutedConnection } from './connection-routes.js';
import type { PeerAddress, Transport } from './transport.js';
import { BoundTransport, type BoundTransportOptions, listenOn, readTlsFiles } from './transport-base.js';
import { normaliseAddress, responseDestination } from './via-received.js';

export interface WsTransportOptions extends BoundTransportOptions {
  protocol: 'ws' | 'wss';
  certFile?: string | undefined;
  privKeyFile?: string | undefined;
  /** Connections kept at most. Default 2048. */
  maxConnections?: number;
  /** Per-address cap, idle limits and the handshake deadline (connection-guard.ts). */
  connectionLimits?: Partial<StreamConnectionLimits>;
  clock?: Clock;
}

interface Connection extends RoutedConnection {
  socket: WebSocket;
  deadlines: ConnectionDeadlines;
}

/** Log lines about what peers send; sampled, so a flood of bad messages stays a few lines. */
const REMOTE_INPUT_MESSAGES = [
  'dropped malformed message',
  'malformed request answered',
  'failed to process a received message',
  'connection closed by its deadline',
  'connection over the per-address cap refused',
];

export class WsTransport extends BoundTransport implements Transport {
  readonly protocol: 'ws' | 'wss';
  readonly viaTransport: string;
  readonly reliable = true;

  readonly #options: WsTransportOptions;
  readonly #connections = new ConnectionTable<Connection>();
  #http: Server | undefined;
  #wss: WebSocketServer | undefined;
  readonly #guardLimits: StreamConnectionLimits;
  #closed = false;

  constructor(options: WsTransportOptions) {
    super({ ...options, logger: sampleMessages(options.logger, systemClock, REMOTE_INPUT_MESSAGES) });
    this.#guardLimits = { ...DEFAULT_STREAM_CONNECTION_LIMITS, ...options.connectionLimits };
    this.protocol = options.protocol;
    // RFC 7118 §7: the Via transport is WS, or WSS over TLS.
    this.viaTransport = options.protocol === 'wss' ? 'WSS' : 'WS';
    this.#options = options;
  }

  async listen(): Promise<PeerAddress> {
    const { bindAddress, bindPort } = this.#options;
    const http: Server =
      this.protocol === 'wss'
        ? createHttpsServer(readTlsFiles('WSS', this.name, this.#options.certFile, this.#options.privKeyFile))
        : createHttpServer();
    // Plain HTTP requests to the port get 426: only the WebSocket upgrade is served.
    http.on('request', (_req, res) => {
      res.writeHead(426, { Connection: 'close', Upgrade: 'websocket' });
      res.end();
    });
    http.maxConnections = this.#options.maxConnections ?? 2048;
    this.#guardHttp(http);
    const wss = new WebSocketServer({
      server: http,
      maxPayload: this.limits.maxMessageBytes,
      // RFC 7118 §4.1: the `sip` subprotocol is required; a handshake without it is refused.
      handleProtocols: (protocols) => (protocols.has('sip') ? 'sip' : false),
    });
    wss.on('connection', (socket, request) => this.#accept(socket, request));
    wss.on('error', (err) => this.log.error({ err, transport: this.name }, 'WebSocket server error'));
    this.#http = http;
    this.#wss = wss;
    const bound = await listenOn(http, this.name, { address: bindAddress, port: bindPort }, this.log);
    return this.bound(bound);
  }

  async send(message: SipMessage | EncodedMessage, destination: PeerAddress): Promise<void> {
    if (this.#closed) throw new SipTransportError(`transport ${this.name} is closed`);
    const connection = this.#connections.get(connectionKey(destination.address, destination.port));
    if (connection === undefined) {
      throw new SipTransportError(`no WebSocket connection from ${destination.address}:${destination.port}`);
    }
    const data = this.encodeFor(message, destination.address);
    if (this.traceMessages) this.log.trace({ to: connection.key, text: data.toString('utf8') }, 'sip message sent');
    reportSipMessage({
      direction: 'sent',
      data,
      protocol: this.protocol,
      remote: connection.remote,
      local: { address: this.localAddress, port: this.localPort },
    });
    await new Promise<void>((resolve, reject) => {
      // §5: text frames, as SIP messages are UTF-8 (a body that is not would go binary).
      connection.socket.send(data.toString('utf8'), (err) => {
        if (err) reject(new SipTransportError(`send to ${connection.key} failed`, { cause: err }));
        else resolve();
      });
    });
    connection.deadlines.sent();
    if ('status' in message && message.status >= 200 && message.status < 300) connection.deadlines.trust();
  }

  /** The handshake must arrive within the message deadline; connections per address are capped. */
  #guardHttp(http: Server): void {
    http.headersTimeout = this.#guardLimits.messageTimeoutMs;
    http.requestTimeout = this.#guardLimits.messageTimeoutMs;
    const counter = new ConnectionCounter(this.#guardLimits.maxConnectionsPerAddress);
    http.on('connection', (socket: Socket) => {
      const address = normaliseAddress(socket.remoteAddress ?? '');
      if (!counter.tryOpen(address)) {
        this.log.debug({ transport: this.name, remote: address }, 'connection over the per-address cap refused');
        socket.destroy();
        return;
      }
      socket.once('close', () => counter.close(address));
    });
  }

  async sendResponse(response: SipResponse | EncodedResponse): Promise<void> {
    const connection = this.#connections.routeFor(response.topVia);
    return this.send(response, connection?.remote ?? responseDestination(response.topVia));
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    for (const connection of this.#connections.values()) connection.socket.terminate();
    this.#connections.clear();
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
    const deadlines = new ConnectionDeadlines(this.#guardLimits, this.#options.clock ?? systemClock, (reason) => {
      this.log.debug({ transport: this.name, remote: key, reason }, 'connection closed by its deadline');
      socket.terminate();
    });
    const connection: Connection = { key, socket, remote, vias: new Set(), deadlines };
    this.#connections.add(connection);
    socket.on('message', (data, isBinary) => {
      try {
        deadlines.received(false);
        const buffer = Buffer.isBuffer(data) ? data : Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
        if (!isBinary && buffer.toString().trim() === '') return; // keep-alive
        this.#receive(connection, buffer);
      } catch (err) {
        this.log.error({ err, transport: this.name }, 'failed to process a received message');
      }
    });
    socket.on('error', (err) => this.log.debug({ err, remote: key }, 'WebSocket error'));
    // WebSocket pings keep a connection alive as CRLF keep-alives do (RFC 7118 §6).
    socket.on('ping', () => deadlines.received(false));
    socket.on('close', () => {
      deadlines.stop();
      this.#connections.forget(connection);
    });
  }

  #receive(connection: Connection, data: Buffer): void {
    this.receive(
      data,
      { source: connection.remote, label: connection.key },
      {
        datagram: true,
        reply: (_request, answer) => connection.socket.send(serializeMessage(answer()).toString('utf8')),
        requestVia: (via) => this.#connections.remember(connection, via),
      },
    );
  }
}
