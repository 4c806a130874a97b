/**
 * Measures how long a datagram waits before the server reads it: every `intervalMs` a small
 * datagram stamped with the send time goes from a socket of our own to the SIP socket, and its
 * delay is taken when the SIP socket's handler meets it. That delay is the receive queue in the
 * kernel plus the main loop's lateness — what every SIP request arriving at that moment waits too.
 *
 * Main-loop lag alone misses the queue: libuv reads a bounded batch of datagrams per socket per
 * loop turn, so timers stay punctual while seconds of requests pile up in a 4 MiB receive buffer
 * (the collapse issue 18 measured at 1.5× capacity). Probes still queued count as well: the oldest
 * one not yet read is at least that old, which shows a growing queue before any probe comes back.
 *
 * A probe is recognised by its length, a leading NUL (no SIP message or keep-alive starts like
 * that with this length), a random token of this process, and the probe socket's exact address.
 *
 * A socket that has read no SIP datagram for QUIET_AFTER_MS has none queued (it reads in order, and
 * a probe left unread is reported by its age all the same), so it is probed every QUIET_INTERVAL_MS
 * only, until the next datagram arrives. Each probe wakes the loop and the socket: on a virtual
 * machine whose idle CPUs halt a wake-up costs a few hundred µs, and a server with nothing to signal
 * spent 9 % of a core with 100 probes a second against 5–6 % with 10 (bench/README.md).
 *
 *                 no datagram read for QUIET_AFTER_MS (checked at each probe)
 *   busy ──────────────────────────────────────────────────────────────► quiet
 *   a probe every `intervalMs` ◄──── a SIP datagram read ──── a probe every QUIET_INTERVAL_MS
 *
 * | state | condition                                          | next  |
 * |-------|----------------------------------------------------|-------|
 * | busy  | at a probe, no datagram read for QUIET_AFTER_MS    | quiet |
 * | quiet | a datagram that is not a probe is read             | busy  |
 */
import { randomBytes } from 'node:crypto';
import { createSocket, type Socket } from 'node:dgram';
import { isIP } from 'node:net';

const MAGIC = Buffer.from([0x00, 0x53, 0x42, 0x51]); // NUL "SBQ"
const TOKEN_BYTES = 8;
const PROBE_BYTES = MAGIC.length + TOKEN_BYTES + 8;
/** Probes not read back after this many are forgotten (the kernel dropped them). */
const MAX_PENDING = 64;
/** How long without a SIP datagram read makes the socket quiet. */
export const QUIET_AFTER_MS = 1000;
/** The probe interval while quiet: the overload control's window (250 ms) still holds two or more. */
export const QUIET_INTERVAL_MS = 100;

export class QueueDelayProbe {
  readonly #socket: Socket;
  readonly #token = randomBytes(TOKEN_BYTES);
  readonly #target: { address: string; port: number };
  readonly #intervalMs: number;
  readonly #report: (delayMs: number) => void;
  /** Send times of probes not read yet, oldest first. */
  readonly #pending: number[] = [];
  #timer: NodeJS.Timeout | undefined;
  #local: { address: string; port: number } | undefined;
  /** A SIP datagram was read since the last probe. */
  #heard = false;
  #lastHeardAt = 0;
  #quiet = false;
  #closed = false;

  /**
   * `bindAddress`/`port`: where the SIP socket listens (a wildcard address is probed over loopback).
   * `report` gets each delay measured, in ms.
   */
  constructor(bindAddress: string, port: number, intervalMs: number, report: (delayMs: number) => void) {
    const ipv6 = isIP(bindAddress) === 6;
    const wildcard = bindAddress === '0.0.0.0' || bindAddress === '::';
    this.#target = { address: wildcard ? (ipv6 ? '::1' : '127.0.0.1') : bindAddress, port };
    this.#intervalMs = intervalMs;
    this.#report = report;
    this.#socket = createSocket(ipv6 ? 'udp6' : 'udp4');
    // A probe that cannot be sent is simply not measured; the loop-lag measure still works.
    this.#socket.on('error', () => {});
  }

  async start(): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.#socket.once('error', reject);
      this.#socket.bind(0, this.#target.address, () => {
        this.#socket.off('error', reject);
        resolve();
      });
    });
    const bound = this.#socket.address();
    this.#local = { address: bound.address, port: bound.port };
    this.#lastHeardAt = performance.now();
    this.#every(this.#intervalMs);
  }

  /** Whether the socket is quiet (probed every QUIET_INTERVAL_MS). */
  get quiet(): boolean {
    return this.#quiet;
  }

  /**
   * Whether `data` is one of our probes; if so its delay has been reported. Any other datagram is
   * traffic: a quiet socket is probed at the full rate again.
   */
  receive(data: Buffer, from: { address: string; port: number }): boolean {
    if (!this.#isProbe(data, from)) {
      this.#heard = true;
      if (this.#quiet && !this.#closed) {
        this.#quiet = false;
        this.#every(this.#intervalMs);
      }
      return false;
    }
    const sentAt = data.readDoubleBE(MAGIC.length + TOKEN_BYTES);
    // This one and every older one are accounted for (a datagram socket delivers in order).
    while (this.#pending.length > 0 && (this.#pending[0] ?? Number.POSITIVE_INFINITY) <= sentAt) this.#pending.shift();
    this.#report(Math.max(0, performance.now() - sentAt));
    return true;
  }

  #isProbe(data: Buffer, from: { address: string; port: number }): boolean {
    if (data.length !== PROBE_BYTES || data[0] !== 0) return false;
    const local = this.#local;
    if (local === undefined || from.port !== local.port || from.address !== local.address) return false;
    if (!data.subarray(0, MAGIC.length).equals(MAGIC)) return false;
    return data.subarray(MAGIC.length, MAGIC.length + TOKEN_BYTES).equals(this.#token);
  }

  close(): void {
    this.#closed = true;
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
    this.#socket.close();
  }

  /** Probes every `ms` from now on. */
  #every(ms: number): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = setInterval(() => this.#tick(), ms);
    this.#timer.unref();
  }

  #tick(): void {
    const now = performance.now();
    if (this.#heard) {
      this.#heard = false;
      this.#lastHeardAt = now;
    }
    this.sendProbe();
    if (!this.#quiet && now - this.#lastHeardAt >= QUIET_AFTER_MS) {
      this.#quiet = true;
      this.#every(QUIET_INTERVAL_MS);
    }
  }

  /** Sends one probe now (the timer does every interval); first reports the age of an unread one. */
  sendProbe(): void {
    if (this.#local === undefined) return;
    const now = performance.now();
    const oldest = this.#pending[0];
    // A probe sent over one interval ago and still unread: the queue is at least that deep.
    const interval = this.#quiet ? QUIET_INTERVAL_MS : this.#intervalMs;
    if (oldest !== undefined && now - oldest > interval) this.#report(now - oldest);
    if (this.#pending.length >= MAX_PENDING) this.#pending.shift();
    const probe = Buffer.allocUnsafe(PROBE_BYTES);
    MAGIC.copy(probe, 0);
    this.#token.copy(probe, MAGIC.length);
    probe.writeDoubleBE(now, MAGIC.length + TOKEN_BYTES);
    this.#pending.push(now);
    this.#socket.send(probe, this.#target.port, this.#target.address);
  }
}
