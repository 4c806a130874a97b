/**
 * name-addr / addr-spec with header parameters: the value of From, To, Contact, Route,
 * Record-Route, Refer-To (RFC 3261 §20.10, §25.1).
 */
import { SipParseError } from '../errors.js';
import { formatParams, isTokenChar, type Params, parseParams, quote, readQuotedString, skipWhitespace } from './grammar.js';
import { parseUri, type Uri } from './uri.js';

export class NameAddr {
  /** Display name, unquoted and unescaped; undefined when absent. */
  displayName: string | undefined;
  uri: Uri;
  /** Header parameters (`;tag=...`, `;expires=...`), not the URI's own parameters. */
  params: Params;

  constructor(uri: Uri, displayName?: string, params?: Params) {
    this.uri = uri;
    this.displayName = displayName;
    this.params = params ?? new Map();
  }

  get tag(): string | undefined {
    return this.params.get('tag') ?? undefined;
  }

  set tag(value: string | undefined) {
    if (value === undefined) this.params.delete('tag');
    else this.params.set('tag', value);
  }

  clone(): NameAddr {
    const uri = this.uri.kind === 'sip' ? this.uri.clone() : this.uri;
    return new NameAddr(uri, this.displayName, new Map(this.params));
  }

  /** Always written in name-addr form (angle brackets), which is valid for every URI. */
  toString(): string {
    const display = this.displayName === undefined || this.displayName === '' ? '' : `${quote(this.displayName)} `;
    return `${display}<${this.uri.toString()}>${formatParams(this.params)}`;
  }
}

/** Parses one element of a From/To/Contact/Route list. */
export function parseNameAddr(text: string): NameAddr {
  let i = skipWhitespace(text, 0);
  let displayName: string | undefined;
  let uriText: string;
  let paramsStart: number;

  if (text.charCodeAt(i) === 0x22) {
    const quoted = readQuotedString(text, i);
    displayName = quoted.value;
    i = skipWhitespace(text, quoted.end);
    if (text.charCodeAt(i) !== 0x3c) throw new SipParseError("expected '<' after the display name");
  }

  const open = text.indexOf('<', i);
  if (open !== -1) {
    if (displayName === undefined && open > i) {
      // display-name = *(token LWS): unquoted words before the '<'
      const words = text.slice(i, open).trim();
      for (let k = 0; k < words.length; k++) {
        const code = words.charCodeAt(k);
        if (!isTokenChar(code) && code !== 0x20 && code !== 0x09) {
          throw new SipParseError('unquoted display name contains a character that is not a token');
        }
      }
      if (words.length > 0) displayName = words.replace(/[ \t]+/g, ' ');
    }
    const close = text.indexOf('>', open + 1);
    if (close === -1) throw new SipParseError("missing '>' after the URI");
    uriText = text.slice(open + 1, close);
    paramsStart = close + 1;
  } else {
    // addr-spec form: the URI cannot contain ';' here (RFC 3261 §20.10), so parameters begin at
    // the first ';' and belong to the header.
    const semi = text.indexOf(';', i);
    const end = semi === -1 ? text.length : semi;
    uriText = text.slice(i, end).trim();
    paramsStart = end;
  }

  if (uriText.length === 0) throw new SipParseError('empty URI');
  const uri = parseUri(uriText);
  const params = parseParams(text, paramsStart, 'name-addr');
  return new NameAddr(uri, displayName, params);
}
