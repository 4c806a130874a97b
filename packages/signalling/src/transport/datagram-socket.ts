/**
 * The UDP socket under a SIP UDP transport: Node's dgram, or the native socket whose system calls
 * run on a thread of its own (native-datagram-socket.ts). The transport sees only this surface.
 */
import { createSocket, type Socket } from 'node:dgram';
import { isIP } from 'node:net';
import { literalAddressLookup } from '@switchboard/media';

export interface DatagramSource {
  /** As the socket reports it (an IPv6 socket shows IPv4 peers as ::ffff:a.b.c.d). */
  address: string;
  port: number;
}

export type DatagramHandler = (data: Buffer, source: DatagramSource) => void;

export interface DatagramSocket {
  /** `socketKind` in the start-up log: which implementation serves the transport. */
  readonly kind: 'dgram' | 'native';
  /** Binds; resolves with the bound port and the receive buffer the kernel granted. */
  bind(address: string, port: number): Promise<{ port: number; receiveBufferBytes: number }>;
  /** Resolves once the datagram was handed to the kernel; rejects with the system error otherwise. */
  send(data: Buffer, port: number, address: string): Promise<void>;
  close(): Promise<void>;
}

/** Requested SO_RCVBUF/SO_SNDBUF of a SIP UDP socket. */
export const SOCKET_BUFFER_BYTES = 4 * 1024 * 1024;

/** Node's dgram: every system call on the event loop's thread. */
export class DgramDatagramSocket implements DatagramSocket {
  readonly kind = 'dgram';
  readonly #onMessage: DatagramHandler;
  readonly #onError: (err: Error) => void;
  #socket: Socket | undefined;

  constructor(onMessage: DatagramHandler, onError: (err: Error) => void) {
    this.#onMessage = onMessage;
    this.#onError = onError;
  }

  bind(address: string, port: number): Promise<{ port: number; receiveBufferBytes: number }> {
    // The kernel's default receive buffer (~208 KiB) holds a few hundred datagrams: a 100 ms pause of
    // the event loop at a few hundred calls per second overflows it, and a dropped 200 OK costs a
    // retransmission cycle (500 ms and up) or the call. The kernel caps the request at net.core.rmem_max.
    const socket = createSocket({
      type: isIP(address) === 6 ? 'udp6' : 'udp4',
      reuseAddr: false,
      recvBufferSize: SOCKET_BUFFER_BYTES,
      sendBufferSize: SOCKET_BUFFER_BYTES,
      // IP-literal destinations are answered synchronously: no process.nextTick per SIP message sent.
      lookup: literalAddressLookup,
    });
    this.#socket = socket;
    return new Promise((resolve, reject) => {
      socket.once('error', reject);
      socket.bind(port, address, () => {
        socket.off('error', reject);
        socket.on('error', this.#onError);
        socket.on('message', (data, rinfo) => this.#onMessage(data, rinfo));
        resolve({ port: socket.address().port, receiveBufferBytes: socket.getRecvBufferSize() });
      });
    });
  }

  send(data: Buffer, port: number, address: string): Promise<void> {
    const socket = this.#socket;
    if (socket === undefined) return Promise.reject(new Error('socket not bound'));
    return new Promise((resolve, reject) => {
      socket.send(data, port, address, (err) => (err ? reject(err) : resolve()));
    });
  }

  close(): Promise<void> {
    const socket = this.#socket;
    if (socket === undefined) return Promise.resolve();
    this.#socket = undefined;
    return new Promise((resolve) => socket.close(() => resolve()));
  }
}
