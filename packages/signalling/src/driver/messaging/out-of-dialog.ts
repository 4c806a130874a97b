/**
 * Non-INVITE requests outside any dialog that the PBX sends on its own: MESSAGE (RFC 3428),
 * OPTIONS pings (qualify, RFC 3261 §11) and unsolicited NOTIFY (message-summary). Each gets its own
 * Call-ID, From tag and client transaction (RFC 3261 §8.1.1), is routed by the target's Path and
 * NAT flow like an outbound INVITE, and resolves with the final response, a timeout (Timer F) or
 * a transport error. A 401/407 is answered with the endpoint's `outbound_auth` credentials when given
 * (outbound-auth.ts).
 */
import { newBranch, newCallId, newTag } from '../../message/ids.js';
import { NameAddr, parseNameAddr } from '../../message/name-addr.js';
import { SipRequest, type SipResponse, headerFields } from '../../message/sip-message.js';
import { SipUri } from '../../message/uri.js';
import { Via } from '../../message/via.js';
import type { Transport } from '../../transport/transport.js';
import type { UserAgentCore } from '../../ua/user-agent-core.js';
import type { OutboundTarget } from '../calls/outbound-call.js';
import { authorizedAttempt, ChallengeResponder, type OutboundCredentials } from '../auth/outbound-auth.js';

export type OutOfDialogOutcome =
  | { kind: 'response'; response: SipResponse }
  | { kind: 'timeout' }
  | { kind: 'transport-error'; error: unknown };

export interface OutOfDialogRequest {
  method: string;
  target: OutboundTarget;
  transport: Transport;
  /** The From user (our side); the host is the address the peer reaches us on. */
  fromUser?: string;
  fromDisplayName?: string;
  /** A full From URI instead of `fromUser@<our host>`. */
  fromUri?: SipUri;
  headers?: ReadonlyArray<readonly [string, string]>;
  body?: Buffer;
  contentType?: string;
  userAgent: string;
  /** Answers a 401/407 (pjsip.conf `outbound_auth` of the endpoint the request goes to). */
  credentials?: OutboundCredentials | undefined;
}

/** Builds and sends the request; never throws for network trouble (the outcome says it). */
export async function sendOutOfDialog(ua: UserAgentCore, spec: OutOfDialogRequest): Promise<OutOfDialogOutcome> {
  const { target, transport } = spec;
  const route = target.route ?? [];
  const firstRoute = route[0] === undefined ? undefined : parseNameAddr(route[0]).uri;
  const routed = firstRoute !== undefined && firstRoute.kind === 'sip' ? firstRoute : target.requestUri;
  const nextHop = target.flow === undefined ? routed : new SipUri({ host: target.flow.address, port: target.flow.port });
  const localHost = await transport.advertisedHost(nextHop.host);

  const fromUri = spec.fromUri?.clone() ?? new SipUri({ host: localHost, user: spec.fromUser ?? 'switchboard' });
  const from = new NameAddr(fromUri, spec.fromDisplayName, new Map([['tag', newTag()]]));
  const toUri = (target.toUri ?? target.requestUri).clone();
  toUri.params.clear();
  toUri.headers = undefined;
  const requestUri = target.requestUri.clone();
  requestUri.headers = undefined;
  const via = new Via(
    transport.viaTransport,
    localHost,
    transport.localPort,
    new Map([
      ['branch', newBranch()],
      ['rport', null],
    ]),
  );
  const request = new SipRequest(
    spec.method,
    requestUri,
    headerFields([
      ['Via', via.toString()],
      ['Max-Forwards', '70'],
      ['From', from.toString()],
      ['To', new NameAddr(toUri).toString()],
      ['Call-ID', newCallId(localHost)],
      ['CSeq', `${Math.floor(Math.random() * 0x7fff) + 1} ${spec.method}`],
      ...route.map((value) => ['Route', value] as const),
      ['User-Agent', spec.userAgent],
      ...(spec.headers ?? []),
    ]),
  );
  if (spec.body !== undefined && spec.body.length > 0) {
    request.addHeader('Content-Type', spec.contentType ?? 'text/plain');
    request.body = spec.body;
  }
  const responder = spec.credentials === undefined ? undefined : new ChallengeResponder(spec.credentials);
  return new Promise((resolve) => {
    const send = (attempt: SipRequest) =>
      ua.sendRequest(attempt, transport, nextHop, {
        onResponse: (response) => {
          if (response.status < 200) return;
          const retry = response.status === 401 || response.status === 407 ? authorizedAttempt(attempt, response, responder) : undefined;
          if (retry !== undefined) send(retry);
          else resolve({ kind: 'response', response });
        },
        onTimeout: () => resolve({ kind: 'timeout' }),
        onTransportError: (error) => resolve({ kind: 'transport-error', error }),
      });
    send(request);
  });
}
