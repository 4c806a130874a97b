/**
 * Who is calling: the chain of checks an inbound request passes before it becomes a call.
 * This slice identifies endpoints by source address (`type=identify`, `match = ...`); digest
 * authentication (`type=auth`) slots in as another `InboundAuthenticator` in the same chain.
 */
import type { Logger, SipEndpointConfig, SipIdentifyConfig } from '@switchboard/core';
import type { SipRequest } from '../../message/sip-message.js';
import type { PeerAddress } from '../../transport/transport.js';
import { type AddressRange, parseAddressRange, rangeContains } from './ip-match.js';

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

interface IdentifyRule {
  name: string;
  endpoint: string;
  ranges: AddressRange[];
}

/** `type=identify`: the first rule whose `match` covers the source address names the endpoint. */
export class IdentifyByAddress implements InboundAuthenticator {
  readonly #rules: IdentifyRule[];
  readonly #endpoints: ReadonlyMap<string, SipEndpointConfig>;
  readonly #log: Logger;

  constructor(identifies: readonly SipIdentifyConfig[], endpoints: readonly SipEndpointConfig[], log: Logger) {
    this.#log = log;
    this.#endpoints = new Map(endpoints.map((endpoint) => [endpoint.name, endpoint]));
    this.#rules = identifies.map((identify) => {
      const ranges: AddressRange[] = [];
      for (const entry of identify.match) {
        const range = parseAddressRange(entry);
        if (range === undefined) {
          log.warn({ identify: identify.name, match: entry }, 'identify match by host name is not supported yet; entry ignored');
        } else {
          ranges.push(range);
        }
      }
      if (!this.#endpoints.has(identify.endpoint)) {
        log.warn({ identify: identify.name, endpoint: identify.endpoint }, 'identify names an endpoint that is not configured');
      }
      return { name: identify.name, endpoint: identify.endpoint, ranges };
    });
  }

  authenticate(_request: SipRequest, source: PeerAddress): AuthOutcome {
    for (const rule of this.#rules) {
      if (!rule.ranges.some((range) => rangeContains(range, source.address))) continue;
      const endpoint = this.#endpoints.get(rule.endpoint);
      if (endpoint === undefined) {
        this.#log.info(
          { identify: rule.name, endpoint: rule.endpoint, source: source.address },
          'caller identified as an unknown endpoint',
        );
        return { kind: 'reject', status: 403 };
      }
      return { kind: 'accept', endpoint };
    }
    return { kind: 'continue' };
  }
}
