/**
 * The UDP socket of an RTP leg, behind one small interface with two implementations: the batched
 * native hub (native-leg-socket.ts, IPv4, when its addon is built) and Node's dgram (everything
 * else, and the fallback when the addon is missing or turned off).
 *
 * `transient`: the native hub hands over views of its receive ring, valid until the handler
 * returns; whoever keeps a datagram longer (DTLS, RTCP, video) copies it first.
 */
import dgram from 'node:dgram';
import { isIP } from 'node:net';
import { MediaError } from '../errors.js';
import { bindError } from './bind-error.js';
import { literalAddressLookup } from './literal-lookup.js';
import { openNativeLegSocket } from './native-leg-socket.js';

/** Where a datagram came from; a socket may hand the same object for every datagram of one peer. */
export interface DatagramSource {
  readonly address: string;
  readonly port: number;
}

export interface LegSocketHandlers {
  message(datagram: Buffer, from: DatagramSource): void;
  error(error: Error): void;
  /** A send failed (the first failure of a leg is worth a log line, not each). */
  sendFailed(error: Error): void;
}

export interface LegSocket {
  readonly localAddress: string;
  readonly localPort: number;
  readonly transient: boolean;
  /**
   * Sends the datagram. The caller must not change `packet` afterwards: dgram sends it later (the
   * native hub has handed it to the kernel when this returns).
   */
  send(packet: Uint8Array, port: number, address: string): void;
  /**
   * When the kernel received the datagram being handed to `message` (ms on `performance.now()`'s
   * clock): before this thread's own scheduling and event loop delayed it. NaN unless the socket was
   * opened with `arrivalTimes` and is on the native hub; meaningful only inside `message`.
   */
  arrivalTime(): number;
  close(): void;
}

export interface LegSocketOptions {
  /** Stamp every datagram on arrival in the kernel (SO_TIMESTAMPNS; native hub only), for `arrivalTime()`. */
  readonly arrivalTimes?: boolean;
}

let nativeWanted = true;

/** rtp.conf `native_sockets`: whether legs may use the native hub (the worker sets it at start). */
export function setNativeLegSockets(wanted: boolean): void {
  nativeWanted = wanted;
}

/** Binds a leg's socket. Rejects with `port_in_use` when the port is taken. */
export function openLegSocket(
  bindAddress: string,
  port: number,
  handlers: LegSocketHandlers,
  options: LegSocketOptions = {},
): Promise<LegSocket> {
  const family = isIP(bindAddress);
  if (family === 0) return Promise.reject(new MediaError('invalid_argument', `bind address ${bindAddress} is not an IP address`));
  if (family === 4 && nativeWanted) {
    const native = openNativeLegSocket(bindAddress, port, handlers, options.arrivalTimes === true);
    if (native !== null) return native;
  }
  return openDgramLegSocket(bindAddress, port, family, handlers);
}

function openDgramLegSocket(bindAddress: string, port: number, family: number, handlers: LegSocketHandlers): Promise<LegSocket> {
  // literalAddressLookup: no process.nextTick per packet sent (rtp/literal-lookup.ts).
  const socket = dgram.createSocket({ type: family === 6 ? 'udp6' : 'udp4', lookup: literalAddressLookup });
  return new Promise((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException): void => {
      socket.close();
      reject(bindError(error.code, error.message, bindAddress, port));
    };
    socket.once('error', onError);
    socket.bind({ address: bindAddress, port, exclusive: true }, () => {
      socket.off('error', onError);
      resolve(new DgramLegSocket(socket, handlers));
    });
  });
}

class DgramLegSocket implements LegSocket {
  readonly localAddress: string;
  readonly localPort: number;
  readonly transient = false;
  readonly #socket: dgram.Socket;
  readonly #afterSend: (error: Error | null) => void;
  #closed = false;

  constructor(socket: dgram.Socket, handlers: LegSocketHandlers) {
    this.#socket = socket;
    const bound = socket.address();
    this.localAddress = bound.address;
    this.localPort = bound.port;
    this.#afterSend = (error) => {
      if (error) handlers.sendFailed(error);
    };
    socket.on('message', (datagram, from) => handlers.message(datagram, from));
    socket.on('error', (error) => handlers.error(error));
  }

  send(packet: Uint8Array, port: number, address: string): void {
    this.#socket.send(packet, port, address, this.#afterSend);
  }

  arrivalTime(): number {
    return Number.NaN;
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#socket.close();
  }
}
