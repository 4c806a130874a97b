/**
 * manager.conf `deny`/`permit` lines of a user: `ADDRESS[/MASK]` where MASK is a prefix length or
 * a dotted netmask. Rules apply in the order written; the last one that matches decides, and an
 * address no rule matches is allowed (the original's host-access rules).
 */
import { BlockList, isIP } from 'node:net';

export interface AclRule {
  sense: 'permit' | 'deny';
  /** As written, for messages. */
  text: string;
  readonly list: BlockList;
}

export class AclError extends Error {}

/** `::ffff:127.0.0.1` (a v4 peer on a dual-stack socket) → `127.0.0.1`. */
export function normalizeAddress(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return mapped?.[1] ?? address;
}

function prefixFromNetmask(mask: string): number {
  const octets = mask.split('.').map(Number);
  if (octets.length !== 4 || octets.some((o) => !Number.isInteger(o) || o < 0 || o > 255)) {
    throw new AclError(`invalid netmask ${mask}`);
  }
  const bits = octets.reduce((acc, o) => acc * 256 + o, 0);
  let prefix = 0;
  while (prefix < 32 && bits & (2 ** (31 - prefix))) prefix += 1;
  // Every bit after the first zero must be zero too (255.0.255.0 is no netmask).
  if (bits !== (prefix === 0 ? 0 : 2 ** 32 - 2 ** (32 - prefix))) throw new AclError(`invalid netmask ${mask}`);
  return prefix;
}

export function parseAclRule(sense: AclRule['sense'], text: string): AclRule {
  const [address = '', mask] = text.trim().split('/');
  const family = isIP(address);
  if (family === 0) throw new AclError(`invalid address ${address}`);
  const max = family === 4 ? 32 : 128;
  let prefix = max;
  if (mask !== undefined && mask !== '') {
    if (/^\d+$/.test(mask)) prefix = Number(mask);
    else if (family === 4) prefix = prefixFromNetmask(mask);
    else throw new AclError(`invalid prefix length ${mask}`);
    if (prefix > max) throw new AclError(`prefix length ${prefix} is longer than ${max}`);
  }
  const list = new BlockList();
  list.addSubnet(address, prefix, family === 4 ? 'ipv4' : 'ipv6');
  return { sense, text: text.trim(), list };
}

/** True when the rules let `address` in. */
export function aclAllows(rules: readonly AclRule[], address: string): boolean {
  const peer = normalizeAddress(address);
  const family = isIP(peer) === 6 ? 'ipv6' : 'ipv4';
  let allowed = true;
  for (const rule of rules) if (rule.list.check(peer, family)) allowed = rule.sense === 'permit';
  return allowed;
}
