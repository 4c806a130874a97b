/**
 * What the layers above see of a transport (RFC 3261 §18): UDP (udp-transport.ts), TCP/TLS
 * (stream-transport.ts) and WebSocket (ws-transport.ts, RFC 7118) implement it.
 */
import type { EncodedMessage, EncodedResponse } from '../message/encoded-message.js';
import type { SipMessage, SipRequest, SipResponse } from '../message/sip-message.js';

export type TransportProtocol = 'udp' | 'tcp' | 'tls' | 'ws' | 'wss';

export interface PeerAddress {
  address: string;
  port: number;
}

/** Where a received message came from and on which transport. */
export interface IncomingContext {
  transport: Transport;
  source: PeerAddress;
}

/** How a transport reports upward: only well-formed messages reach the delegate. */
export interface TransportDelegate {
  /** A request whose top Via already carries received/rport (RFC 3261 §18.2.1, RFC 3581). */
  onRequest(request: SipRequest, context: IncomingContext): void;
  onResponse(response: SipResponse, context: IncomingContext): void;
  /** How long a datagram waited in the receive queue and the loop before it was read (ms). */
  onQueueDelay?(delayMs: number): void;
}

export interface Transport {
  readonly name: string;
  readonly protocol: TransportProtocol;
  /** Via transport token (`UDP`, `TCP`, `TLS`, `WS`, `WSS`). */
  readonly viaTransport: string;
  /** Whether retransmissions are the sender's job (RFC 3261 §17.1.1.2). */
  readonly reliable: boolean;
  /** The address and port actually bound. */
  readonly localAddress: string;
  readonly localPort: number;
  /** Sends one message; rejects with SipTransportError when it cannot be handed to the network. */
  send(message: SipMessage | EncodedMessage, destination: PeerAddress): Promise<void>;
  /** Sends a response where RFC 3261 §18.2.2 / RFC 3581 §4 say it goes (from its top Via). */
  sendResponse(response: SipResponse | EncodedResponse): Promise<void>;
  /**
   * The host to write in Via sent-by, Contact and SDP for a peer at `peer`: the configured external
   * address, else the bound address, else the local address the system uses to reach that peer.
   */
  advertisedHost(peer: string): Promise<string>;
  close(): Promise<void>;
}
