/**
 * pjsip.conf `type=global` and the endpoint, identify and transport options that decide who a
 * request comes from and which addresses we show a peer behind NAT. Kept apart from
 * pjsip-config.ts, which reads each section type and merges these handlers in.
 *
 *   type = global     endpoint_identifier_order (default ip,username,anonymous, as in Asterisk),
 *                     default_realm, user_agent, keep_alive_interval (s, default 90), max_forwards (70)
 *   endpoint          identify_by, message_context, moh_suggest, media_address,
 *                     bind_rtp_to_media_address, accountcode, deny/permit (ACL)
 *   identify          match_header = Name: value
 *   transport         external_signaling_port, local_net (repeatable)
 */
import type { Logger } from '../util/logger.js';
import type { IniOption, IniSection } from './ini.js';
import { applyOptions } from './option-table.js';
import type { SipEndpointConfig, SipGlobalConfig, SipIdentifyBy, SipIdentifyConfig, SipTransportConfig } from './types.js';
import { invalid, parseBool, parseHost, parseInteger, parsePort, requireNonEmpty, splitList } from './values.js';

const IDENTIFIERS: readonly SipIdentifyBy[] = ['username', 'auth_username', 'ip', 'header', 'anonymous'];

export function defaultSipGlobal(): SipGlobalConfig {
  return { endpointIdentifierOrder: ['ip', 'username', 'anonymous'], keepAliveInterval: 90, maxForwards: 70 };
}

function parseIdentifiers(option: IniOption, allowed: readonly SipIdentifyBy[]): SipIdentifyBy[] {
  const out: SipIdentifyBy[] = [];
  for (const item of splitList(option.value.toLowerCase())) {
    const known = allowed.find((name) => name === item);
    if (known === undefined) throw invalid(option, `'${item}': expected ${allowed.join(', ')}`);
    if (!out.includes(known)) out.push(known);
  }
  if (out.length === 0) throw invalid(option, 'a value is required');
  return out;
}

export function readSipGlobal(section: IniSection, log: Logger): SipGlobalConfig {
  const global = defaultSipGlobal();
  applyOptions({
    section,
    log,
    ignore: ['type'],
    handlers: {
      endpoint_identifier_order: (o) => {
        global.endpointIdentifierOrder = parseIdentifiers(o, IDENTIFIERS);
      },
      default_realm: (o) => {
        global.defaultRealm = requireNonEmpty(o);
      },
      user_agent: (o) => {
        global.userAgent = requireNonEmpty(o);
      },
      keep_alive_interval: (o) => {
        global.keepAliveInterval = parseInteger(o, 0, 86_400);
      },
      max_forwards: (o) => {
        global.maxForwards = parseInteger(o, 1, 255);
      },
    },
  });
  return global;
}

/** `deny`/`permit` entries: an address or range (`10.0.0.0/8`, `10.0.0.0/255.0.0.0`). */
function aclEntries(option: IniOption, action: 'deny' | 'permit'): Array<{ action: 'deny' | 'permit'; range: string }> {
  return splitList(option.value).map((range) => {
    if (!/^[0-9a-fA-F:.]+(\/\d{1,3})?$/.test(range)) throw invalid(option, `'${range}' is not an address or range`);
    return { action, range };
  });
}

/** Endpoint options of this file, merged into readEndpoint's table. */
export function endpointIdentityHandlers(endpoint: SipEndpointConfig): Record<string, (o: IniOption) => void> {
  return {
    identify_by: (o) => {
      endpoint.identifyBy = parseIdentifiers(o, ['username', 'auth_username', 'ip', 'header']);
    },
    message_context: (o) => {
      endpoint.messageContext = requireNonEmpty(o);
    },
    moh_suggest: (o) => {
      endpoint.mohSuggest = requireNonEmpty(o);
    },
    media_address: (o) => {
      endpoint.mediaAddress = parseHost(o);
    },
    bind_rtp_to_media_address: (o) => {
      endpoint.bindRtpToMediaAddress = parseBool(o);
    },
    accountcode: (o) => {
      endpoint.accountCode = o.value.trim();
    },
    deny: (o) => {
      endpoint.acl = [...(endpoint.acl ?? []), ...aclEntries(o, 'deny')];
    },
    permit: (o) => {
      endpoint.acl = [...(endpoint.acl ?? []), ...aclEntries(o, 'permit')];
    },
  };
}

/** Identify options of this file, merged into readIdentify's table. */
export function identifyHeaderHandlers(identify: SipIdentifyConfig): Record<string, (o: IniOption) => void> {
  return {
    match_header: (o) => {
      const text = requireNonEmpty(o);
      const colon = text.indexOf(':');
      if (colon <= 0) throw invalid(o, 'expected Name: value');
      identify.matchHeader = { name: text.slice(0, colon).trim(), value: text.slice(colon + 1).trim() };
    },
  };
}

/** Transport options of this file, merged into readTransport's table. */
export function transportNatHandlers(transport: SipTransportConfig): Record<string, (o: IniOption) => void> {
  return {
    external_signaling_port: (o) => {
      transport.externalSignalingPort = parsePort(o);
    },
    local_net: (o) => {
      for (const net of splitList(o.value)) {
        if (!/^[0-9a-fA-F:.]+(\/\d{1,3})?$/.test(net)) throw invalid(o, `'${net}' is not a network`);
        transport.localNets = [...(transport.localNets ?? []), net];
      }
    },
  };
}
