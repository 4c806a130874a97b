/**
 * SIP requests and responses. Header fields are kept as the raw strings the parser found (or the
 * caller set); the structured views (Via, From/To, CSeq, Request-URI, ...) are parsed on first use
 * and cached, so a message that is only relayed or matched costs no more than its header split.
 * A structured view is a snapshot: change a header with `setHeader` (which drops the cached view).
 */
import { SipParseError } from '../errors.js';
import { type CSeq, parseCSeq } from './cseq.js';
import { splitList } from './grammar.js';
import { LIST_HEADERS, resolveHeaderName } from './header-names.js';
import { type NameAddr, parseNameAddr } from './name-addr.js';
import { parseUri, type Uri } from './uri.js';
import { parseVias, type Via } from './via.js';

export interface HeaderField {
  /** Spelling used on the wire when serialised (canonical for known headers, compact forms expanded). */
  name: string;
  /** Lower-case long name used for lookups. */
  key: string;
  value: string;
}

const EMPTY_BODY = Buffer.alloc(0);

abstract class SipMessageBase {
  headers: HeaderField[];
  body: Buffer;
  #views: Map<string, unknown> | undefined;

  constructor(headers: HeaderField[] = [], body: Buffer = EMPTY_BODY) {
    this.headers = headers;
    this.body = body;
  }

  /** The first value of a header, as written. */
  getHeader(name: string): string | undefined {
    const key = resolveHeaderName(name).key;
    for (const field of this.headers) if (field.key === key) return field.value;
    return undefined;
  }

  hasHeader(name: string): boolean {
    return this.getHeader(name) !== undefined;
  }

  /** Every field of a header, one string per header line. */
  getHeaderFields(name: string): string[] {
    const key = resolveHeaderName(name).key;
    const values: string[] = [];
    for (const field of this.headers) if (field.key === key) values.push(field.value);
    return values;
  }

  /**
   * Every element of a list header across all its lines (RFC 3261 §7.3.1: `Allow: A, B` equals
   * `Allow: A` + `Allow: B`). Headers that are not lists come back one element per line.
   */
  getHeaderList(name: string): string[] {
    const key = resolveHeaderName(name).key;
    const split = LIST_HEADERS.has(key);
    const values: string[] = [];
    for (const field of this.headers) {
      if (field.key !== key) continue;
      if (split) values.push(...splitList(field.value));
      else values.push(field.value);
    }
    return values;
  }

  /** Replaces every field of this header by one field, kept at the position of the first. */
  setHeader(name: string, value: string): this {
    const resolved = resolveHeaderName(name);
    const field = { name: resolved.display, key: resolved.key, value };
    const fields: HeaderField[] = [];
    let placed = false;
    for (const existing of this.headers) {
      if (existing.key !== resolved.key) fields.push(existing);
      else if (!placed) {
        fields.push(field);
        placed = true;
      }
    }
    if (!placed) fields.push(field);
    this.headers = fields;
    this.#views?.delete(resolved.key);
    return this;
  }

  /** Adds a field after the existing ones. */
  addHeader(name: string, value: string): this {
    const resolved = resolveHeaderName(name);
    this.headers.push({ name: resolved.display, key: resolved.key, value });
    this.#views?.delete(resolved.key);
    return this;
  }

  /** Adds a field before every other field of the same name (a new top Via, RFC 3261 §8.1.1.7). */
  prependHeader(name: string, value: string): this {
    const resolved = resolveHeaderName(name);
    const index = this.headers.findIndex((field) => field.key === resolved.key);
    const field = { name: resolved.display, key: resolved.key, value };
    if (index === -1) this.headers.push(field);
    else this.headers.splice(index, 0, field);
    this.#views?.delete(resolved.key);
    return this;
  }

  removeHeader(name: string): this {
    const key = resolveHeaderName(name).key;
    this.headers = this.headers.filter((field) => field.key !== key);
    this.#views?.delete(key);
    return this;
  }

  /** A parsed view of a header, computed once per header change. */
  protected view<T>(key: string, parse: () => T): T {
    this.#views ??= new Map();
    if (this.#views.has(key)) return this.#views.get(key) as T;
    const value = parse();
    this.#views.set(key, value);
    return value;
  }

  protected required(name: string): string {
    const value = this.getHeader(name);
    if (value === undefined) throw new SipParseError(`missing ${name} header`);
    return value;
  }

  get callId(): string {
    const value = this.required('Call-ID');
    if (value.length === 0) throw new SipParseError('empty Call-ID header');
    return value;
  }

  get cseq(): CSeq {
    return this.view('cseq', () => parseCSeq(this.required('CSeq')));
  }

  get from(): NameAddr {
    return this.view('from', () => parseNameAddr(this.required('From')));
  }

  get to(): NameAddr {
    return this.view('to', () => parseNameAddr(this.required('To')));
  }

  /** Every Via, top first, across all Via lines. */
  get vias(): Via[] {
    return this.view('via', () => {
      const vias: Via[] = [];
      for (const field of this.headers) if (field.key === 'via') vias.push(...parseVias(field.value));
      if (vias.length === 0) throw new SipParseError('missing Via header');
      return vias;
    });
  }

  get topVia(): Via {
    return this.vias[0];
  }

  /**
   * Replaces the top Via (the transport adds received/rport, RFC 3261 §18.2.1). When the top Via
   * shared a line with others, that line is split into one field per Via, which is equivalent.
   */
  replaceTopVia(via: Via): void {
    const index = this.headers.findIndex((field) => field.key === 'via');
    if (index === -1) throw new SipParseError('missing Via header');
    const rest = parseVias(this.headers[index].value).slice(1);
    const fields = [via, ...rest].map((v) => ({ name: 'Via', key: 'via', value: v.toString() }));
    this.headers.splice(index, 1, ...fields);
    // The Vias are known without parsing the fields again: the new top, then the others as they were.
    const vias = this.#views?.get('via') as Via[] | undefined;
    if (vias !== undefined) this.#views?.set('via', [via, ...vias.slice(1)]);
  }

  /** Contact name-addrs; a `Contact: *` (REGISTER only) yields an empty list. */
  get contacts(): NameAddr[] {
    return this.view('contact', () =>
      this.getHeaderList('Contact')
        .filter((value) => value !== '*')
        .map(parseNameAddr),
    );
  }

  get recordRoutes(): NameAddr[] {
    return this.view('record-route', () => this.getHeaderList('Record-Route').map(parseNameAddr));
  }

  get routes(): NameAddr[] {
    return this.view('route', () => this.getHeaderList('Route').map(parseNameAddr));
  }

  /** The media type of the body in lower case without parameters (`application/sdp`). */
  get contentType(): string | undefined {
    const value = this.getHeader('Content-Type');
    if (value === undefined) return undefined;
    const semi = value.indexOf(';');
    return (semi === -1 ? value : value.slice(0, semi)).trim().toLowerCase();
  }

  get bodyText(): string {
    return this.body.toString('utf8');
  }
}

export class SipRequest extends SipMessageBase {
  readonly type = 'request';
  method: string;
  #requestUri: string;
  #uri: Uri | undefined;

  constructor(method: string, requestUri: string | Uri, headers?: HeaderField[], body?: Buffer) {
    super(headers, body);
    this.method = method;
    if (typeof requestUri === 'string') {
      this.#requestUri = requestUri;
    } else {
      this.#requestUri = requestUri.toString();
      this.#uri = requestUri;
    }
  }

  /** The Request-URI as written on the start line. */
  get requestUri(): string {
    return this.#requestUri;
  }

  /** The parsed Request-URI (throws SipParseError when malformed). */
  get uri(): Uri {
    this.#uri ??= parseUri(this.#requestUri);
    return this.#uri;
  }

  set uri(uri: Uri) {
    this.#uri = uri;
    this.#requestUri = uri.toString();
  }
}

export class SipResponse extends SipMessageBase {
  readonly type = 'response';
  status: number;
  reason: string;

  constructor(status: number, reason: string, headers?: HeaderField[], body?: Buffer) {
    super(headers, body);
    this.status = status;
    this.reason = reason;
  }
}

export type SipMessage = SipRequest | SipResponse;

/** Builds a header field list from `[name, value]` pairs (names may be compact or any case). */
export function headerFields(pairs: ReadonlyArray<readonly [string, string]>): HeaderField[] {
  return pairs.map(([name, value]) => {
    const resolved = resolveHeaderName(name);
    return { name: resolved.display, key: resolved.key, value };
  });
}
