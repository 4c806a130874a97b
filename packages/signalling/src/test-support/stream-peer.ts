/**
 * A SIP peer on one TCP or TLS connection for transport tests: sends hand-written messages on the
 * connection and waits (bounded in time) for what comes back on it.
 */
import { connect as tcpConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { parseMessage } from '../message/parser.js';
import type { SipMessage } from '../message/sip-message.js';
import { StreamFramer } from '../transport/stream-framer.js';

export class StreamPeer {
  readonly #socket: Socket;
  readonly #inbox: SipMessage[] = [];
  readonly #framer = new StreamFramer(65535);
  /** CRLF pongs received (RFC 5626 keep-alive answers). */
  pongs = 0;
  #wake: (() => void) | undefined;

  private constructor(socket: Socket) {
    this.#socket = socket;
    socket.on('data', (chunk: Buffer) => {
      if (chunk.toString() === '\r\n') this.pongs++;
      for (const frame of this.#framer.push(chunk))
        if (frame.kind === 'message') this.#inbox.push(parseMessage(frame.data, { datagram: false }));
      this.#wake?.();
    });
  }

  static open(port: number, tls = false): Promise<StreamPeer> {
    return new Promise((resolve, reject) => {
      const socket = tls
        ? tlsConnect({ host: '127.0.0.1', port, rejectUnauthorized: false }, () => resolve(new StreamPeer(socket)))
        : tcpConnect({ host: '127.0.0.1', port }, () => resolve(new StreamPeer(socket)));
      socket.once('error', reject);
    });
  }

  get port(): number {
    return this.#socket.localPort ?? 0;
  }

  send(text: string): void {
    this.#socket.write(text);
  }

  async expect(match: (message: SipMessage) => boolean, what: string, timeoutMs = 2000): Promise<SipMessage> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const index = this.#inbox.findIndex(match);
      if (index !== -1) return this.#inbox.splice(index, 1)[0];
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out waiting for ${what}`);
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

  close(): void {
    this.#socket.destroy();
  }
}
