/**
 * What a channel driver (the SIP driver) may use of the administrative services, narrowed to the
 * calls it needs; SwitchboardCore satisfies it, so the server passes the core.
 * - endpoint reachability, contact and peer status → EndpointStateChange, ContactStatusChange,
 *   PeerStatusChange and the derived device state (`SIP/alice`);
 * - outbound text messages (register a sender) and inbound ones (`received`);
 * - mailbox changes for MWI NOTIFYs, and the current counts when a phone subscribes;
 * - dynamic configuration objects (endpoints, aors, auths created through the API).
 */
import type { DynamicConfig } from '../dynamic-config/dynamic-config.js';
import type { MailboxRegistry } from '../mailboxes/mailbox-registry.js';
import type { EndpointStateReporter } from './endpoint-registry.js';
import type { TextMessageService } from './text-messages.js';

export interface DriverStateServices {
  readonly endpoints: EndpointStateReporter;
  readonly textMessages: Pick<TextMessageService, 'registerSender' | 'received'>;
  readonly mailboxes: Pick<MailboxRegistry, 'onMailboxChanged' | 'get'>;
  readonly dynamicConfig: Pick<DynamicConfig, 'onChange' | 'stored' | 'get'>;
}
