/**
 * Who is calling: the chain of checks an inbound request passes before it becomes a call. Each
 * link is an `InboundAuthenticator` (registration lines, then endpoint-identifier.ts, which
 * identifies in `endpoint_identifier_order` and checks the endpoint's digest).
 */
import type { SipEndpointConfig } from '@switchboard/core';
import type { SipRequest } from '../../message/sip-message.js';
import type { PeerAddress } from '../../transport/transport.js';

export type AuthOutcome =
  /** The request comes from this endpoint. */
  | { kind: 'accept'; endpoint: SipEndpointConfig }
  /** Refuse it with this response (a 401/407 challenge from a digest authenticator, a 403, ...). */
  | { kind: 'reject'; status: number; reason?: string; headers?: ReadonlyArray<readonly [string, string]> }
  /** This authenticator cannot tell; ask the next one. */
  | { kind: 'continue' };

export interface InboundAuthenticator {
  authenticate(request: SipRequest, source: PeerAddress): AuthOutcome | Promise<AuthOutcome>;
}

/** Runs the authenticators in order; when none can tell, the request is refused with 403. */
export async function authenticateInbound(
  authenticators: readonly InboundAuthenticator[],
  request: SipRequest,
  source: PeerAddress,
): Promise<Exclude<AuthOutcome, { kind: 'continue' }>> {
  for (const authenticator of authenticators) {
    const outcome = await authenticator.authenticate(request, source);
    if (outcome.kind !== 'continue') return outcome;
  }
  return { kind: 'reject', status: 403 };
}
