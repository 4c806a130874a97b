/**
 * Small pieces of the RFC 3261 §25 grammar shared by the header parsers: tokens, quoted strings,
 * generic parameters and comma-separated lists. They work on strings by index and throw only
 * SipParseError.
 */
import { SipParseError } from '../errors.js';

/** token characters of RFC 3261 §25.1: alphanum / "-" / "." / "!" / "%" / "*" / "_" / "+" / "`" / "'" / "~" */
const TOKEN = new Uint8Array(128);
for (let c = 0x30; c <= 0x39; c++) TOKEN[c] = 1;
for (let c = 0x41; c <= 0x5a; c++) TOKEN[c] = 1;
for (let c = 0x61; c <= 0x7a; c++) TOKEN[c] = 1;
for (const ch of "-.!%*_+`'~") TOKEN[ch.charCodeAt(0)] = 1;

export function isTokenChar(code: number): boolean {
  return code < 128 && TOKEN[code] === 1;
}

export function isToken(text: string): boolean {
  if (text.length === 0) return false;
  for (let i = 0; i < text.length; i++) {
    if (!isTokenChar(text.charCodeAt(i))) return false;
  }
  return true;
}

export function isWhitespace(code: number): boolean {
  return code === 0x20 || code === 0x09 || code === 0x0d || code === 0x0a;
}

export function skipWhitespace(text: string, pos: number): number {
  while (pos < text.length && isWhitespace(text.charCodeAt(pos))) pos++;
  return pos;
}

/**
 * Reads a quoted-string starting at `pos` (which must be a DQUOTE). Returns the unescaped content
 * and the index after the closing quote. RFC 3261 §25.1: quoted-pair = "\" (%x00-09 / %x0B-0C / %x0E-7F).
 */
export function readQuotedString(text: string, pos: number): { value: string; end: number } {
  if (text.charCodeAt(pos) !== 0x22) throw new SipParseError('expected a quoted string');
  let value = '';
  let chunkStart = pos + 1;
  for (let i = pos + 1; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 0x5c) {
      if (i + 1 >= text.length) break;
      value += text.slice(chunkStart, i) + text[i + 1];
      i++;
      chunkStart = i + 1;
    } else if (code === 0x22) {
      value += text.slice(chunkStart, i);
      return { value, end: i + 1 };
    }
  }
  throw new SipParseError('unterminated quoted string');
}

/** Index of the closing quote of a quoted string opened at `pos`, honouring backslash escapes. */
export function skipQuotedString(text: string, pos: number): number {
  for (let i = pos + 1; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 0x5c) i++;
    else if (code === 0x22) return i + 1;
  }
  throw new SipParseError('unterminated quoted string');
}

/** Writes a quoted-string, escaping `"` and `\` (RFC 3261 §25.1). */
export function quote(value: string): string {
  let out = '"';
  for (let i = 0; i < value.length; i++) {
    const ch = value[i];
    if (ch === '"' || ch === '\\') out += '\\';
    out += ch;
  }
  return `${out}"`;
}

/**
 * Splits a header value at the commas that separate list elements (RFC 3261 §7.3.1), ignoring
 * commas inside quoted strings and inside `<...>` (a URI may carry commas in its parameters).
 */
export function splitList(value: string): string[] {
  if (!value.includes(',')) {
    const single = value.trim();
    return single.length > 0 ? [single] : [];
  }
  const parts: string[] = [];
  let start = 0;
  let angle = false;
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code === 0x22) {
      i = skipQuotedString(value, i) - 1;
    } else if (code === 0x3c) {
      angle = true;
    } else if (code === 0x3e) {
      angle = false;
    } else if (code === 0x2c && !angle) {
      const part = value.slice(start, i).trim();
      if (part.length > 0) parts.push(part);
      start = i + 1;
    }
  }
  const last = value.slice(start).trim();
  if (last.length > 0) parts.push(last);
  return parts;
}

/**
 * Generic parameters (`;name=value;flag`), names lower-cased, values kept as written (a quoted
 * value keeps its quotes so that it serialises unchanged); a flag has the value `null`.
 */
export type Params = Map<string, string | null>;

/**
 * Parses `*( SEMI generic-param )` from `pos` to the end of `text` (RFC 3261 §25.1:
 * generic-param = token [ EQUAL gen-value ], gen-value = token / host / quoted-string).
 */
export function parseParams(text: string, pos: number, what: string): Params {
  const params: Params = new Map();
  let i = skipWhitespace(text, pos);
  while (i < text.length) {
    if (text.charCodeAt(i) !== 0x3b) throw new SipParseError(`${what}: expected ';' before parameter`);
    i = skipWhitespace(text, i + 1);
    const nameStart = i;
    while (i < text.length && isTokenChar(text.charCodeAt(i))) i++;
    if (i === nameStart) throw new SipParseError(`${what}: empty parameter name`);
    const name = text.slice(nameStart, i).toLowerCase();
    i = skipWhitespace(text, i);
    let value: string | null = null;
    if (text.charCodeAt(i) === 0x3d) {
      i = skipWhitespace(text, i + 1);
      if (text.charCodeAt(i) === 0x22) {
        const end = skipQuotedString(text, i);
        value = text.slice(i, end);
        i = end;
      } else {
        const valueStart = i;
        // gen-value may be an IPv6 reference: allow '[', ']' and ':' besides token characters.
        while (i < text.length) {
          const code = text.charCodeAt(i);
          if (isTokenChar(code) || code === 0x5b || code === 0x5d || code === 0x3a) i++;
          else break;
        }
        if (i === valueStart) throw new SipParseError(`${what}: empty value for parameter ${name}`);
        value = text.slice(valueStart, i);
      }
      i = skipWhitespace(text, i);
    }
    params.set(name, value);
  }
  return params;
}

export function formatParams(params: Params): string {
  let out = '';
  for (const [name, value] of params) out += value === null ? `;${name}` : `;${name}=${value}`;
  return out;
}

/** A parameter value for writing: kept bare when it is a token, quoted otherwise. */
export function paramValue(value: string): string {
  return isToken(value) ? value : quote(value);
}

/** The value of a parameter with surrounding quotes removed and escapes resolved. */
export function unquoteParam(value: string | null | undefined): string | undefined {
  if (value === null || value === undefined) return undefined;
  if (value.charCodeAt(0) === 0x22) return readQuotedString(value, 0).value;
  return value;
}
