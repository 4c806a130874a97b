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
import { reportSipMessage } from './message-observers.js';
import { lookup } from 'node:dns/promises';
import { isIP, type Server, type Socket, connect as tcpConnect, createServer as createTcpServer } from 'node:net';
import { createServer as createTlsServer, connect as tlsConnect, type TLSSocket } from 'node:tls';
import { type Clock, sampleMessages, systemClock } from '@switchboard/core';
import { SipParseError, SipTransportError } from '../errors.js';
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
import { StreamFramer } from './stream-framer.js';
import type { PeerAddress, Transport } from './transport.js';
import { BoundTransport, type BoundTransportOptions, listenOn, readTlsFiles } from './transport-base.js';
import { normaliseAddress, responseDestination } from './via-received.js';

export interface StreamTransportOptions extends BoundTransportOptions {
  protocol: 'tcp' | 'tls';
  /** TLS: PEM certificate chain and private key files (`cert_file`, `priv_key_file`). */
  certFile?: string | undefined;
  privKeyFile?: string | undefined;
  /** TLS: check the certificate of servers we connect to (off by default, as Asterisk's verify_server). */
  verifyServer?: boolean;
  /** Per-address cap, idle limits and the message deadline (connection-guard.ts). */
  connectionLimits?: Partial<StreamConnectionLimits>;
  clock?: Clock;
  /** Connections kept at most; new ones beyond are refused. Default 2048. */
  maxConnections?: number;
  /**
   * pjsip.conf `[global] keep_alive_interval`, seconds: a double-CRLF ping (RFC 5626 §3.5.1) on
   * every open connection at this interval, so NAT bindings stay open; 0 or absent: none.
   */
  keepAliveIntervalSeconds?: number | undefined;
}

interface Connection extends RoutedConnection {
  socket: Socket | TLSSocket;
  framer: StreamFramer;
  ready: Promise<void>;
  deadlines: ConnectionDeadlines;
}

/** Log lines about what peers send; sampled, so a flood of bad messages stays a few lines. */
const REMOTE_INPUT_MESSAGES = [
  'dropped malformed message',
  'malformed request answered',
  'stream cannot be framed; connection closed',
  'failed to process received data',
  'failed to process a received message',
  'connection closed by its deadline',
  'connection over the per-address cap refused',
];

export class StreamTransport extends BoundTransport implements Transport {
  readonly protocol: 'tcp' | 'tls';
  readonly viaTransport: string;
  readonly reliable = true;

  readonly #options: StreamTransportOptions;
  readonly #connections = new ConnectionTable<Connection>();
  readonly #guardLimits: StreamConnectionLimits;
  readonly #counter: ConnectionCounter;
  #server: Server | undefined;
  #closed = false;
  #keepAlive: NodeJS.Timeout | undefined;

  constructor(options: StreamTransportOptions) {
    super({ ...options, logger: sampleMessages(options.logger, systemClock, REMOTE_INPUT_MESSAGES) });
    this.protocol = options.protocol;
    this.viaTransport = options.protocol === 'tls' ? 'TLS' : 'TCP';
    this.#options = options;
    this.#guardLimits = { ...DEFAULT_STREAM_CONNECTION_LIMITS, ...options.connectionLimits };
    this.#counter = new ConnectionCounter(this.#guardLimits.maxConnectionsPerAddress);
    const interval = options.keepAliveIntervalSeconds ?? 0;
    if (interval > 0) {
      this.#keepAlive = setInterval(() => {
        for (const connection of this.#connections.values()) if (!connection.socket.destroyed) connection.socket.write('\r\n\r\n');
      }, interval * 1000);
      this.#keepAlive.unref();
    }
  }

  get connectionCount(): number {
    return this.#connections.size;
  }

  async listen(): Promise<PeerAddress> {
    const { bindAddress, bindPort } = this.#options;
    let server: Server;
    if (this.protocol === 'tls') {
      const { cert, key } = readTlsFiles('TLS', this.name, this.#options.certFile, this.#options.privKeyFile);
      server = createTlsServer({ cert, key }, (socket) => this.#accept(socket));
      // A failed handshake is a client's problem, not ours; it is logged and the socket dropped.
      server.on('tlsClientError', (err) => this.log.debug({ err, transport: this.name }, 'TLS handshake failed'));
    } else {
      server = createTcpServer((socket) => this.#accept(socket));
    }
    server.maxConnections = this.#options.maxConnections ?? 2048;
    this.#server = server;
    const bound = await listenOn(server, this.name, { address: bindAddress, port: bindPort }, this.log);
    return this.bound(bound);
  }

  async send(message: SipMessage | EncodedMessage, destination: PeerAddress): Promise<void> {
    if (this.#closed) throw new SipTransportError(`transport ${this.name} is closed`);
    const data = this.encodeFor(message, destination.address);
    const connection = await this.#connectionTo(destination);
    await connection.ready;
    if (this.traceMessages) {
      this.log.trace({ to: `${connection.remote.address}:${connection.remote.port}`, text: data.toString('utf8') }, 'sip message sent');
    }
    reportSipMessage({
      direction: 'sent',
      data,
      protocol: this.protocol,
      remote: connection.remote,
      local: { address: this.localAddress, port: this.localPort },
    });
    connection.deadlines.sent();
    if ('status' in message && message.status >= 200 && message.status < 300) connection.deadlines.trust();
    await new Promise<void>((resolve, reject) => {
      connection.socket.write(data, (err) => {
        if (err) reject(new SipTransportError(`send to ${connection.key} failed`, { cause: err }));
        else resolve();
      });
    });
  }

  /** RFC 3261 §18.2.2: on the request's connection while it is open, else where the Via says. */
  async sendResponse(response: SipResponse | EncodedResponse): Promise<void> {
    const connection = this.#connections.routeFor(response.topVia);
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
    const remote = normaliseAddress(address);
    if (!this.#counter.tryOpen(remote)) {
      this.log.debug(
        { transport: this.name, remote, limit: this.#guardLimits.maxConnectionsPerAddress },
        'connection over the per-address cap refused',
      );
      socket.destroy();
      return;
    }
    socket.once('close', () => this.#counter.close(remote));
    this.#adopt(socket, { address: remote, port }, Promise.resolve(), false);
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
    return this.#adopt(socket, { address, port: destination.port }, ready, true);
  }

  /** `trusted`: a connection we opened ourselves gets the long idle limit from the start. */
  #adopt(socket: Socket | TLSSocket, remote: PeerAddress, ready: Promise<void>, trusted: boolean): Connection {
    const key = connectionKey(remote.address, remote.port);
    const deadlines = new ConnectionDeadlines(
      this.#guardLimits,
      this.#options.clock ?? systemClock,
      (reason) => {
        this.log.debug({ transport: this.name, remote: key, reason }, 'connection closed by its deadline');
        socket.destroy();
      },
      trusted,
    );
    const connection: Connection = {
      key,
      socket,
      framer: new StreamFramer(this.limits.maxMessageBytes),
      remote,
      vias: new Set(),
      ready,
      deadlines,
    };
    this.#connections.add(connection);
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => {
      try {
        this.#receive(connection, chunk);
      } catch (err) {
        this.log.error({ err, transport: this.name }, 'failed to process received data');
      }
    });
    socket.on('error', (err) => this.log.debug({ err, remote: key }, 'connection error'));
    socket.on('close', () => {
      connection.deadlines.stop();
      this.#connections.forget(connection);
    });
    return connection;
  }

  #receive(connection: Connection, chunk: Buffer): void {
    let frames: ReturnType<StreamFramer['push']>;
    try {
      frames = connection.framer.push(chunk);
    } catch (err) {
      if (!(err instanceof SipParseError)) throw err;
      this.log.debug({ remote: connection.key, problem: err.message }, 'stream cannot be framed; connection closed');
      connection.socket.destroy();
      return;
    }
    connection.deadlines.received(connection.framer.buffered > 0);
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
    this.receive(
      data,
      { source: connection.remote, label: connection.key },
      {
        datagram: false,
        reply: (_request, answer) => connection.socket.write(serializeMessage(answer())),
        requestVia: (via) => this.#connections.remember(connection, via),
      },
    );
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
