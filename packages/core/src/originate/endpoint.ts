/**
 * Dial strings of the API: `SIP/alice`, `PJSIP/alice` (alias), `SIP/alice/sip:alice@192.0.2.5`,
 * `SIP/trunk/5551234`. The technology is everything before the first slash; the driver reads the rest.
 */
import { invalidArgument } from '../errors.js';

export interface EndpointReference {
  technology: string;
  resource: string;
}

/** Undefined when `text` is not `tech/resource` with both parts present. */
export function splitEndpoint(text: string): EndpointReference | undefined {
  const slash = text.indexOf('/');
  if (slash <= 0 || slash === text.length - 1) return undefined;
  return { technology: text.slice(0, slash), resource: text.slice(slash + 1) };
}

export function parseEndpoint(text: string | undefined): EndpointReference {
  if (text === undefined || text.trim() === '') throw invalidArgument('Endpoint must be specified');
  const endpoint = splitEndpoint(text.trim());
  if (!endpoint) throw invalidArgument(`Endpoint '${text}' is not of the form technology/resource`);
  return endpoint;
}
