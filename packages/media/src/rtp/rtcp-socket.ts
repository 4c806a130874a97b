/**
 * The RTCP socket of a leg (RFC 3550 §11: the RTP port + 1) and its report timer. Best effort: if
 * the port cannot be bound the leg still carries RTP, only without RTCP. Reports go every
 * `intervalMs` (§6.2 recommends 5 s minimum), randomised by ±50 % (§6.3.1) so that the reports of
 * many legs do not synchronise; a BYE (§6.6) is sent on close.
 */
import { type LegSocket, openLegSocket } from './leg-socket.js';
import { type RtcpPacket, parseRtcp } from './rtcp.js';

/**
 * The delay before the next report: the interval randomised to 0.5–1.5 times its value (§6.3.1), so
 * that the reports of many legs do not synchronise; the first one after half of it (§6.2: "the
 * initial delay ... SHOULD be set to half the minimum interval").
 */
export function nextReportDelay(intervalMs: number, first = false): number {
  return (first ? intervalMs / 2 : intervalMs) * (0.5 + Math.random());
}

export interface RtcpSocketHandlers {
  /** Valid RTCP arrived (already parsed) from `from`. */
  received(packets: RtcpPacket[], from: { address: string; port: number }): void;
  /** Builds the compound packet to send now, or null to skip this interval. */
  report(): Uint8Array | null;
  /** Where to send reports (null: nowhere yet). */
  target(): { address: string; port: number } | null;
  /** A malformed datagram or socket problem, for the leg's counters and logs. */
  problem(what: string): void;
  /** SRTCP (RFC 3711 §3.4): the received datagram as plain RTCP, or null when it does not authenticate. */
  unprotect?(datagram: Buffer): Buffer | null;
  /** SRTCP: the compound packet as it goes on the wire. */
  protect?(datagram: Uint8Array): Uint8Array;
  /** The authenticated compound datagram itself, for readers of feedback (a BUNDLEd video stream's PLI, FIR, NACK). */
  plain?(datagram: Buffer, from: { address: string; port: number }): void;
}

/** Where reports go out: the RTCP port's own socket, or the leg's RTP socket with rtcp-mux. */
type RtcpSender = Pick<LegSocket, 'send' | 'close'>;

export class RtcpSocket {
  readonly #socket: RtcpSender;
  readonly #handlers: RtcpSocketHandlers;
  readonly #intervalMs: number;
  /** Multiplexed on the RTP socket (RFC 5761): the leg owns the socket and hands RTCP in. */
  readonly #muxed: boolean;
  #timer: NodeJS.Timeout | null = null;
  #closed = false;

  private constructor(socket: RtcpSender, handlers: RtcpSocketHandlers, intervalMs: number, muxed = false) {
    this.#socket = socket;
    this.#handlers = handlers;
    this.#intervalMs = intervalMs;
    this.#muxed = muxed;
    this.#schedule();
  }

  /** RFC 5761: RTCP on the RTP socket of `socket`, which stays the leg's (received RTCP comes in through `deliver`). */
  static multiplexed(socket: RtcpSender, handlers: RtcpSocketHandlers, intervalMs = 5000): RtcpSocket {
    return new RtcpSocket(socket, handlers, intervalMs, true);
  }

  /** A received datagram: SRTCP is authenticated first, then the compound packet parsed. */
  deliver(received: Buffer, from: { address: string; port: number }): void {
    if (this.#closed) return;
    const handlers = this.#handlers;
    const datagram = handlers.unprotect === undefined ? received : handlers.unprotect(received);
    if (datagram === null) {
      handlers.problem('SRTCP packet refused');
      return;
    }
    const parsed = parseRtcp(datagram);
    if (parsed.ok) handlers.received(parsed.packets, { address: from.address, port: from.port });
    else handlers.problem(`malformed RTCP (${parsed.reason})`);
    handlers.plain?.(datagram, from);
  }

  /**
   * Binds `address:port` (a leg socket: the native hub for IPv4 when it is built, else dgram);
   * resolves null (after reporting the problem) when it cannot. Received datagrams are parsed before
   * `deliver` returns, so the hub's lent buffers need no copy here.
   */
  static async open(address: string, port: number, handlers: RtcpSocketHandlers, intervalMs = 5000): Promise<RtcpSocket | null> {
    let rtcp: RtcpSocket | null = null;
    try {
      const socket = await openLegSocket(address, port, {
        message: (received, from) => rtcp?.deliver(received, from),
        error: (error) => handlers.problem(`RTCP socket: ${error.message}`),
        sendFailed: (error) => handlers.problem(`RTCP send: ${error.message}`),
      });
      rtcp = new RtcpSocket(socket, handlers, intervalMs);
      return rtcp;
    } catch (error) {
      handlers.problem(`cannot bind RTCP to ${address}:${port}: ${error instanceof Error ? error.message : String(error)}`);
      return null;
    }
  }

  #schedule(): void {
    if (this.#closed) return;
    const delay = nextReportDelay(this.#intervalMs);
    this.#timer = setTimeout(() => {
      this.#sendReport();
      this.#schedule();
    }, delay);
    this.#timer.unref();
  }

  #sendReport(extra?: Uint8Array): void {
    const target = this.#handlers.target();
    const report = this.#handlers.report();
    if (target === null || report === null) return;
    const compound = extra === undefined ? report : Buffer.concat([report, extra]);
    const datagram = this.#handlers.protect === undefined ? compound : this.#handlers.protect(compound);
    this.#socket.send(datagram, target.port, target.address);
  }

  /** Sends a last report with BYE appended, then closes. */
  close(bye?: Uint8Array): void {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#timer !== null) clearTimeout(this.#timer);
    if (bye !== undefined) {
      try {
        this.#sendReport(bye);
      } catch (error) {
        this.#handlers.problem(`RTCP BYE: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
    // Close after the send has been queued (a dgram socket sends asynchronously); a multiplexed socket is the leg's.
    if (!this.#muxed) setImmediate(() => this.#socket.close());
  }
}
