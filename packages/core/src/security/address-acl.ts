/**
 * Address access control lists as Asterisk writes them (acl.conf, and `permit`/`deny` in a
 * section): an ordered list of rules, each an address with a CIDR prefix or a dotted netmask
 * (`192.0.2.0/24`, `192.0.2.0/255.255.255.0`, `2001:db8::/32`, a single address). As in
 * Asterisk's ast_apply_ha, an address starts out permitted and every rule that matches it sets
 * the outcome, so the last matching rule decides: `deny = 0.0.0.0/0` then `permit = 10.0.0.0/8`
 * lets only 10/8 in. An empty list permits everything.
 */
import { isIP } from 'node:net';

export interface AclRule {
  readonly sense: 'permit' | 'deny';
  readonly family: 4 | 6;
  /** The network as bytes (4 or 16). */
  readonly network: Uint8Array;
  readonly prefix: number;
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
  return { sense, family, network: addressBytes(address, family), prefix, text: `${sense}=${trimmed}` };
}

/** Whether `address` (a socket address; IPv4-mapped IPv6 counts as IPv4) passes the rules. */
export function aclPermits(rules: readonly AclRule[], address: string): boolean {
  let permitted = true;
  for (const rule of rules) if (ruleMatches(rule, address)) permitted = rule.sense === 'permit';
  return permitted;
}

function ruleMatches(rule: AclRule, address: string): boolean {
  let candidate = address;
  let family = isIP(candidate);
  if (family === 6) {
    const lower = candidate.toLowerCase();
    if (lower.startsWith('::ffff:') && isIP(lower.slice(7)) === 4) {
      candidate = lower.slice(7);
      family = 4;
    }
  }
  if (family !== rule.family) return false;
  const bytes = addressBytes(candidate, family);
  let bits = rule.prefix;
  for (let i = 0; i < bytes.length && bits > 0; i++) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if ((bytes[i] & mask) !== (rule.network[i] & mask)) return false;
    bits -= 8;
  }
  return true;
}

function netmaskPrefix(text: string, mask: string): number {
  const bits = [...addressBytes(mask, 4)].map((byte) => byte.toString(2).padStart(8, '0')).join('');
  if (!/^1*0*$/.test(bits)) throw new AclSyntaxError(text, 'netmask is not contiguous');
  return bits.indexOf('0') === -1 ? 32 : bits.indexOf('0');
}

function addressBytes(address: string, family: 4 | 6): Uint8Array {
  if (family === 4) return Uint8Array.from(address.split('.').map(Number));
  const out = new Uint8Array(16);
  let text = address;
  const zone = text.indexOf('%');
  if (zone !== -1) text = text.slice(0, zone);
  // A trailing dotted quad (::ffff:192.0.2.1) becomes two groups.
  const lastColon = text.lastIndexOf(':');
  const tail = text.slice(lastColon + 1);
  if (tail.includes('.')) {
    const v4 = tail.split('.').map(Number);
    text = `${text.slice(0, lastColon + 1)}${((v4[0] << 8) | v4[1]).toString(16)}:${((v4[2] << 8) | v4[3]).toString(16)}`;
  }
  const [head, rest] = text.split('::') as [string, string | undefined];
  const headGroups = head === '' ? [] : head.split(':');
  const restGroups = rest === undefined || rest === '' ? [] : rest.split(':');
  const groups = [...headGroups, ...Array<string>(8 - headGroups.length - restGroups.length).fill('0'), ...restGroups];
  groups.forEach((group, i) => {
    const value = Number.parseInt(group, 16);
    out[i * 2] = value >> 8;
    out[i * 2 + 1] = value & 0xff;
  });
  return out;
}

/** A socket's peer address as the ACLs and limiters key it: `::ffff:192.0.2.1` → `192.0.2.1`. */
export function normaliseSocketAddress(address: string): string {
  const lower = address.toLowerCase();
  if (lower.startsWith('::ffff:') && isIP(lower.slice(7)) === 4) return lower.slice(7);
  return lower;
}
