/**
 * Leg sockets on the native hub (native/rtp_sockets.c): one hub per thread reads every readable
 * socket in C and enters JavaScript once per event-loop iteration for all their datagrams; sends
 * are one synchronous sendto each. Measured against dgram in bench/README.md ("The native socket hub").
 * Used for IPv4 legs when the addon was built at install; `openNativeLegSocket` answers null
 * otherwise and the leg falls back to dgram.
 */
import { lookup } from 'node:dns';
import { isIPv4 } from 'node:net';
import { performance } from 'node:perf_hooks';
import { getSystemErrorName } from 'node:util';
import { type NativeAddon, type NativeHub, nativeAddon } from '../native/addon.js';
import { bindError } from './bind-error.js';
import { Ipv4Names } from './ipv4-names.js';
import type { DatagramSource, LegSocket, LegSocketHandlers } from './leg-socket.js';

/** Whether this build has the native hub (the addon compiled at install). */
export function nativeLegSocketsAvailable(): boolean {
  return nativeAddon !== null;
}

class Hub {
  readonly #native: NativeHub;
  readonly #bytes: Buffer;
  readonly #meta: Int32Array;
  readonly #arrivals: Float64Array;
  /** CLOCK_MONOTONIC ms (process.hrtime's clock) minus performance.now(): one clock, another origin. */
  readonly #monotonicToPerformance: number;
  /** The ring index being delivered, for `arrivalTime()`. */
  #delivering = -1;
  readonly #slotBytes: number;
  readonly #metaInts: number;
  readonly #sockets: (NativeLegSocket | undefined)[] = [];
  /** The last view of each ring slot's datagram. */
  readonly #views: (Buffer | undefined)[] = [];
  /** Host-order IPv4 → dotted string, for the few peers a worker hears from. */
  readonly #names = new Ipv4Names();

  constructor(native: NativeAddon) {
    this.#native = new native.Hub((count) => this.#deliver(count));
    this.#bytes = Buffer.from(this.#native.data);
    this.#meta = this.#native.meta;
    this.#arrivals = this.#native.arrivals;
    this.#monotonicToPerformance = Number(process.hrtime.bigint()) / 1e6 - performance.now();
    this.#slotBytes = native.layout.slotBytes;
    this.#metaInts = native.layout.metaInts;
  }

  open(address: string, port: number, handlers: LegSocketHandlers, arrivalTimes: boolean): NativeLegSocket {
    const [slot, generation, bound] = this.#native.open(address, port, arrivalTimes);
    const socket = new NativeLegSocket(this, slot, generation, address, bound, handlers);
    this.#sockets[slot] = socket;
    return socket;
  }

  send(slot: number, packet: Uint8Array, address: number, port: number): number {
    return this.#native.send(slot, packet, 0, packet.length, address, port);
  }

  close(socket: NativeLegSocket): void {
    if (this.#sockets[socket.slot] === socket) this.#sockets[socket.slot] = undefined;
    this.#native.close(socket.slot);
  }

  #deliver(count: number): void {
    const meta = this.#meta;
    for (let index = 0; index < count; index++) {
      const record = index * this.#metaInts;
      const socket = this.#sockets[meta[record]];
      // A socket closed earlier in this batch (or its slot reused since) skips its datagrams.
      if (socket === undefined || socket.generation !== meta[record + 1]) continue;
      const length = meta[record + 2];
      // RTP of one codec comes in datagrams of one size: the ring slot's view of that size is reused
      // (a new view per datagram is garbage at every arrival). The view lends the ring's memory for
      // the call only either way (LegSocket.transient).
      let datagram = this.#views[index];
      if (datagram === undefined || datagram.length !== length) {
        const offset = index * this.#slotBytes;
        datagram = this.#bytes.subarray(offset, offset + length);
        this.#views[index] = datagram;
      }
      this.#delivering = index;
      socket.deliver(datagram, meta[record + 3], meta[record + 4]);
    }
    this.#delivering = -1;
  }

  arrivalTime(): number {
    return this.#delivering < 0 ? Number.NaN : this.#arrivals[this.#delivering] - this.#monotonicToPerformance;
  }

  name(address: number): string {
    return this.#names.name(address);
  }
}

let hub: Hub | null = null;

/** Binds a native socket; null when the addon is not available (the caller falls back to dgram). */
export function openNativeLegSocket(
  bindAddress: string,
  port: number,
  handlers: LegSocketHandlers,
  arrivalTimes: boolean,
): Promise<LegSocket> | null {
  if (nativeAddon === null) return null;
  hub ??= new Hub(nativeAddon);
  try {
    return Promise.resolve(hub.open(bindAddress, port, handlers, arrivalTimes));
  } catch (error) {
    // The addon's errors carry `E<errno>` as their code.
    const { code, message } = error as NodeJS.ErrnoException;
    const errno = /^E(\d+)$/.exec(code ?? '')?.[1];
    return Promise.reject(bindError(errno === undefined ? code : getSystemErrorName(-Number(errno)), message, bindAddress, port));
  }
}

/** Dotted IPv4 → host-order number; NaN for anything else. */
function ipv4Number(address: string): number {
  if (!isIPv4(address)) return Number.NaN;
  const [a, b, c, d] = address.split('.').map(Number);
  return ((a << 24) | (b << 16) | (c << 8) | d) >>> 0;
}

class NativeLegSocket implements LegSocket {
  readonly localAddress: string;
  readonly localPort: number;
  readonly transient = true;
  readonly slot: number;
  readonly generation: number;
  readonly #hub: Hub;
  readonly #handlers: LegSocketHandlers;
  #closed = false;
  /** The last destination's number: a leg sends to one peer for long stretches. */
  #lastAddress = '';
  #lastNumber = Number.NaN;

  constructor(hub: Hub, slot: number, generation: number, localAddress: string, localPort: number, handlers: LegSocketHandlers) {
    this.#hub = hub;
    this.slot = slot;
    this.generation = generation;
    this.localAddress = localAddress;
    this.localPort = localPort;
    this.#handlers = handlers;
  }

  /**
   * The sender of the last datagram, kept while the next comes from the same peer: a leg hears one
   * peer for long stretches, and a source per datagram would be garbage at every arrival. Never
   * changed once handed out, so a handler may keep it.
   */
  #from: DatagramSource = { address: '', port: -1 };
  #fromNumber = Number.NaN;

  deliver(datagram: Buffer, address: number, port: number): void {
    if (address !== this.#fromNumber || port !== this.#from.port) {
      this.#fromNumber = address;
      this.#from = { address: this.#hub.name(address), port };
    }
    this.#handlers.message(datagram, this.#from);
  }

  send(packet: Uint8Array, port: number, address: string): void {
    if (this.#closed) return;
    if (address !== this.#lastAddress) {
      this.#lastAddress = address;
      this.#lastNumber = ipv4Number(address);
    }
    if (Number.isNaN(this.#lastNumber)) {
      this.#sendByName(Buffer.from(packet), port, address);
      return;
    }
    const sent = this.#hub.send(this.slot, packet, this.#lastNumber, port);
    if (sent < 0) this.#failed(-sent);
  }

  arrivalTime(): number {
    return this.#hub.arrivalTime();
  }

  /** An FQDN in a c= line: resolved per packet as dgram would (rare; the SDP normally names an address). */
  #sendByName(copy: Buffer, port: number, name: string): void {
    lookup(name, { family: 4 }, (error, address) => {
      if (this.#closed) return;
      if (error) {
        this.#handlers.sendFailed(error);
        return;
      }
      const number = ipv4Number(address);
      const sent = this.#hub.send(this.slot, copy, number, port);
      if (sent < 0) this.#failed(-sent);
    });
  }

  #failed(errno: number): void {
    const code = getSystemErrorName(-errno);
    const error: NodeJS.ErrnoException = new Error(`send ${code}`);
    error.code = code;
    error.errno = -errno;
    this.#handlers.sendFailed(error);
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#hub.close(this);
  }
}
