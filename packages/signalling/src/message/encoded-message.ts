/**
 * Messages serialised once and kept as bytes, to be sent again as they were. A finished server
 * transaction keeps its response for retransmissions, and a call's answered INVITE keeps the ACK it
 * sent for every retransmitted 2xx; over UDP that is for 32 s (Timers J, H and M, RFC 3261 §17.2.2,
 * RFC 6026 §7.2). Holding the bytes (and for a response its top Via) instead of the parsed message
 * keeps what lingers small: a registrar holds 128,000 responses at 2,000 REGISTER/s, a PBX 27,000 ACKs
 * at 850 Dial()s/s.
 */
import { detachedText } from './detached-text.js';
import { serializeMessage } from './serializer.js';
import type { SipMessage, SipRequest, SipResponse } from './sip-message.js';
import { parseVias, type Via } from './via.js';

export class EncodedResponse {
  readonly status: number;
  readonly topVia: Via;
  readonly data: Buffer;

  constructor(response: SipResponse) {
    this.status = response.status;
    // Read again from a copy of its own text: the parsed Via's values are views of the request's
    // whole header text, which would otherwise live as long as this.
    this.topVia = parseVias(detachedText(response.topVia.toString()))[0] ?? response.topVia;
    // Kept as long as its transaction (Timer J or H, up to 64·T1 = 32 s): in memory of its own.
    this.data = serializeMessage(response, true);
  }
}

export class EncodedRequest {
  readonly method: string;
  readonly data: Buffer;

  constructor(request: SipRequest) {
    this.method = request.method;
    this.data = serializeMessage(request, true);
  }
}

export type EncodedMessage = EncodedRequest | EncodedResponse;

/** The bytes to put on the wire. */
export function encodeMessage(message: SipMessage | EncodedMessage): Buffer {
  return message instanceof EncodedResponse || message instanceof EncodedRequest ? message.data : serializeMessage(message);
}
