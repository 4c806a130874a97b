/**
 * A minimal manager wire client for the tests over real sockets: blocks as lower-cased header maps
 * (last value wins), with waits for a block and for an action's reply.
 */
import type { Socket } from 'node:net';

export type Block = Map<string, string>;

/** A minimal wire client: blocks as lower-cased header maps (last value wins). */
export class Client {
  readonly blocks: Block[] = [];
  closed = false;
  #buffer = '';
  constructor(readonly socket: Socket) {
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      this.#buffer += chunk;
      this.#buffer = this.#buffer.replace(/^Asterisk Call Manager\/[^\r]*\r\n/, '');
      let end = this.#buffer.indexOf('\r\n\r\n');
      while (end >= 0) {
        const block: Block = new Map();
        for (const line of this.#buffer.slice(0, end).split('\r\n')) {
          const colon = line.indexOf(':');
          block.set(line.slice(0, colon).toLowerCase(), line.slice(colon + 1).trim());
        }
        this.blocks.push(block);
        this.#buffer = this.#buffer.slice(end + 4);
        end = this.#buffer.indexOf('\r\n\r\n');
      }
    });
    socket.on('close', () => {
      this.closed = true;
    });
    socket.on('error', () => undefined);
  }
  send(lines: string[]): void {
    this.socket.write(`${lines.join('\r\n')}\r\n\r\n`);
  }
  async waitFor(match: (b: Block) => boolean, what: string, timeoutMs = 3000): Promise<Block> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.blocks.find(match);
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
  async action(id: string, lines: string[]): Promise<Block> {
    this.send([...lines, `ActionID: ${id}`]);
    return this.waitFor((b) => b.get('actionid') === id && b.has('response'), `reply ${id}`);
  }
}
