/**
 * The Via header (RFC 3261 §20.42, §18.2.1; rport from RFC 3581). One header line may carry
 * several Vias separated by commas; `parseVias` splits them.
 */
import { SipParseError } from '../errors.js';
import { formatParams, type Params, parseParams, skipWhitespace, splitList } from './grammar.js';
import { parsePort } from './uri.js';

/** The magic cookie that marks an RFC 3261 branch (§8.1.1.7). */
export const BRANCH_MAGIC_COOKIE = 'z9hG4bK';

export class Via {
  /** Transport in upper case: UDP, TCP, TLS, SCTP, WS, WSS. */
  transport: string;
  /** sent-by host, lower-case, IPv6 without brackets. */
  host: string;
  port: number | undefined;
  params: Params;

  constructor(transport: string, host: string, port?: number, params?: Params) {
    this.transport = transport.toUpperCase();
    this.host = host.toLowerCase();
    this.port = port;
    this.params = params ?? new Map();
  }

  get branch(): string | undefined {
    return this.params.get('branch') ?? undefined;
  }

  get received(): string | undefined {
    return this.params.get('received') ?? undefined;
  }

  /** undefined when absent, null when present without a value (a request for rport, RFC 3581 §3). */
  get rport(): number | null | undefined {
    if (!this.params.has('rport')) return undefined;
    const value = this.params.get('rport');
    if (value === null || value === undefined) return null;
    const port = Number(value);
    return Number.isInteger(port) && port > 0 && port <= 65535 ? port : null;
  }

  get maddr(): string | undefined {
    return this.params.get('maddr') ?? undefined;
  }

  /** host[:port] exactly as used for transaction matching (RFC 3261 §17.2.3). */
  get sentBy(): string {
    const host = this.host.includes(':') ? `[${this.host}]` : this.host;
    return this.port === undefined ? host : `${host}:${this.port}`;
  }

  clone(): Via {
    return new Via(this.transport, this.host, this.port, new Map(this.params));
  }

  toString(): string {
    return `SIP/2.0/${this.transport} ${this.sentBy}${formatParams(this.params)}`;
  }
}

/** Parses one via-parm: `SIP / 2.0 / UDP host[:port] *(;param)`. */
export function parseVia(text: string): Via {
  let i = skipWhitespace(text, 0);
  const parts: string[] = [];
  // sent-protocol = protocol-name SLASH protocol-version SLASH transport, LWS allowed around SLASH
  for (let n = 0; n < 3; n++) {
    const start = i;
    while (i < text.length) {
      const code = text.charCodeAt(i);
      if (code === 0x2f || code === 0x20 || code === 0x09 || code === 0x3b) break;
      i++;
    }
    if (i === start) throw new SipParseError('Via: malformed sent-protocol');
    parts.push(text.slice(start, i));
    i = skipWhitespace(text, i);
    if (n < 2) {
      if (text.charCodeAt(i) !== 0x2f) throw new SipParseError('Via: malformed sent-protocol');
      i = skipWhitespace(text, i + 1);
    }
  }
  // protocol-version is a token (RFC 3261 §25.1); a request of another version is refused with 505
  // from its start line, and the 505 needs this Via to find its way back (RFC 4475 §3.1.2.16).
  if (parts[0].toUpperCase() !== 'SIP' || !/^[0-9]{1,3}\.[0-9]{1,3}$/.test(parts[1])) throw new SipParseError('Via: protocol is not SIP');

  let host: string;
  if (text.charCodeAt(i) === 0x5b) {
    const close = text.indexOf(']', i);
    if (close === -1) throw new SipParseError('Via: unterminated IPv6 reference');
    host = text.slice(i + 1, close);
    i = close + 1;
  } else {
    const start = i;
    while (i < text.length) {
      const code = text.charCodeAt(i);
      if (code === 0x3a || code === 0x3b || code === 0x20 || code === 0x09) break;
      i++;
    }
    host = text.slice(start, i);
  }
  if (host.length === 0 || !/^[A-Za-z0-9.\-_:]+$/.test(host)) throw new SipParseError('Via: malformed sent-by host');

  let port: number | undefined;
  i = skipWhitespace(text, i);
  if (text.charCodeAt(i) === 0x3a) {
    i = skipWhitespace(text, i + 1);
    const start = i;
    while (i < text.length && text.charCodeAt(i) >= 0x30 && text.charCodeAt(i) <= 0x39) i++;
    port = parsePort(text.slice(start, i));
  }
  const params = parseParams(text, i, 'Via');
  return new Via(parts[2], host, port, params);
}

/** Parses every via-parm in one Via header value. */
export function parseVias(value: string): Via[] {
  const items = splitList(value);
  if (items.length === 0) throw new SipParseError('Via: empty value');
  return items.map(parseVia);
}
