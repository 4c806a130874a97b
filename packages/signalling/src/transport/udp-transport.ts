/**
 * SIP over UDP (RFC 3261 §18): one datagram socket per configured transport. The receive path is
 * parse → check the identifying headers → Via received/rport (§18.2.1, RFC 3581) → delegate.
 * Malformed requests that can still be identified are answered 400 here, statelessly, so the
 * layers above only ever see well-formed messages (§8.2, §21.4.1); everything else is dropped
 * and logged at debug.
 */
import { reportSipMessage } from './message-observers.js';
import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { SipTransportError } from '../errors.js';
import type { EncodedMessage, EncodedResponse } from '../message/encoded-message.js';
import type { SipMessage, SipResponse } from '../message/sip-message.js';
import type { PeerAddress, Transport } from './transport.js';
import { type DatagramSocket, type DatagramSource, DgramDatagramSocket } from './datagram-socket.js';
import { NativeDatagramSocket, nativeDatagramSocketsAvailable } from './native-datagram-socket.js';
import { BoundTransport, type BoundTransportOptions } from './transport-base.js';
import { QueueDelayProbe } from './queue-delay-probe.js';
import { applyReceived, normaliseAddress, responseDestination } from './via-received.js';

export interface UdpTransportOptions extends BoundTransportOptions {
  /** Measure the receive queue's delay with a probe datagram this often (ms); see queue-delay-probe.ts. */
  queueDelayProbeMs?: number;
  /**
   * The socket's system calls on a thread of its own (native-datagram-socket.ts) when its addon is
   * built (pjsip.conf transport `native_socket`, default true); Node's dgram otherwise.
   */
  nativeSocket?: boolean;
}

/** Largest UDP payload over IPv4 (65535 − 8 byte UDP header − 20 byte IP header). */
const MAX_DATAGRAM = 65507;

export class UdpTransport extends BoundTransport implements Transport {
  readonly protocol = 'udp';
  readonly viaTransport = 'UDP';
  readonly reliable = false;

  readonly #options: UdpTransportOptions;
  #socket: DatagramSocket | undefined;
  #ipv6 = false;
  #closed = false;
  #probe: QueueDelayProbe | undefined;

  constructor(options: UdpTransportOptions) {
    super(options);
    this.#options = options;
  }

  /** Binds the socket; resolves with the bound address and port. */
  async listen(): Promise<PeerAddress> {
    const { bindAddress, bindPort } = this.#options;
    this.#ipv6 = isIP(bindAddress) === 6;
    const onMessage = (data: Buffer, source: DatagramSource) => {
      if (this.#probe?.receive(data, source) === true) return;
      try {
        this.#receive(data, source);
      } catch (err) {
        // A bug above the transport must not take the socket (and every other call) down.
        this.sampled.write('error', 'receive-failed', { err, transport: this.name }, 'failed to process a received message');
      }
    };
    const socket =
      this.#options.nativeSocket !== false && nativeDatagramSocketsAvailable() && isIP(bindAddress) !== 0
        ? new NativeDatagramSocket(onMessage)
        : new DgramDatagramSocket(onMessage, (err) => this.log.error({ err, transport: this.name }, 'socket error'));
    this.#socket = socket;
    let bound: { port: number; receiveBufferBytes: number };
    try {
      bound = await socket.bind(bindAddress, bindPort);
    } catch (err) {
      throw new SipTransportError(`cannot bind ${this.name} to ${bindAddress}:${bindPort}`, { cause: err });
    }
    this.log.debug({ transport: this.name, receiveBuffer: bound.receiveBufferBytes, socket: socket.kind }, 'socket bound');
    return this.#startProbe(this.bound({ address: bindAddress, port: bound.port }));
  }

  /** `dgram` or `native`: what serves this transport's socket (once listening). */
  get socketKind(): DatagramSocket['kind'] | undefined {
    return this.#socket?.kind;
  }

  async #startProbe(local: PeerAddress): Promise<PeerAddress> {
    const interval = this.#options.queueDelayProbeMs;
    if (interval === undefined || interval <= 0) return local;
    const probe = new QueueDelayProbe(local.address, local.port, interval, (delayMs) => this.delegate?.onQueueDelay?.(delayMs));
    try {
      await probe.start();
      this.#probe = probe;
    } catch (err) {
      // Without the probe only the loop lag measures overload; the transport itself works.
      probe.close();
      this.log.warn({ err, transport: this.name }, 'receive queue delay not measured');
    }
    return local;
  }

  async send(message: SipMessage | EncodedMessage, destination: PeerAddress): Promise<void> {
    const socket = this.#socket;
    if (socket === undefined || this.#closed) throw new SipTransportError(`transport ${this.name} is closed`);
    const data = this.encodeFor(message, destination.address);
    if (data.length > MAX_DATAGRAM) throw new SipTransportError(`message of ${data.length} bytes does not fit a datagram`);
    const address = await this.#resolve(destination.address);
    if (this.traceMessages) {
      this.log.trace({ to: `${address}:${destination.port}`, text: data.toString('utf8') }, 'sip message sent');
    }
    reportSipMessage({ direction: 'sent', data, protocol: 'udp', remote: { address, port: destination.port }, local: this.#localEnd() });
    try {
      await socket.send(data, destination.port, address);
    } catch (err) {
      throw new SipTransportError(`send to ${address}:${destination.port} failed`, { cause: err });
    }
  }

  sendResponse(response: SipResponse | EncodedResponse): Promise<void> {
    return this.send(response, responseDestination(response.topVia));
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#probe?.close();
    await this.#socket?.close();
  }

  /** A host name is resolved (RFC 3263 §5 reduced to an A/AAAA lookup); addresses match the socket family. */
  async #resolve(host: string): Promise<string> {
    let address = host;
    if (isIP(host) === 0) {
      try {
        address = (await lookup(host, { family: this.#ipv6 ? 0 : 4 })).address;
      } catch (err) {
        throw new SipTransportError(`cannot resolve ${host}`, { cause: err });
      }
    }
    if (this.#ipv6 && isIP(address) === 4) return `::ffff:${address}`;
    if (!this.#ipv6 && isIP(address) === 6) throw new SipTransportError(`cannot reach IPv6 ${address} from ${this.name}`);
    return address;
  }

  #localEnd(): { address: string; port: number } {
    return { address: this.localAddress, port: this.localPort };
  }

  #receive(data: Buffer, from: DatagramSource): void {
    const source: PeerAddress = { address: normaliseAddress(from.address), port: from.port };
    if (isKeepAlive(data)) {
      this.log.trace({ source }, 'keep-alive received');
      return;
    }
    this.receive(
      data,
      { source, label: `${source.address}:${source.port}` },
      {
        datagram: true,
        reply: (request, answer) => {
          // The answer goes where the Via says, with received/rport as for any request (§18.2.1).
          const updated = applyReceived(request.topVia, source);
          if (updated !== undefined) request.replaceTopVia(updated);
          this.sendResponse(answer()).catch((err: unknown) => {
            this.log.debug({ err, source }, 'could not answer a malformed request');
          });
        },
      },
    );
  }
}

/** CRLF keep-alives and the 4-byte null pings some phones send (RFC 5626 §4.4.1 style traffic). */
function isKeepAlive(data: Buffer): boolean {
  if (data.length > 8) return false;
  for (const byte of data) {
    if (byte !== 0x0d && byte !== 0x0a && byte !== 0x20 && byte !== 0x00) return false;
  }
  return true;
}
