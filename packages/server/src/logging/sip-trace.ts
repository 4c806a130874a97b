/**
 * `pjsip set logger on|off|host <ip>`: every SIP message in full in the log (level notice), in the
 * original's framing, optionally only those from or to one address.
 *
 *   <--- Received SIP request (512 bytes) from UDP:127.0.0.1:5061 --->
 *   INVITE sip:200@127.0.0.1 SIP/2.0
 *   …
 */
import type { Logger } from '@switchboard/core';
import { observeSipMessages, startLineOf } from '@switchboard/signalling';
import type { SipTraceControl } from '../console/services.js';

export class SipTrace implements SipTraceControl {
  readonly #log: Logger;
  #stop: (() => void) | undefined;
  #host: string | undefined;

  constructor(log: Logger) {
    this.#log = log;
  }

  enable(host?: string): void {
    this.#host = host;
    this.#stop ??= observeSipMessages((message) => {
      if (this.#host !== undefined && message.remote.address !== this.#host && message.remote.address !== `::ffff:${this.#host}`) return;
      const start = startLineOf(message.data);
      const kind = start === undefined ? 'message' : 'method' in start ? 'request' : 'response';
      const where = `${message.protocol.toUpperCase()}:${message.remote.address}:${message.remote.port}`;
      const head =
        message.direction === 'received'
          ? `<--- Received SIP ${kind} (${message.data.length} bytes) from ${where} --->`
          : `<--- Transmitting SIP ${kind} (${message.data.length} bytes) to ${where} --->`;
      this.#log.info({ sipTrace: message.direction }, `${head}\n${message.data.toString('utf8')}`);
    });
  }

  disable(): void {
    this.#stop?.();
    this.#stop = undefined;
    this.#host = undefined;
  }

  describe(): string {
    if (this.#stop === undefined) return 'off';
    return this.#host === undefined ? 'on' : `on for host ${this.#host}`;
  }
}
