/**
 * Which local address the system would use to reach a peer. A socket bound to the wildcard
 * address cannot tell on which address a datagram arrived, so the stack asks the routing table
 * instead: connecting a UDP socket sends nothing but selects the source address.
 */
import { createSocket } from 'node:dgram';
import { isIP } from 'node:net';

/** Answers are kept this long: routes change rarely, and asking costs a socket per call or request. */
const CACHE_TTL_MS = 30_000;
/** Peers remembered at most; the oldest answer is dropped first. */
const CACHE_MAX_PEERS = 4096;
const cache = new Map<string, { address: string; until: number }>();

export function localAddressToward(peer: string): Promise<string> {
  const now = performance.now();
  const known = cache.get(peer);
  if (known !== undefined && known.until > now) return Promise.resolve(known.address);
  return askRoutingTable(peer).then((address) => {
    cache.delete(peer);
    cache.set(peer, { address, until: performance.now() + CACHE_TTL_MS });
    if (cache.size > CACHE_MAX_PEERS) {
      const oldest = cache.keys().next().value;
      if (oldest !== undefined) cache.delete(oldest);
    }
    return address;
  });
}

function askRoutingTable(peer: string): Promise<string> {
  const family = isIP(peer) === 6 ? 'udp6' : 'udp4';
  return new Promise((resolve) => {
    const socket = createSocket(family);
    const fallback = family === 'udp6' ? '::1' : '127.0.0.1';
    socket.once('error', () => {
      socket.close();
      resolve(fallback);
    });
    socket.connect(9, peer, () => {
      let address = fallback;
      try {
        address = socket.address().address;
      } catch {
        // The socket closed between connect and address(): the loopback fallback stands.
      }
      socket.close();
      resolve(address);
    });
  });
}

export function isWildcardAddress(address: string): boolean {
  return address === '0.0.0.0' || address === '::' || address === '';
}
