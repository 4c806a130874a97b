/**
 * Out-of-call text messages over SIP MESSAGE (RFC 3428), both ways.
 *
 * Inbound: a MESSAGE outside any dialog passes the same authenticator chain as INVITE and REGISTER
 * (identify by address, then digest), so only a known endpoint can send one. It is answered 202
 * Accepted (RFC 3428 §7: we are not the final recipient, the application is) and handed to the sink
 * with its `X-` headers as variables.
 *
 * Outbound: the sender core calls for technology `SIP`. The destination is `alice` (every contact of
 * the endpoint's AORs), `alice/sip:alice@192.0.2.5` (that URI, through alice's transport) or a bare
 * `sip:` URI. Variables become headers after validation (a header name must be a token and may not
 * replace one the stack writes; a value may not carry CR, LF or NUL).
 */
import { CoreError, type Logger, type OutboundTextMessage, type SipEndpointConfig } from '@switchboard/core';
import { SipParseError } from '../../errors.js';
import { createResponse } from '../../message/builders.js';
import { newTag } from '../../message/ids.js';
import { parseNameAddr } from '../../message/name-addr.js';
import type { SipRequest } from '../../message/sip-message.js';
import { parseUri, type SipUri } from '../../message/uri.js';
import type { ServerTransaction } from '../../transaction/transaction-layer.js';
import type { IncomingContext, Transport } from '../../transport/transport.js';
import type { UserAgentCore } from '../../ua/user-agent-core.js';
import { authenticateInbound, type InboundAuthenticator } from '../auth/identify.js';
import { type OutOfDialogOutcome, sendOutOfDialog } from './out-of-dialog.js';
import type { OutboundTarget } from '../calls/outbound-call.js';
import type { OutboundCredentials } from '../auth/outbound-auth.js';

/**
 * RFC 3428 §7 caps a MESSAGE outside a congestion-controlled transport at 1300 bytes; we accept up
 * to this much on any transport (a stream may carry more), and refuse bigger bodies with 413.
 */
export const MAX_TEXT_BODY_BYTES = 8192;
/** At most this many variables become headers, and X- headers variables. */
const MAX_VARIABLES = 32;
const MAX_VARIABLE_VALUE = 1024;
const TOKEN = /^[A-Za-z0-9.!%*_+`'~-]{1,64}$/;
/** Headers the stack writes itself; a variable may not set them. */
const RESERVED_HEADERS = new Set([
  'via',
  'v',
  'from',
  'f',
  'to',
  't',
  'call-id',
  'i',
  'cseq',
  'max-forwards',
  'content-length',
  'l',
  'content-type',
  'c',
  'route',
  'record-route',
  'contact',
  'm',
  'user-agent',
  'authorization',
  'proxy-authorization',
]);

/** Where inbound messages go (core's `textMessages.received` with the technology bound). */
export interface InboundTextMessageSink {
  received(endpoint: string, message: { from: string; to: string; body: string; variables: Record<string, string> }): void;
}

export interface SipMessagingOptions {
  ua: UserAgentCore;
  authenticators: readonly InboundAuthenticator[];
  endpoints: ReadonlyMap<string, SipEndpointConfig>;
  /** The endpoint's targets: every live registered contact, then static ones. */
  contactsOf(endpoint: SipEndpointConfig): Promise<OutboundTarget[]>;
  transportFor(endpoint: SipEndpointConfig | undefined, uri?: SipUri): Transport | undefined;
  sink: InboundTextMessageSink | undefined;
  userAgent: string;
  logger: Logger;
  /** Answers a challenged MESSAGE to the endpoint (its `outbound_auth`). */
  credentialsFor?(endpoint: SipEndpointConfig): OutboundCredentials | undefined;
}

export class SipMessaging {
  readonly #options: SipMessagingOptions;
  readonly #log: Logger;

  constructor(options: SipMessagingOptions) {
    this.#options = options;
    this.#log = options.logger;
  }

  /** An out-of-dialog MESSAGE (the UA core's delegate hands it here). */
  handleMessage(request: SipRequest, context: IncomingContext, transaction: ServerTransaction): void {
    this.#receive(request, context, transaction).catch((err: unknown) => {
      this.#log.error({ err, callId: request.callId }, 'MESSAGE handling failed');
      this.#respond(transaction, request, 500);
    });
  }

  async #receive(request: SipRequest, context: IncomingContext, transaction: ServerTransaction): Promise<void> {
    const auth = await authenticateInbound(this.#options.authenticators, request, context.source);
    if (auth.kind === 'reject') {
      this.#respond(transaction, request, auth.status, auth.headers ?? [], auth.reason);
      return;
    }
    if (request.body.length > MAX_TEXT_BODY_BYTES) {
      this.#respond(transaction, request, 413);
      return;
    }
    const type = request.contentType;
    // RFC 3428 §7: a body type we cannot show gets 415 with what we accept.
    if (request.body.length > 0 && type !== undefined && type !== 'text/plain') {
      this.#respond(transaction, request, 415, [['Accept', 'text/plain']]);
      return;
    }
    this.#respond(transaction, request, 202);
    const sink = this.#options.sink;
    if (sink === undefined) return;
    const from = request.from;
    const fromUri = from.uri.toString();
    const variables: Record<string, string> = {};
    let count = 0;
    for (const field of request.headers) {
      if (!/^x-/i.test(field.name) || count >= MAX_VARIABLES) continue;
      variables[field.name] = field.value.slice(0, MAX_VARIABLE_VALUE);
      count++;
    }
    try {
      sink.received(auth.endpoint.name, {
        from: from.displayName === undefined ? `<${fromUri}>` : `"${from.displayName.replace(/["\\]/g, '')}" <${fromUri}>`,
        to: request.to.uri.toString(),
        body: request.bodyText,
        variables,
      });
    } catch (err) {
      this.#log.error({ err }, 'text message listener failed');
    }
  }

  /** core's TextMessageSender for technology SIP. */
  readonly sender = {
    send: (message: OutboundTextMessage): Promise<void> => this.send(message),
  };

  async send(message: OutboundTextMessage): Promise<void> {
    const body = Buffer.from(message.body, 'utf8');
    if (body.length > MAX_TEXT_BODY_BYTES) {
      throw new CoreError('invalid_argument', `message body exceeds ${MAX_TEXT_BODY_BYTES} bytes`);
    }
    const headers = headersFromVariables(message.variables);
    const { endpoint, targets } = await this.#resolve(message.destination);
    if (targets.length === 0) throw new CoreError('not_found', `endpoint '${message.destination}' has no reachable contact`);
    const from = fromParts(message.from);
    const outcomes = await Promise.all(
      targets.map(async (target) => {
        const transport = target.transport ?? this.#options.transportFor(endpoint, target.requestUri);
        if (transport === undefined) throw new CoreError('unavailable', 'no SIP transport is listening');
        return sendOutOfDialog(this.#options.ua, {
          method: 'MESSAGE',
          target,
          transport,
          ...from,
          headers,
          body,
          contentType: 'text/plain;charset=UTF-8',
          userAgent: this.#options.userAgent,
          credentials: endpoint === undefined ? undefined : this.#options.credentialsFor?.(endpoint),
        });
      }),
    );
    const delivered = outcomes.some((o) => o.kind === 'response' && o.response.status < 300);
    if (!delivered) {
      this.#log.info({ destination: message.destination, outcomes: outcomes.map(describe) }, 'MESSAGE not accepted');
    }
  }

  #resolve(destination: string): Promise<{ endpoint: SipEndpointConfig | undefined; targets: OutboundTarget[] }> {
    return resolveDestination(this.#options, destination);
  }

  #respond(
    transaction: ServerTransaction,
    request: SipRequest,
    status: number,
    headers: ReadonlyArray<readonly [string, string]> = [],
    reason?: string,
  ): void {
    transaction.respond(
      createResponse(request, status, {
        toTag: newTag(),
        ...(reason !== undefined ? { reason } : {}),
        headers: [...headers, ['Server', this.#options.userAgent]],
      }),
    );
  }
}

/**
 * Where an out-of-call request goes: `alice` (every contact of the endpoint's AORs),
 * `alice/sip:alice@192.0.2.5` (that URI, through alice's transport) or a bare `sip:` URI.
 */
export async function resolveDestination(
  options: Pick<SipMessagingOptions, 'endpoints' | 'contactsOf' | 'transportFor'>,
  destination: string,
): Promise<{ endpoint: SipEndpointConfig | undefined; targets: OutboundTarget[] }> {
  if (/^sips?:/i.test(destination)) return { endpoint: undefined, targets: [{ requestUri: sipUri(destination) }] };
  const slash = destination.indexOf('/');
  const name = slash === -1 ? destination : destination.slice(0, slash);
  const endpoint = options.endpoints.get(name);
  if (endpoint === undefined) throw new CoreError('not_found', `SIP endpoint '${name}' does not exist`);
  if (slash !== -1) {
    const uri = sipUri(destination.slice(slash + 1));
    return { endpoint, targets: [{ requestUri: uri, transport: options.transportFor(endpoint, uri) }] };
  }
  return { endpoint, targets: await options.contactsOf(endpoint) };
}

function describe(outcome: OutOfDialogOutcome): string | number {
  return outcome.kind === 'response' ? outcome.response.status : outcome.kind;
}

export function sipUri(text: string): SipUri {
  try {
    const uri = parseUri(text);
    if (uri.kind === 'sip') return uri;
  } catch (err) {
    if (!(err instanceof SipParseError)) throw err;
  }
  throw new CoreError('invalid_argument', `invalid SIP URI '${text}'`);
}

/**
 * The From of an outbound message: a name-addr or URI as given (`"Bob" <sip:bob@host>`), else a
 * plain user name written at our own host. Anything else is refused.
 */
export function fromParts(from: string): { fromUri?: SipUri; fromUser?: string; fromDisplayName?: string } {
  const text = from.trim();
  if (text === '') return { fromUser: 'switchboard' };
  if (/[\r\n\0]/.test(text)) throw new CoreError('invalid_argument', "'from' may not contain control characters");
  if (/sips?:/i.test(text)) {
    try {
      const parsed = parseNameAddr(text.includes('<') ? text : `<${text}>`);
      if (parsed.uri.kind === 'sip') {
        return { fromUri: parsed.uri, ...(parsed.displayName !== undefined ? { fromDisplayName: parsed.displayName } : {}) };
      }
    } catch (err) {
      if (!(err instanceof SipParseError)) throw err;
    }
    throw new CoreError('invalid_argument', `invalid 'from' URI '${from}'`);
  }
  if (!/^[A-Za-z0-9._~!$&'()*+,;=-]{1,64}$/.test(text)) throw new CoreError('invalid_argument', `invalid 'from' user '${from}'`);
  return { fromUser: text };
}

/** Variables → extra headers, validated (no header injection, no override of the stack's own). */
export function headersFromVariables(variables: Record<string, string>): Array<[string, string]> {
  const entries = Object.entries(variables);
  if (entries.length > MAX_VARIABLES) throw new CoreError('invalid_argument', `at most ${MAX_VARIABLES} variables`);
  const headers: Array<[string, string]> = [];
  for (const [name, value] of entries) {
    if (!TOKEN.test(name)) throw new CoreError('invalid_argument', `'${name}' is not a valid SIP header name`);
    if (RESERVED_HEADERS.has(name.toLowerCase())) throw new CoreError('invalid_argument', `header '${name}' cannot be set`);
    if (typeof value !== 'string' || /[\r\n\0]/.test(value) || value.length > MAX_VARIABLE_VALUE) {
      throw new CoreError('invalid_argument', `invalid value for header '${name}'`);
    }
    headers.push([name, value]);
  }
  return headers;
}
