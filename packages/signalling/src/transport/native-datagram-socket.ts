/**
 * A SIP UDP socket whose system calls run on a thread of its own (native/sip_udp.c): the event loop
 * only copies datagrams to and from two rings and is woken once per batch. Built at install when a
 * compiler and Node's headers are there; `nativeDatagramSocketsAvailable()` is false otherwise and
 * the transport uses dgram.
 *
 * A send resolves once the socket's thread has handed the datagram to the kernel (or rejects with
 * the system error), as dgram's does; the thread reports in batches, so a send's promise settles on
 * the loop's next wake after the batch that carried it.
 */
import { createRequire } from 'node:module';
import { Ipv4Names } from '@switchboard/media';
import { getSystemErrorName } from 'node:util';
import type { DatagramHandler, DatagramSocket } from './datagram-socket.js';
import { SOCKET_BUFFER_BYTES } from './datagram-socket.js';

interface NativeSipUdpSocket {
  bind(address: string, port: number, bufferBytes: number): [port: number, receiveBufferBytes: number];
  /** The send's number (> 0), or -errno at once. */
  send(bytes: Uint8Array, offset: number, length: number, address: string, port: number): number;
  /** [inbound ring full, kernel receive buffer full (SO_MEMINFO, 32 bits)]. */
  dropped(): [inboundQueue: number, receiveBuffer: number];
  /** Sends what was queued, closes; returns the sends done as onSendsDone reports them. */
  close(): [sentThrough: number, failures: Int32Array | null];
}

interface NativeSipAddon {
  SipUdpSocket: new (
    onDatagram: (data: Buffer, address: number | string, port: number) => void,
    onSendsDone: (sentThrough: number, failures: Int32Array | null) => void,
  ) => NativeSipUdpSocket;
}

function loadAddon(): NativeSipAddon | null {
  try {
    // dist/transport/ → native/build/Release/ of this package.
    return createRequire(import.meta.url)('../../native/build/Release/sip_udp.node') as NativeSipAddon;
  } catch {
    return null;
  }
}

const addon = loadAddon();

export function nativeDatagramSocketsAvailable(): boolean {
  return addon !== null;
}

/** Datagrams received but dropped, by where: the process's total over every native SIP socket. */
export interface DroppedDatagrams {
  /** The ring between the socket's thread and the event loop was full: the loop was behind. */
  inboundQueue: number;
  /** The kernel's receive buffer was full: the socket's thread was behind (SO_MEMINFO). */
  receiveBuffer: number;
}

const liveSockets = new Set<NativeDatagramSocket>();
const droppedByClosedSockets: DroppedDatagrams = { inboundQueue: 0, receiveBuffer: 0 };

/** What every native SIP socket of the process dropped so far, closed ones included (dgram's drops are the kernel's alone and not seen). */
export function droppedSipDatagrams(): DroppedDatagrams {
  const total = { ...droppedByClosedSockets };
  for (const socket of liveSockets) {
    const dropped = socket.dropped;
    total.inboundQueue += dropped.inboundQueue;
    total.receiveBuffer += dropped.receiveBuffer;
  }
  return total;
}

/** Whether send number `seq` is at or before `through`, on a 32-bit counter that wraps. */
function sentBy(seq: number, through: number): boolean {
  return (through - seq) >>> 0 < 0x8000_0000;
}

function systemError(errno: number, what: string): NodeJS.ErrnoException {
  let code: string;
  try {
    code = getSystemErrorName(-errno);
  } catch {
    code = `E${errno}`;
  }
  return Object.assign(new Error(`${what} ${code}`), { code, errno: -errno, syscall: what });
}

interface PendingSend {
  seq: number;
  resolve: () => void;
  reject: (err: Error) => void;
}

export class NativeDatagramSocket implements DatagramSocket {
  readonly kind = 'native';
  readonly #onMessage: DatagramHandler;
  #socket: NativeSipUdpSocket | undefined;
  /** Sends not yet reported, oldest first from #head (the thread sends in the order given). */
  #pending: PendingSend[] = [];
  #head = 0;
  readonly #names = new Ipv4Names(4096);

  constructor(onMessage: DatagramHandler) {
    if (addon === null) throw new Error('the native SIP UDP socket is not built');
    this.#onMessage = onMessage;
  }

  /** `bufferBytes`: the SO_RCVBUF and SO_SNDBUF asked for (the kernel doubles it, and caps it at its maximum). */
  bind(address: string, port: number, bufferBytes = SOCKET_BUFFER_BYTES): Promise<{ port: number; receiveBufferBytes: number }> {
    if (addon === null) return Promise.reject(new Error('the native SIP UDP socket is not built'));
    const socket = new addon.SipUdpSocket(
      (data, from, fromPort) =>
        this.#onMessage(data, { address: typeof from === 'number' ? this.#names.name(from) : from, port: fromPort }),
      (sentThrough, failures) => this.#settle(sentThrough, failures),
    );
    try {
      const [boundPort, receiveBufferBytes] = socket.bind(address, port, bufferBytes);
      this.#socket = socket;
      liveSockets.add(this);
      return Promise.resolve({ port: boundPort, receiveBufferBytes });
    } catch (error) {
      socket.close();
      const { code, message } = error as NodeJS.ErrnoException;
      const errno = /^E(\d+)$/.exec(code ?? '')?.[1];
      return Promise.reject(errno === undefined ? error : Object.assign(systemError(Number(errno), 'bind'), { message }));
    }
  }

  send(data: Buffer, port: number, address: string): Promise<void> {
    const socket = this.#socket;
    if (socket === undefined) return Promise.reject(new Error('socket not bound'));
    const seq = socket.send(data, 0, data.length, address, port);
    if (seq < 0) return Promise.reject(systemError(-seq, 'send'));
    return new Promise((resolve, reject) => {
      this.#pending.push({ seq, resolve, reject });
    });
  }

  /** Datagrams this socket dropped (0 and 0 when not bound). */
  get dropped(): DroppedDatagrams {
    const counts = this.#socket?.dropped();
    return counts === undefined ? { inboundQueue: 0, receiveBuffer: 0 } : { inboundQueue: counts[0], receiveBuffer: counts[1] };
  }

  close(): Promise<void> {
    const socket = this.#socket;
    if (socket === undefined) return Promise.resolve();
    const dropped = this.dropped;
    droppedByClosedSockets.inboundQueue += dropped.inboundQueue;
    droppedByClosedSockets.receiveBuffer += dropped.receiveBuffer;
    liveSockets.delete(this);
    this.#socket = undefined;
    const [sentThrough, failures] = socket.close();
    this.#settle(sentThrough, failures);
    const closed = new Error('socket closed');
    for (let i = this.#head; i < this.#pending.length; i++) this.#pending[i]?.reject(closed);
    this.#pending = [];
    this.#head = 0;
    return Promise.resolve();
  }

  #settle(sentThrough: number, failures: Int32Array | null): void {
    const pending = this.#pending;
    let head = this.#head;
    while (head < pending.length) {
      const entry = pending[head];
      if (entry === undefined || !sentBy(entry.seq, sentThrough)) break;
      head++;
      const errno = failures === null ? undefined : failedErrno(failures, entry.seq);
      if (errno === undefined) entry.resolve();
      else entry.reject(systemError(errno, 'send'));
    }
    if (head === pending.length) {
      pending.length = 0;
      head = 0;
    } else if (head > 1024) {
      pending.splice(0, head);
      head = 0;
    }
    this.#head = head;
  }
}

/** The errno reported for send `seq`: failures holds [seq, errno] pairs. */
function failedErrno(failures: Int32Array, seq: number): number | undefined {
  for (let i = 0; i + 1 < failures.length; i += 2) if (failures[i] >>> 0 === seq) return failures[i + 1];
  return undefined;
}
