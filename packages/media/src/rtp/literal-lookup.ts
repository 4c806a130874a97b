/**
 * The address lookup for RTP sockets. Node's dgram resolves the destination of every unconnected
 * `send` through a lookup function; the default (dns.lookup) answers an IP literal on the next tick,
 * so each RTP packet cost a process.nextTick and a closure before its syscall (3–4 % of the media
 * worker's time in a relay profile, bench/README.md). Media addresses are IP literals from SDP, so
 * they are answered at once, synchronously (dgram accepts that: a connected socket does the same);
 * anything else (an FQDN in a c= line) still goes to dns.lookup.
 */
import dns from 'node:dns';
import { isIP } from 'node:net';

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string, family: number) => void;

export function literalAddressLookup(hostname: string, options: unknown, callback: LookupCallback): void {
  const family = isIP(hostname);
  if (family !== 0) {
    callback(null, hostname, family);
    return;
  }
  const lookupOptions = typeof options === 'number' ? { family: options } : ((options ?? {}) as dns.LookupOneOptions);
  dns.lookup(hostname, { ...lookupOptions, all: false }, (error, address, resolvedFamily) => callback(error, address, resolvedFamily));
}
