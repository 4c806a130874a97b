/**
 * Dotted names of IPv4 addresses given as host-order numbers (how the native sockets report a
 * datagram's source), kept per address: a peer sending many datagrams is one string, not one each.
 * At most `limit` are kept; past that the table starts again.
 */
export class Ipv4Names {
  readonly #names = new Map<number, string>();
  readonly #limit: number;

  constructor(limit = 1024) {
    this.#limit = limit;
  }

  name(address: number): string {
    let name = this.#names.get(address);
    if (name === undefined) {
      name = `${(address >>> 24) & 255}.${(address >>> 16) & 255}.${(address >>> 8) & 255}.${address & 255}`;
      if (this.#names.size >= this.#limit) this.#names.clear();
      this.#names.set(address, name);
    }
    return name;
  }
}
