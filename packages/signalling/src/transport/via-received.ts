/**
 * Receiver-side Via processing and response routing for unreliable transports.
 */
import { isIP } from 'node:net';
import type { Via } from '../message/via.js';
import type { PeerAddress } from './transport.js';

/**
 * RFC 3261 §18.2.1: add `received` when the sent-by host is a name or an address other than the
 * packet's source. RFC 3581 §4: when the client asked for `rport` (parameter without a value),
 * fill in the source port and always add `received`. `forceRport` applies the same as if it had
 * asked (what operators know as force_rport, for clients behind NAT that do not ask).
 * Returns a changed copy, or undefined when nothing changes.
 */
export function applyReceived(via: Via, source: PeerAddress, forceRport = false): Via | undefined {
  const wantsRport = via.rport === null || (forceRport && via.rport === undefined);
  const differs = !sameAddress(via.host, source.address);
  if (!wantsRport && !differs) return undefined;
  const updated = via.clone();
  if (differs || wantsRport) updated.params.set('received', source.address);
  if (wantsRport) updated.params.set('rport', String(source.port));
  return updated;
}

/**
 * RFC 3261 §18.2.2 for unreliable unicast transports, with RFC 3581 §4: a response goes to
 * `received` (at `rport` when filled in) or else to the sent-by; `maddr` wins when present.
 * A host name left in the result is resolved by the transport (RFC 3263 §5).
 */
export function responseDestination(via: Via): PeerAddress {
  const defaultPort = via.port ?? 5060;
  const maddr = via.maddr;
  if (maddr !== undefined) return { address: stripBrackets(maddr), port: defaultPort };
  const received = via.received;
  const rport = via.rport;
  if (received !== undefined) {
    return { address: stripBrackets(received), port: typeof rport === 'number' ? rport : defaultPort };
  }
  return { address: via.host, port: typeof rport === 'number' ? rport : defaultPort };
}

function stripBrackets(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

/** Compares an address as written in a header with a socket address (IPv4-mapped IPv6 equals IPv4). */
export function sameAddress(written: string, actual: string): boolean {
  const a = normaliseAddress(stripBrackets(written));
  const b = normaliseAddress(actual);
  if (a === b) return true;
  if (isIP(a) === 6 && isIP(b) === 6) return expandIPv6(a) === expandIPv6(b);
  return false;
}

/** `::ffff:192.0.2.1` → `192.0.2.1`; other addresses lower-cased. */
export function normaliseAddress(address: string): string {
  const lower = address.toLowerCase();
  if (lower.startsWith('::ffff:') && isIP(lower.slice(7)) === 4) return lower.slice(7);
  return lower;
}

function expandIPv6(address: string): string {
  const [head, tail] = address.split('::') as [string, string | undefined];
  const headParts = head === '' ? [] : head.split(':');
  const tailParts = tail === undefined || tail === '' ? [] : tail.split(':');
  const missing = 8 - headParts.length - tailParts.length;
  const parts = [...headParts, ...Array<string>(Math.max(missing, 0)).fill('0'), ...tailParts];
  return parts.map((p) => p.replace(/^0+(?=.)/, '')).join(':');
}
