/**
 * Address access control lists as Asterisk writes them (acl.conf, and `permit`/`deny` in a
 * section): an ordered list of rules, each an address with a CIDR prefix or a dotted netmask
 * (`192.0.2.0/24`, `192.0.2.0/255.255.255.0`, `2001:db8::/32`, a single address). As in
 * Asterisk's ast_apply_ha, an address starts out permitted and every rule that matches it sets
 * the outcome, so the last matching rule decides: `deny = 0.0.0.0/0` then `permit = 10.0.0.0/8`
 * lets only 10/8 in. An empty list permits everything.
 */
import { isIP } from 'node:net';
import { type AddressRange, parseAddressRange, rangeContains } from './address-range.js';

export interface AclRule extends AddressRange {
  readonly sense: 'permit' | 'deny';
  /** The rule as written, for logs. */
  readonly text: string;
}

export class AclSyntaxError extends Error {
  constructor(text: string, reason: string) {
    super(`'${text}': ${reason}`);
    this.name = 'AclSyntaxError';
  }
}

/** Parses one `permit`/`deny` value; throws AclSyntaxError for anything that is not an address range. */
export function parseAclRule(sense: 'permit' | 'deny', text: string): AclRule {
  const trimmed = text.trim();
  const slash = trimmed.indexOf('/');
  const address = slash === -1 ? trimmed : trimmed.slice(0, slash);
  const family = isIP(address);
  if (family !== 4 && family !== 6) throw new AclSyntaxError(trimmed, 'expected an IPv4 or IPv6 address');
  const max = family === 4 ? 32 : 128;
  let prefix = max;
  if (slash !== -1) {
    const mask = trimmed.slice(slash + 1);
    if (/^\d{1,3}$/.test(mask)) prefix = Number(mask);
    else if (family === 4 && isIP(mask) === 4) prefix = netmaskPrefix(trimmed, mask);
    else throw new AclSyntaxError(trimmed, 'expected a prefix length or a dotted netmask');
    if (prefix > max) throw new AclSyntaxError(trimmed, `prefix longer than ${max}`);
  }
  const range = parseAddressRange(`${address}/${prefix}`);
  if (range === undefined) throw new AclSyntaxError(trimmed, 'not an address range');
  return { ...range, sense, text: `${sense}=${trimmed}` };
}

/** Whether `address` (a socket address; IPv4-mapped IPv6 counts as IPv4) passes the rules. */
export function aclPermits(rules: readonly AclRule[], address: string): boolean {
  let permitted = true;
  for (const rule of rules) if (rangeContains(rule, address)) permitted = rule.sense === 'permit';
  return permitted;
}

function netmaskPrefix(text: string, mask: string): number {
  const bits = mask
    .split('.')
    .map((byte) => Number(byte).toString(2).padStart(8, '0'))
    .join('');
  if (!/^1*0*$/.test(bits)) throw new AclSyntaxError(text, 'netmask is not contiguous');
  return bits.indexOf('0') === -1 ? 32 : bits.indexOf('0');
}

/** A socket's peer address as the ACLs and limiters key it: `::ffff:192.0.2.1` → `192.0.2.1`. */
export function normaliseSocketAddress(address: string): string {
  const lower = address.toLowerCase();
  if (lower.startsWith('::ffff:') && isIP(lower.slice(7)) === 4) return lower.slice(7);
  return lower;
}
