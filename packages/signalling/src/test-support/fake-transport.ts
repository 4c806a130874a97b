/** A transport that records what the layers above send, for transaction tests. */
import { EncodedResponse } from '../message/encoded-message.js';
import { parseMessage } from '../message/parser.js';
import type { SipMessage, SipResponse } from '../message/sip-message.js';
import type { PeerAddress, Transport } from '../transport/transport.js';
import { responseDestination } from '../transport/via-received.js';

export interface SentMessage {
  message: SipMessage;
  destination: PeerAddress;
}

export class RecordingTransport implements Transport {
  readonly name = 'fake';
  readonly protocol = 'udp';
  readonly viaTransport = 'UDP';
  readonly reliable = false;
  readonly localAddress = '127.0.0.1';
  readonly localPort = 5060;
  readonly sent: SentMessage[] = [];
  failSends = false;

  async send(message: SipMessage | EncodedResponse, destination: PeerAddress): Promise<void> {
    if (this.failSends) throw new Error('send failed');
    // Encoded responses are read back so tests see every sent message the same way.
    this.sent.push({ message: message instanceof EncodedResponse ? parseMessage(message.data) : message, destination });
  }

  sendResponse(response: SipResponse | EncodedResponse): Promise<void> {
    return this.send(response, responseDestination(response.topVia));
  }

  async advertisedHost(): Promise<string> {
    return this.localAddress;
  }

  async close(): Promise<void> {}
}
