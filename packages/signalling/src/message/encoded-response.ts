/**
 * A response serialised once, kept by a finished server transaction for retransmissions. Holding
 * the bytes and the top Via instead of the parsed response (and the request it answers) keeps a
 * completed transaction small: over UDP a registrar holds every one for Timer J's 32 s (RFC 3261
 * §17.2.2), 128,000 of them at 2,000 REGISTER/s.
 */
import { detachedText } from './detached-text.js';
import { serializeMessage } from './serializer.js';
import type { SipMessage, SipResponse } from './sip-message.js';
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

/** The bytes to put on the wire. */
export function encodeMessage(message: SipMessage | EncodedResponse): Buffer {
  return message instanceof EncodedResponse ? message.data : serializeMessage(message);
}
