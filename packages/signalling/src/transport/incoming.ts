/**
 * The receive path every transport shares (RFC 3261 §18.2.1): parse → check the identifying
 * headers (§8.2) → Via received/rport on requests (RFC 3581 §4) → delegate. What cannot be read is
 * handed back to the transport, which answers it on its own path (malformedResponse) or drops it,
 * so the layers above only ever see well-formed messages.
 */
import { SipParseError } from '../errors.js';
import { createResponse } from '../message/builders.js';
import { newTag } from '../message/ids.js';
import { type ParseLimits, parseMessage } from '../message/parser.js';
import { type SipMessage, SipRequest, type SipResponse } from '../message/sip-message.js';
import { canAnswer, findEssentialProblem } from '../message/validate.js';
import type { Via } from '../message/via.js';
import type { IncomingContext, TransportDelegate } from './transport.js';
import { applyReceived } from './via-received.js';

export interface ReceiveOptions {
  /** UDP and WebSocket carry one message per datagram/frame (§18.3; RFC 7118 §5); streams do not. */
  datagram: boolean;
  limits: ParseLimits;
  delegate: TransportDelegate | undefined;
  context: IncomingContext;
  /** A message that cannot be parsed or lacks an identifying header, with what could be read of it. */
  malformed(partial: unknown, problem: string, status: number): void;
  /** A request's top Via once received/rport is on it (connection transports route its response by it). */
  requestVia?(via: Via): void;
}

export function receiveMessage(data: Buffer, options: ReceiveOptions): void {
  let message: SipMessage;
  try {
    message = parseMessage(data, { datagram: options.datagram, limits: options.limits });
  } catch (err) {
    if (!(err instanceof SipParseError)) throw err;
    options.malformed(err.partial, err.message, err.status);
    return;
  }
  const problem = findEssentialProblem(message);
  if (problem !== undefined) {
    options.malformed(message, problem, 400);
    return;
  }
  const delegate = options.delegate;
  if (delegate === undefined) return;
  if (message.type === 'request') {
    const updated = applyReceived(message.topVia, options.context.source);
    if (updated !== undefined) message.replaceTopVia(updated);
    options.requestVia?.(message.topVia);
    delegate.onRequest(message, options.context);
  } else {
    delegate.onResponse(message, options.context);
  }
}

/**
 * A malformed request that can still be answered (§8.2, §21.4.1): one with the headers a response
 * needs. Anything else (a response, a request without them) is dropped.
 */
export function answerableRequest(partial: unknown): SipRequest | undefined {
  return partial instanceof SipRequest && canAnswer(partial) ? partial : undefined;
}

/** The answer to a malformed request, with a Warning saying what was wrong (§20.43; 399 = miscellaneous). */
export function malformedResponse(request: SipRequest, problem: string, status: number): SipResponse {
  return createResponse(request, status, {
    toTag: newTag(),
    headers: [['Warning', `399 switchboard "${problem.replace(/["\\]/g, '')}"`]],
  });
}
