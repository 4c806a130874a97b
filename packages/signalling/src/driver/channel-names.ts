/**
 * Channel names `SIP/<endpoint>-<8 hex digits>`: an incrementing 32-bit counter starting at a
 * random value, so names are unique within a process and unlikely to repeat across restarts.
 */
export class ChannelNamer {
  #next: number;

  constructor(start = Math.floor(Math.random() * 0x1_0000_0000)) {
    this.#next = start >>> 0;
  }

  next(endpoint: string): string {
    const id = this.#next;
    this.#next = (this.#next + 1) >>> 0;
    return `SIP/${endpoint}-${id.toString(16).padStart(8, '0')}`;
  }
}
