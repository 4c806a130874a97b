/**
 * REFER outside a dialog (RFC 3515), sent for the API's `refer` / `referToEndpoint`: asks the
 * referred party (`to`: an endpoint's contacts or a `sip:` URI) to call the Refer-To target.
 *
 * The Refer-To is a `sip:` URI as given, or — for one of our endpoints — that endpoint's first
 * registered contact, or with `to_self` our own address with the endpoint's name as the user (the
 * referred party then calls this server, whose dialplan routes it). `Refer-Sub: false` (RFC 4488)
 * asks for no implicit subscription: nothing of ours would receive the NOTIFYs of an out-of-dialog
 * REFER. Variables become headers after the same checks as for MESSAGE.
 */
import { CoreError, type Logger, type OutboundRefer, type ReferSender, type SipEndpointConfig } from '@switchboard/core';
import { NameAddr } from '../../message/name-addr.js';
import { SipUri } from '../../message/uri.js';
import type { Transport } from '../../transport/transport.js';
import type { UserAgentCore } from '../../ua/user-agent-core.js';
import { type OutOfDialogOutcome, sendOutOfDialog } from './out-of-dialog.js';
import type { OutboundTarget } from '../calls/outbound-call.js';
import type { OutboundCredentials } from '../auth/outbound-auth.js';
import { fromParts, headersFromVariables, resolveDestination, type SipMessagingOptions, sipUri } from './text-messages.js';

export interface SipReferOptions extends Pick<SipMessagingOptions, 'endpoints' | 'contactsOf' | 'transportFor'> {
  readonly ua: UserAgentCore;
  readonly userAgent: string;
  readonly logger: Logger;
  credentialsFor?(endpoint: SipEndpointConfig): OutboundCredentials | undefined;
}

export class SipReferSender implements ReferSender {
  readonly #options: SipReferOptions;

  constructor(options: SipReferOptions) {
    this.#options = options;
  }

  async refer(request: OutboundRefer): Promise<void> {
    const headers = headersFromVariables(request.variables);
    const { endpoint, targets } = await resolveDestination(this.#options, request.destination);
    if (targets.length === 0) throw new CoreError('not_found', `endpoint '${request.destination}' has no reachable contact`);
    const from = fromParts(request.from);
    const outcomes = await Promise.all(
      targets.map(async (target) => {
        const transport = target.transport ?? this.#options.transportFor(endpoint, target.requestUri);
        if (transport === undefined) throw new CoreError('unavailable', 'no SIP transport is listening');
        const referTo = new NameAddr(await this.#referTarget(request, target, transport), request.displayName);
        return sendOutOfDialog(this.#options.ua, {
          method: 'REFER',
          target,
          transport,
          ...from,
          headers: [['Refer-To', referTo.toString()], ['Refer-Sub', 'false'], ['Supported', 'norefersub'], ...headers],
          userAgent: this.#options.userAgent,
          credentials: endpoint === undefined ? undefined : this.#options.credentialsFor?.(endpoint),
        });
      }),
    );
    if (!outcomes.some((o) => o.kind === 'response' && o.response.status < 300)) {
      this.#options.logger.info({ destination: request.destination, outcomes: outcomes.map(describe) }, 'REFER not accepted');
    }
  }

  async #referTarget(request: OutboundRefer, target: OutboundTarget, transport: Transport): Promise<SipUri> {
    const referTo = withoutTechnology(request.referTo.trim());
    if (/^sips?:/i.test(referTo)) return sipUri(referTo);
    const endpoint = this.#options.endpoints.get(referTo);
    if (endpoint === undefined) throw new CoreError('not_found', `refer_to: SIP endpoint '${referTo}' does not exist`);
    if (request.toSelf) {
      const host = await transport.advertisedHost(target.requestUri.host);
      return new SipUri({ user: endpoint.name, host, port: transport.localPort });
    }
    const contact = (await this.#options.contactsOf(endpoint))[0];
    if (contact === undefined) throw new CoreError('not_found', `refer_to: endpoint '${referTo}' has no reachable contact`);
    return contact.requestUri;
  }
}

/**
 * `pjsip:bob` → `bob`, `pjsip:sip:bob@host` → `sip:bob@host`; `sip:bob` (the technology `sip` and
 * an endpoint) → `bob`; `sip:bob@host` stays a URI.
 */
function withoutTechnology(text: string): string {
  const prefixed = /^(pjsip|sip):(.+)$/i.exec(text);
  if (!prefixed) return text;
  const rest = prefixed[2] as string;
  if ((prefixed[1] as string).toLowerCase() === 'pjsip' || /^sips?:/i.test(rest) || !rest.includes('@')) return rest;
  return text;
}

function describe(outcome: OutOfDialogOutcome): string | number {
  return outcome.kind === 'response' ? outcome.response.status : outcome.kind;
}
