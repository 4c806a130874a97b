/**
 * Our side of ICE as a lite agent (RFC 8445 §2.5): we gather only host candidates and never send
 * checks; we answer the full agent's Binding requests on the media socket, learn the address it
 * nominates (USE-CANDIDATE, §7.3.1.5), and keep media flowing only while its checks keep arriving
 * (consent freshness, RFC 7675 §5.1: consent expires 30 s after the last authenticated check).
 * A pure processor: datagrams and a clock in, a response and the selected address out.
 */
import {
  ATTRIBUTE,
  STUN_CLASS,
  STUN_METHOD_BINDING,
  attribute,
  buildStun,
  parseStun,
  verifyFingerprint,
  verifyIntegrity,
  xorAddress,
} from './stun.js';

/** RFC 7675 §5.1: consent lapses 30 seconds after the last valid check. */
export const CONSENT_TIMEOUT_MS = 30_000;

export interface IceAddress {
  address: string;
  port: number;
}

export type IceCheckOutcome =
  /** An authenticated check: send `response` back to where it came from. */
  | { kind: 'answered'; response: Buffer; nominated: boolean }
  /** A check with the wrong USERNAME or integrity: RFC 8489 §9.1.3 answers 401. */
  | { kind: 'refused'; response: Buffer }
  /** Not a Binding request we answer (a response, an indication, garbage): dropped. */
  | { kind: 'ignored' };

export class IceLiteAgent {
  readonly #ufrag: string;
  readonly #password: Buffer;
  readonly #now: () => number;
  #selected: IceAddress | null = null;
  #lastCheckAt: number | null = null;

  /** `ufrag` and `password` are ours (a=ice-ufrag, a=ice-pwd of our SDP). */
  constructor(local: { ufrag: string; password: string }, now: () => number) {
    this.#ufrag = local.ufrag;
    this.#password = Buffer.from(local.password, 'utf8');
    this.#now = now;
  }

  /** Where media goes: the pair the controlling agent nominated, once it has. */
  get selected(): IceAddress | null {
    return this.#selected;
  }

  /** RFC 7675: whether we may still send media (a check arrived within the last 30 s). */
  consentValid(): boolean {
    return this.#lastCheckAt !== null && this.#now() - this.#lastCheckAt < CONSENT_TIMEOUT_MS;
  }

  handle(datagram: Buffer, from: IceAddress): IceCheckOutcome {
    const message = parseStun(datagram);
    if (message === null || message.type !== (STUN_METHOD_BINDING | STUN_CLASS.request)) return { kind: 'ignored' };
    if (!verifyFingerprint(message)) return { kind: 'ignored' };
    // RFC 8445 §7.3: USERNAME is "<our ufrag>:<their ufrag>", integrity with our password.
    const username = attribute(message, ATTRIBUTE.username)?.toString('utf8') ?? '';
    if (username.split(':')[0] !== this.#ufrag || !verifyIntegrity(message, this.#password)) {
      const code = Buffer.from([0, 0, 4, 1, ...Buffer.from('Unauthorized')]);
      const response = buildStun(STUN_METHOD_BINDING | STUN_CLASS.error, message.transactionId, [
        { type: ATTRIBUTE.errorCode, value: code },
      ]);
      return { kind: 'refused', response };
    }
    this.#lastCheckAt = this.#now();
    const nominated = attribute(message, ATTRIBUTE.useCandidate) !== undefined;
    // A lite agent takes the nominated pair (§8.2); before any nomination, the first checked one.
    if (nominated || this.#selected === null) this.#selected = { address: from.address, port: from.port };
    const response = buildStun(
      STUN_METHOD_BINDING | STUN_CLASS.success,
      message.transactionId,
      [{ type: ATTRIBUTE.xorMappedAddress, value: xorAddress(from.address, from.port, message.transactionId) }],
      this.#password,
    );
    return { kind: 'answered', response, nominated };
  }
}
