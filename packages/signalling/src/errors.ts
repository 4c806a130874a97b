/**
 * Expected failures of the SIP stack. A plain `Error` thrown from this package means a bug.
 */

/**
 * A message (or one header of it) that cannot be parsed. The parser throws nothing else.
 * `status` is the response a UAS should send when the request can still be identified
 * (400, or 505 for an unsupported SIP version); `partial` carries what was read so far so that
 * the transport can build that response from the Via/From/To/Call-ID/CSeq it found.
 */
export class SipParseError extends Error {
  readonly status: number;
  /** The message as far as it could be read; absent when the start line itself was unreadable. */
  readonly partial: unknown;

  constructor(message: string, options: { status?: number; partial?: unknown } = {}) {
    super(message);
    this.name = 'SipParseError';
    this.status = options.status ?? 400;
    this.partial = options.partial;
  }
}

/** A SIP failure with its status and reason phrase, e.g. `new SipError(486, 'Busy Here')`. */
export class SipError extends Error {
  readonly status: number;
  readonly reason: string;

  constructor(status: number, reason: string, detail?: string) {
    super(detail === undefined ? `${status} ${reason}` : `${status} ${reason}: ${detail}`);
    this.name = 'SipError';
    this.status = status;
    this.reason = reason;
  }
}

/** A message could not be handed to the network (socket closed, unresolvable destination, send error). */
export class SipTransportError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'SipTransportError';
  }
}
