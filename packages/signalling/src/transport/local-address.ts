/**
 * Which local address the system would use to reach a peer. A socket bound to the wildcard
 * address cannot tell on which address a datagram arrived, so the stack asks the routing table
 * instead: connecting a UDP socket sends nothing but selects the source address.
 */
import { createSocket } from 'node:dgram';
import { isIP } from 'node:net';

export function localAddressToward(peer: string): Promise<string> {
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
