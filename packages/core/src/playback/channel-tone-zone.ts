/**
 * A channel's tone zone: the indications.conf zone its ringback, busy and congestion tones and its
 * `tone:` playbacks come from when they name none. The channel variable TONEZONE wins (set from
 * the dialplan or the API), then the `tone_zone` of the channel's pjsip.conf endpoint; absent
 * both, the default zone (indications.conf `country`) applies.
 */
import type { SipEndpointConfig } from '../config/types.js';

export const TONE_ZONE_VARIABLE = 'TONEZONE';
/** Channels whose endpoint is a pjsip.conf endpoint. */
const SIP_TECHNOLOGIES: readonly string[] = ['SIP', 'PJSIP'];

export interface ToneZoneChannel {
  readonly technology: string;
  readonly endpoint: string;
  getVariable(name: string): string | undefined;
}

/** The channel's zone in lower case, or undefined for the default zone. */
export function channelToneZone(channel: ToneZoneChannel, endpoints: readonly SipEndpointConfig[]): string | undefined {
  const variable = channel.getVariable(TONE_ZONE_VARIABLE)?.trim();
  if (variable !== undefined && variable.length > 0) return variable.toLowerCase();
  if (!SIP_TECHNOLOGIES.includes(channel.technology.toUpperCase())) return undefined;
  return endpoints.find((endpoint) => endpoint.name === channel.endpoint)?.toneZone;
}
