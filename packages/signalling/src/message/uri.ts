/**
 * SIP and SIPS URIs (RFC 3261 §19.1) and, for anything else (tel:, urn:, ...), an opaque absolute
 * URI that is carried unchanged. Parsing throws only SipParseError.
 */
import { SipParseError } from '../errors.js';

export interface UriParam {
  name: string;
  value: string | null;
}

export class SipUri {
  readonly kind = 'sip';
  scheme: 'sip' | 'sips';
  /** The user part, percent-decoded (RFC 3261 §19.1.4: escaped and unescaped forms are equal). */
  user: string | undefined;
  password: string | undefined;
  /** Lower-case host; an IPv6 reference is stored without its brackets. */
  host: string;
  port: number | undefined;
  /** uri-parameters, names lower-cased, values as written (`;lr` has the value null). */
  params: Map<string, string | null>;
  /** The `?name=value&...` headers part without the `?`, as written. */
  headers: string | undefined;

  constructor(init: {
    scheme?: 'sip' | 'sips';
    user?: string | undefined;
    password?: string | undefined;
    host: string;
    port?: number | undefined;
    params?: Map<string, string | null>;
    headers?: string | undefined;
  }) {
    this.scheme = init.scheme ?? 'sip';
    this.user = init.user;
    this.password = init.password;
    this.host = init.host.toLowerCase();
    this.port = init.port;
    this.params = init.params ?? new Map();
    this.headers = init.headers;
  }

  get isIPv6(): boolean {
    return this.host.includes(':');
  }

  /** host[:port] as written in a URI or a Via sent-by. */
  get hostport(): string {
    const host = this.isIPv6 ? `[${this.host}]` : this.host;
    return this.port === undefined ? host : `${host}:${this.port}`;
  }

  clone(): SipUri {
    return new SipUri({ ...this, params: new Map(this.params) });
  }

  toString(): string {
    let out = `${this.scheme}:`;
    if (this.user !== undefined) {
      out += escapeUser(this.user);
      if (this.password !== undefined) out += `:${escapeUser(this.password)}`;
      out += '@';
    }
    out += this.hostport;
    for (const [name, value] of this.params) out += value === null ? `;${name}` : `;${name}=${value}`;
    if (this.headers !== undefined) out += `?${this.headers}`;
    return out;
  }
}

/** Any absolute URI other than sip:/sips: (e.g. `tel:+15551234`), kept as written. */
export class AbsoluteUri {
  readonly kind = 'absolute';
  readonly scheme: string;
  /** Everything after `scheme:`. */
  readonly value: string;

  constructor(scheme: string, value: string) {
    this.scheme = scheme.toLowerCase();
    this.value = value;
  }

  /** For tel: URIs the subscriber number (RFC 3966), otherwise undefined. */
  get telephoneNumber(): string | undefined {
    if (this.scheme !== 'tel') return undefined;
    const semi = this.value.indexOf(';');
    return semi === -1 ? this.value : this.value.slice(0, semi);
  }

  toString(): string {
    return `${this.scheme}:${this.value}`;
  }
}

export type Uri = SipUri | AbsoluteUri;

function isAlpha(code: number): boolean {
  return (code >= 0x41 && code <= 0x5a) || (code >= 0x61 && code <= 0x7a);
}

function isDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}

/** Parses any absolute URI; sip: and sips: get the full SIP grammar. */
export function parseUri(text: string): Uri {
  const colon = text.indexOf(':');
  if (colon <= 0) throw new SipParseError('URI without scheme');
  for (let i = 0; i < colon; i++) {
    const code = text.charCodeAt(i);
    // scheme = ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) (RFC 3261 §25.1)
    if (!(isAlpha(code) || (i > 0 && (isDigit(code) || code === 0x2b || code === 0x2d || code === 0x2e)))) {
      throw new SipParseError('URI scheme is malformed');
    }
  }
  const scheme = text.slice(0, colon).toLowerCase();
  if (scheme === 'sip' || scheme === 'sips') return parseSipUriBody(scheme, text, colon + 1);
  const rest = text.slice(colon + 1);
  if (rest.length === 0) throw new SipParseError('URI is empty after the scheme');
  for (let i = 0; i < rest.length; i++) {
    const code = rest.charCodeAt(i);
    if (code <= 0x20 || code === 0x7f || code === 0x3c || code === 0x3e || code === 0x22) {
      throw new SipParseError('URI contains a character that must be escaped');
    }
  }
  return new AbsoluteUri(scheme, rest);
}

/** Parses a URI that must be sip: or sips:. */
export function parseSipUri(text: string): SipUri {
  const uri = parseUri(text);
  if (uri.kind !== 'sip') throw new SipParseError(`not a SIP URI: ${uri.scheme}`);
  return uri;
}

function parseSipUriBody(scheme: 'sip' | 'sips', text: string, start: number): SipUri {
  const end = text.length;
  // userinfo ends at the '@'. The user part may itself contain ';', '?' and '/' (user-unreserved,
  // RFC 3261 §25.1) and no other part may hold a raw '@' (params and headers escape it), so the
  // first '@' is the delimiter (RFC 4475 §3.1.1.2).
  const at = text.indexOf('@', start);
  let question = text.indexOf('?', at === -1 ? start : at + 1);
  if (question === -1) question = end;
  let user: string | undefined;
  let password: string | undefined;
  let hostStart = start;
  if (at >= start) {
    const userinfo = text.slice(start, at);
    const pwColon = userinfo.indexOf(':');
    const rawUser = pwColon === -1 ? userinfo : userinfo.slice(0, pwColon);
    if (rawUser.length === 0) throw new SipParseError('SIP URI has an empty user part');
    user = percentDecode(rawUser);
    if (pwColon !== -1) password = percentDecode(userinfo.slice(pwColon + 1));
    hostStart = at + 1;
  }

  let i = hostStart;
  let host: string;
  if (text.charCodeAt(i) === 0x5b) {
    const close = text.indexOf(']', i);
    if (close === -1 || close > question) throw new SipParseError('SIP URI has an unterminated IPv6 reference');
    host = text.slice(i + 1, close);
    if (!isIPv6Text(host)) throw new SipParseError('SIP URI has a malformed IPv6 reference');
    i = close + 1;
  } else {
    const hostBegin = i;
    while (i < question) {
      const code = text.charCodeAt(i);
      if (isAlpha(code) || isDigit(code) || code === 0x2d || code === 0x2e || code === 0x5f) i++;
      else break;
    }
    host = text.slice(hostBegin, i);
    if (host.length === 0) throw new SipParseError('SIP URI has no host');
  }

  let port: number | undefined;
  if (text.charCodeAt(i) === 0x3a) {
    const portBegin = ++i;
    while (i < question && isDigit(text.charCodeAt(i))) i++;
    port = parsePort(text.slice(portBegin, i));
  }

  const params = new Map<string, string | null>();
  while (i < question) {
    if (text.charCodeAt(i) !== 0x3b) throw new SipParseError('SIP URI has an unexpected character after the host');
    let next = text.indexOf(';', i + 1);
    if (next === -1 || next > question) next = question;
    const param = text.slice(i + 1, next);
    const eq = param.indexOf('=');
    const name = (eq === -1 ? param : param.slice(0, eq)).toLowerCase();
    if (name.length === 0) throw new SipParseError('SIP URI has an empty parameter');
    checkUriChars(param, 'parameter');
    params.set(name, eq === -1 ? null : param.slice(eq + 1));
    i = next;
  }

  let headers: string | undefined;
  if (question < end) {
    headers = text.slice(question + 1);
    checkUriChars(headers, 'headers');
  }
  return new SipUri({ scheme, user, password, host, port, params, headers });
}

function checkUriChars(text: string, what: string): void {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code <= 0x20 || code >= 0x7f || code === 0x3c || code === 0x3e || code === 0x22) {
      throw new SipParseError(`SIP URI ${what} contains a character that must be escaped`);
    }
  }
}

export function parsePort(text: string): number {
  if (text.length === 0 || text.length > 5) throw new SipParseError('port is malformed');
  let port = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (!isDigit(code)) throw new SipParseError('port is malformed');
    port = port * 10 + (code - 0x30);
  }
  if (port > 65535) throw new SipParseError('port is out of range');
  return port;
}

function isIPv6Text(text: string): boolean {
  if (text.length < 2 || !text.includes(':')) return false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    const hex = isDigit(code) || (code >= 0x41 && code <= 0x46) || (code >= 0x61 && code <= 0x66);
    if (!hex && code !== 0x3a && code !== 0x2e) return false;
  }
  return true;
}

/** Decodes %HH escapes (UTF-8); a malformed escape is a parse error, not an exception of another kind. */
export function percentDecode(text: string): string {
  if (!text.includes('%')) return text;
  try {
    return decodeURIComponent(text);
  } catch {
    throw new SipParseError('malformed percent-escape in URI');
  }
}

/**
 * Characters a user part may carry unescaped: unreserved / user-unreserved (RFC 3261 §25.1).
 * Everything else (including '@', ':', space and non-ASCII) is written as %HH of its UTF-8 bytes.
 */
const USER_SAFE = new Uint8Array(128);
for (let c = 0x30; c <= 0x39; c++) USER_SAFE[c] = 1;
for (let c = 0x41; c <= 0x5a; c++) USER_SAFE[c] = 1;
for (let c = 0x61; c <= 0x7a; c++) USER_SAFE[c] = 1;
for (const ch of "-_.!~*'()&=+$,;?/") USER_SAFE[ch.charCodeAt(0)] = 1;

export function escapeUser(user: string): string {
  let safe = true;
  for (let i = 0; i < user.length; i++) {
    const code = user.charCodeAt(i);
    if (code >= 128 || USER_SAFE[code] !== 1) {
      safe = false;
      break;
    }
  }
  if (safe) return user;
  let out = '';
  for (const byte of Buffer.from(user, 'utf8')) {
    if (byte < 128 && USER_SAFE[byte] === 1) out += String.fromCharCode(byte);
    else out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}
