/**
 * A SIP peer for driver tests: a real UDP socket on loopback that sends hand-written messages
 * and waits (bounded in time) for the ones the driver sends back.
 */
import { createSocket, type Socket } from 'node:dgram';
import { parseMessage } from '../message/parser.js';
import type { SipMessage, SipResponse } from '../message/sip-message.js';

export class UdpPeer {
  readonly #socket: Socket;
  readonly #inbox: SipMessage[] = [];
  #wake: (() => void) | undefined;

  private constructor(socket: Socket) {
    this.#socket = socket;
    socket.on('message', (data) => {
      this.#inbox.push(parseMessage(data));
      this.#wake?.();
    });
  }

  static async open(address = '127.0.0.1'): Promise<UdpPeer> {
    const socket = createSocket('udp4');
    await new Promise<void>((resolve) => socket.bind(0, address, () => resolve()));
    return new UdpPeer(socket);
  }

  get address(): string {
    return this.#socket.address().address;
  }

  get port(): number {
    return this.#socket.address().port;
  }

  send(text: string, port: number, address = '127.0.0.1'): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#socket.send(Buffer.from(text), port, address, (err) => (err ? reject(err) : resolve()));
    });
  }

  /** The first received message matching `match` (taken out of the inbox), waiting up to `timeoutMs`. */
  async expect(match: (message: SipMessage) => boolean, what: string, timeoutMs = 2000): Promise<SipMessage> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const index = this.#inbox.findIndex(match);
      if (index !== -1) return this.#inbox.splice(index, 1)[0];
      const left = deadline - Date.now();
      if (left <= 0) {
        const seen = this.#inbox.map((m) => (m.type === 'request' ? m.method : `${m.status} ${m.cseq.method}`));
        throw new Error(`timed out waiting for ${what}; inbox: [${seen.join(', ')}]`);
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.#wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.#wake = undefined;
    }
  }

  expectResponse(status: number, method: string, timeoutMs?: number): Promise<SipResponse> {
    return this.expect(
      (m) => m.type === 'response' && m.status === status && m.cseq.method === method,
      `${status} to ${method}`,
      timeoutMs,
    ) as Promise<SipResponse>;
  }

  /** Asserts that nothing matching arrives within `ms`. */
  async expectNothing(match: (message: SipMessage) => boolean, ms = 150): Promise<void> {
    await new Promise((resolve) => setTimeout(resolve, ms));
    const found = this.#inbox.find(match);
    if (found !== undefined) throw new Error(`unexpected message: ${found.type === 'request' ? found.method : found.status}`);
  }

  /** Messages received and not yet taken. */
  get pending(): readonly SipMessage[] {
    return this.#inbox;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.#socket.close(() => resolve()));
  }
}

/** Polls a condition with real time, bounded. */
export async function waitFor(condition: () => boolean, what: string, timeoutMs = 2000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
