/**
 * pjsip.conf transport `local_net`: peers inside these networks reach us without NAT, so they see
 * our own addresses; everyone else sees `external_signaling_address` / `external_media_address`.
 */
import { type AddressRange, parseAddressRange, rangeContains } from '@switchboard/core';

const NONE: readonly string[] = [];
const parsed = new WeakMap<readonly string[], LocalNetworks>();

export class LocalNetworks {
  readonly #ranges: AddressRange[];

  /** The networks of one configuration list, parsed once (the list is the configuration's own). */
  static of(networks: readonly string[] | undefined): LocalNetworks {
    const list = networks ?? NONE;
    let found = parsed.get(list);
    if (found === undefined) {
      found = new LocalNetworks(list);
      parsed.set(list, found);
    }
    return found;
  }

  constructor(networks: readonly string[] | undefined) {
    this.#ranges = (networks ?? []).flatMap((net) => {
      const range = parseAddressRange(net);
      return range === undefined ? [] : [range];
    });
  }

  /** Whether `address` is inside one of the local networks (none configured: never). */
  contains(address: string): boolean {
    return this.#ranges.some((range) => rangeContains(range, address));
  }

  /** The external address unless the peer is local. */
  externalFor(external: string | undefined, peer: string): string | undefined {
    if (external === undefined || external === '') return undefined;
    return this.contains(peer) ? undefined : external;
  }
}

/**
 * `external_signaling_port`: in a message for a peer outside `local_net`, our sent-by and Contact
 * entries name the external address with the bound port; the port the NAT forwards is written
 * instead. Only the header section changes (the SDP names media ports, never `host:port`).
 */
export function withExternalPort(data: Buffer, external: string | undefined, boundPort: number, externalPort: number | undefined): Buffer {
  if (external === undefined || externalPort === undefined || externalPort === boundPort) return data;
  const end = data.indexOf('\r\n\r\n');
  const head = (end < 0 ? data : data.subarray(0, end)).toString('latin1');
  const ours = `${external}:${boundPort}`;
  if (!head.includes(ours)) return data;
  const rewritten = Buffer.from(head.split(ours).join(`${external}:${externalPort}`), 'latin1');
  return end < 0 ? rewritten : Buffer.concat([rewritten, data.subarray(end)]);
}
