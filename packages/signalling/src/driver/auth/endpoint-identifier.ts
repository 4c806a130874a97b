/**
 * Who is calling, in the order the operator chose (pjsip.conf `[global]`
 * `endpoint_identifier_order`, default `ip,username,anonymous` as in Asterisk):
 *
 *   ip             a `type=identify` whose `match` covers the source address
 *   username       the From user names an endpoint that has an `auth` (unlike Asterisk, an
 *                  endpoint without a password is never chosen by a name the caller writes)
 *   auth_username  the From user is the `username` of an endpoint's auth
 *   header         a `type=identify` whose `match_header` the request carries
 *   anonymous      an endpoint named `anonymous` (none is shipped: unknown callers stay out)
 *
 * An identifier only picks endpoints whose `identify_by` lists it (default `username,ip`; the
 * identifier `auth_username` also counts for `username` endpoints whose auth has that name, as
 * phones that put the auth name in From expect). The first endpoint found is the caller; when it
 * has an `auth`, the request must then carry that auth's digest credentials (RFC 3261 §22), so an
 * address match never lets a request skip the password of the endpoint it names. The endpoint's
 * `deny`/`permit` ACL is checked last.
 *
 * Nothing identified: with digest phones configured the request is challenged like any other (so
 * the answer never tells whether a user exists), else refused with 403. Every refusal is logged
 * at warning level with its reason.
 */
import type { Logger, SipEndpointConfig, SipIdentifyBy, SipIdentifyConfig } from '@switchboard/core';
import type { SipRequest } from '../../message/sip-message.js';
import type { PeerAddress } from '../../transport/transport.js';
import type { DigestAuthenticator } from './digest-auth.js';
import type { AuthOutcome, InboundAuthenticator } from './identify.js';
import { type AddressRange, parseAddressRange, rangeContains } from './ip-match.js';

const DEFAULT_IDENTIFY_BY: readonly SipIdentifyBy[] = ['username', 'ip'];

interface AddressRule {
  name: string;
  endpoint: string;
  ranges: AddressRange[];
  header?: { name: string; value: string };
}

interface CompiledAcl {
  action: 'deny' | 'permit';
  range: AddressRange;
}

export interface EndpointIdentifierOptions {
  order: readonly SipIdentifyBy[];
  identifies: readonly SipIdentifyConfig[];
  endpoints: readonly SipEndpointConfig[];
  /** Present when some endpoint has `auth =`. */
  digest?: DigestAuthenticator;
  log: Logger;
}

export class EndpointIdentifier implements InboundAuthenticator {
  readonly #order: readonly SipIdentifyBy[];
  readonly #rules: AddressRule[];
  readonly #endpoints: ReadonlyMap<string, SipEndpointConfig>;
  readonly #acls = new Map<string, CompiledAcl[]>();
  readonly #digest: DigestAuthenticator | undefined;
  readonly #log: Logger;

  constructor(options: EndpointIdentifierOptions) {
    this.#order = options.order;
    this.#digest = options.digest;
    this.#log = options.log;
    this.#endpoints = new Map(options.endpoints.map((endpoint) => [endpoint.name, endpoint]));
    this.#rules = options.identifies.map((identify) => {
      if (!this.#endpoints.has(identify.endpoint)) {
        options.log.warn({ identify: identify.name, endpoint: identify.endpoint }, 'identify names an endpoint that is not configured');
      }
      const ranges: AddressRange[] = [];
      for (const entry of identify.match) {
        const range = parseAddressRange(entry);
        if (range === undefined) options.log.warn({ identify: identify.name, match: entry }, 'identify match is not an address; ignored');
        else ranges.push(range);
      }
      return {
        name: identify.name,
        endpoint: identify.endpoint,
        ranges,
        ...(identify.matchHeader ? { header: identify.matchHeader } : {}),
      };
    });
    for (const endpoint of options.endpoints) {
      if (endpoint.acl === undefined) continue;
      const compiled: CompiledAcl[] = [];
      for (const entry of endpoint.acl) {
        const range = parseAddressRange(entry.range);
        if (range === undefined) options.log.warn({ endpoint: endpoint.name, range: entry.range }, 'acl entry is not an address; ignored');
        else compiled.push({ action: entry.action, range });
      }
      this.#acls.set(endpoint.name, compiled);
    }
  }

  async authenticate(request: SipRequest, source: PeerAddress): Promise<AuthOutcome> {
    for (const identifier of this.#order) {
      const endpoint = this.#identify(identifier, request, source);
      if (endpoint === undefined) continue;
      return this.#verify(endpoint, identifier, request, source);
    }
    if (this.#digest !== undefined) {
      const outcome = this.#digest.authenticate(request, source, null);
      if (outcome.kind !== 'continue') return outcome;
    }
    return this.#refuse(request, source, 403, `no endpoint matched (endpoint_identifier_order = ${this.#order.join(',')})`);
  }

  #identify(identifier: SipIdentifyBy, request: SipRequest, source: PeerAddress): SipEndpointConfig | undefined {
    switch (identifier) {
      case 'ip':
        return this.#byRule(identifier, (rule) => rule.ranges.some((range) => rangeContains(range, source.address)));
      case 'header':
        return this.#byRule(identifier, (rule) => rule.header !== undefined && headerMatches(request, rule.header));
      case 'username': {
        // Only endpoints with an auth: a From user is anyone's to write, so an endpoint without a
        // password is reached by address (ip, header) alone.
        const user = fromUser(request);
        const endpoint = user === undefined ? undefined : this.#endpoints.get(user);
        return endpoint !== undefined && this.#digest?.hasAuth(endpoint) === true && identifiesBy(endpoint, 'username')
          ? endpoint
          : undefined;
      }
      case 'auth_username': {
        const user = fromUser(request);
        const endpoint = user === undefined ? undefined : this.#digest?.endpointForUsername(user);
        return endpoint !== undefined && identifiesBy(endpoint, 'auth_username') ? endpoint : undefined;
      }
      case 'anonymous':
        return this.#endpoints.get('anonymous');
    }
  }

  #byRule(identifier: SipIdentifyBy, matches: (rule: AddressRule) => boolean): SipEndpointConfig | undefined {
    for (const rule of this.#rules) {
      if (!matches(rule)) continue;
      const endpoint = this.#endpoints.get(rule.endpoint);
      if (endpoint !== undefined && identifiesBy(endpoint, identifier)) return endpoint;
    }
    return undefined;
  }

  #verify(endpoint: SipEndpointConfig, identifier: SipIdentifyBy, request: SipRequest, source: PeerAddress): AuthOutcome {
    if (!this.#aclAllows(endpoint, source.address)) {
      return this.#refuse(request, source, 403, `address refused by the ACL of endpoint '${endpoint.name}'`);
    }
    if (this.#digest === undefined || !this.#digest.hasAuth(endpoint)) return { kind: 'accept', endpoint };
    const outcome = this.#digest.authenticate(request, source, endpoint);
    if (outcome.kind === 'continue') return { kind: 'accept', endpoint };
    if (outcome.kind === 'reject' && outcome.status !== 401) {
      this.#log.warn(
        { method: request.method, source: source.address, endpoint: endpoint.name, identifiedBy: identifier, status: outcome.status },
        'request refused: authentication failed',
      );
    }
    return outcome;
  }

  /** Asterisk's ACL: entries apply in order, the last one that covers the address decides. */
  #aclAllows(endpoint: SipEndpointConfig, address: string): boolean {
    const acl = this.#acls.get(endpoint.name);
    if (acl === undefined) return true;
    let allowed = true;
    for (const entry of acl) if (rangeContains(entry.range, address)) allowed = entry.action === 'permit';
    return allowed;
  }

  #refuse(request: SipRequest, source: PeerAddress, status: number, reason: string): AuthOutcome {
    this.#log.warn(
      { method: request.method, source: `${source.address}:${source.port}`, from: fromUser(request), status },
      `request refused: ${reason}`,
    );
    return { kind: 'reject', status };
  }
}

function identifiesBy(endpoint: SipEndpointConfig, identifier: SipIdentifyBy): boolean {
  const by = endpoint.identifyBy ?? DEFAULT_IDENTIFY_BY;
  if (identifier === 'auth_username') return by.includes('auth_username') || by.includes('username');
  return by.includes(identifier);
}

function fromUser(request: SipRequest): string | undefined {
  const uri = request.from.uri;
  return uri.kind === 'sip' ? uri.user : undefined;
}

function headerMatches(request: SipRequest, header: { name: string; value: string }): boolean {
  return request.getHeaderFields(header.name).some((value) => value.trim() === header.value);
}
