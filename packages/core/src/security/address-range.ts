/**
 * Address ranges as operators write them in `match`, `permit` and `deny`: a single address or a CIDR
 * range, IPv4 or IPv6 (an IPv4-mapped IPv6 address matches IPv4 ranges). The one parser and matcher
 * of addresses behind identify matches, endpoint ACLs, API user ACLs and `local_net`.
 */
import { isIP } from 'node:net';

export interface AddressRange {
  family: 4 | 6;
  /** The network address as bytes (4 or 16). */
  network: Uint8Array;
  prefix: number;
}

/** Parses `192.0.2.0/24`, `192.0.2.7`, `2001:db8::/32`; returns undefined for anything else (a host name). */
export function parseAddressRange(text: string): AddressRange | undefined {
  const trimmed = text.trim();
  const slash = trimmed.indexOf('/');
  const address = slash === -1 ? trimmed : trimmed.slice(0, slash);
  const family = isIP(address);
  if (family !== 4 && family !== 6) return undefined;
  const bytes = addressBytes(address, family);
  const max = family === 4 ? 32 : 128;
  let prefix = max;
  if (slash !== -1) {
    const suffix = trimmed.slice(slash + 1);
    if (!/^\d{1,3}$/.test(suffix)) return undefined;
    prefix = Number(suffix);
    if (prefix > max) return undefined;
  }
  return { family, network: bytes, prefix };
}

export function rangeContains(range: AddressRange, address: string): boolean {
  let candidate = address;
  let family = isIP(candidate);
  if (family === 6 && range.family === 4) {
    const lower = candidate.toLowerCase();
    if (lower.startsWith('::ffff:') && isIP(lower.slice(7)) === 4) {
      candidate = lower.slice(7);
      family = 4;
    }
  }
  if (family !== range.family) return false;
  const bytes = addressBytes(candidate, family);
  let bits = range.prefix;
  for (let i = 0; i < bytes.length && bits > 0; i++) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if ((bytes[i] & mask) !== (range.network[i] & mask)) return false;
    bits -= 8;
  }
  return true;
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
