/**
 * Receiver-side Via processing and response routing for unreliable transports.
 */
import { isIP } from 'node:net';
import type { Via } from '../message/via.js';
import type { PeerAddress } from './transport.js';

/**
 * RFC 3261 §18.2.1 with RFC 3581 §4, hardened: `received` is always set to the packet's source,
 * replacing whatever the sender wrote there, and an `rport` the client asked for (or wrote a value
 * into) is set to the source port. A response therefore never goes to an address the sender chose
 * (a reflection attack on a third party), only back to where the request came from. `forceRport`
 * applies the same as if it had asked (what operators know as force_rport, for clients behind
 * NAT that do not ask). Returns a changed copy, or undefined when nothing changes.
 */
export function applyReceived(via: Via, source: PeerAddress, forceRport = false): Via | undefined {
  const wantsRport = via.rport !== undefined || forceRport;
  const differs = !sameAddress(via.host, source.address);
  const written = via.received;
  const receivedWrong = written !== undefined ? !sameAddress(written, source.address) : differs || wantsRport;
  const rportWrong = wantsRport && via.rport !== source.port;
  if (!receivedWrong && !rportWrong && !via.params.has('maddr')) return undefined;
  const updated = via.clone();
  if (receivedWrong || written !== undefined) updated.params.set('received', source.address);
  if (wantsRport) updated.params.set('rport', String(source.port));
  // maddr is for multicast (§18.2.2); a unicast server does not let the sender redirect its answers.
  updated.params.delete('maddr');
  return updated;
}

/**
 * RFC 3261 §18.2.2 for unreliable unicast transports, with RFC 3581 §4: a response goes to
 * `received` (at `rport` when filled in) or else to the sent-by. `maddr` is ignored: the receive
 * path has removed it and always written `received` (see applyReceived), so no response is sent
 * where a sender told us to send it rather than where it is.
 * A host name left in the result is resolved by the transport (RFC 3263 §5).
 */
export function responseDestination(via: Via): PeerAddress {
  const defaultPort = via.port ?? 5060;
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
