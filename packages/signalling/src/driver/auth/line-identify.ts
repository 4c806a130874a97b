/**
 * Identifying requests by the `line` token of an outbound registration (pjsip.conf
 * `type=registration`, `line = yes`, `endpoint = trunk`): the Contact we register carries
 * `;line=<token>`, so a request the provider sends to it carries the token in its Request-URI and
 * belongs to the registration's endpoint, whatever address it comes from.
 */
import { randomBytes } from 'node:crypto';
import type { SipEndpointConfig, SipRegistrationConfig } from '@switchboard/core';
import type { SipRequest } from '../../message/sip-message.js';
import type { AuthOutcome, InboundAuthenticator } from './identify.js';

export class IdentifyByLine implements InboundAuthenticator {
  /** line token → endpoint name */
  readonly #lines = new Map<string, string>();
  /** registration name → its line token */
  readonly #tokens = new Map<string, string>();
  readonly #endpoints: ReadonlyMap<string, SipEndpointConfig>;

  constructor(registrations: readonly SipRegistrationConfig[], endpoints: ReadonlyMap<string, SipEndpointConfig>) {
    this.#endpoints = endpoints;
    for (const registration of registrations) {
      if (registration.line !== true || registration.endpoint === undefined) continue;
      // Unguessable, so that the token alone cannot be used to pass as the provider.
      const token = randomBytes(8).toString('hex');
      this.#lines.set(token, registration.endpoint);
      this.#tokens.set(registration.name, token);
    }
  }

  /** The token a registration's Contact carries, if it uses `line`. */
  tokenFor(registration: string): string | undefined {
    return this.#tokens.get(registration);
  }

  authenticate(request: SipRequest, _source: unknown): AuthOutcome {
    if (this.#lines.size === 0) return { kind: 'continue' };
    let token: string | null | undefined;
    try {
      const uri = request.uri;
      token = uri.kind === 'sip' ? uri.params.get('line') : undefined;
    } catch {
      return { kind: 'continue' };
    }
    if (typeof token !== 'string') return { kind: 'continue' };
    const name = this.#lines.get(token.toLowerCase());
    const endpoint = name === undefined ? undefined : this.#endpoints.get(name);
    return endpoint === undefined ? { kind: 'continue' } : { kind: 'accept', endpoint };
  }
}
