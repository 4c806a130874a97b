/**
 * The SIP message parser (RFC 3261 §7). It works on the datagram Buffer by index: it finds the
 * end of the header section with one native search, decodes only the header section to a string,
 * splits it into lines with indexOf, and leaves the body as a view into the original buffer.
 * Header values stay raw strings; the structured views are parsed on demand (see sip-message.ts).
 *
 * Whatever the input, the only exception it throws is SipParseError. When the start line was
 * readable, the error carries the partly read message so that the transport can still answer a
 * malformed request with 400 (RFC 3261 §8.2, §21.4.1).
 */
import { SipParseError } from '../errors.js';
import { isTokenChar } from './grammar.js';
import { resolveHeaderName } from './header-names.js';
import { type HeaderField, type SipMessage, SipRequest, SipResponse } from './sip-message.js';

export interface ParseLimits {
  /** Largest message accepted; RFC 3261 §18.1.1 bounds UDP messages by the datagram size anyway. */
  maxMessageBytes: number;
  maxHeaders: number;
  /** Longest header line after unfolding, and longest start line. */
  maxLineLength: number;
}

export const DEFAULT_PARSE_LIMITS: Readonly<ParseLimits> = Object.freeze({
  maxMessageBytes: 65535,
  maxHeaders: 100,
  maxLineLength: 8192,
});

export interface ParseOptions {
  /**
   * The message came in a datagram (UDP): a missing Content-Length means "the rest of the packet"
   * and bytes beyond Content-Length are discarded (RFC 3261 §18.3). Defaults to true.
   */
  datagram?: boolean;
  limits?: Partial<ParseLimits>;
}

/** Header keys a response to a refused request is built from. */
const ANSWER_HEADERS: ReadonlySet<string> = new Set(['via', 'from', 'to', 'call-id', 'cseq']);

const CRLFCRLF = Buffer.from('\r\n\r\n');
const LFLF = Buffer.from('\n\n');

export function parseMessage(buf: Buffer, options: ParseOptions = {}): SipMessage {
  const limits = options.limits === undefined ? DEFAULT_PARSE_LIMITS : { ...DEFAULT_PARSE_LIMITS, ...options.limits };
  const datagram = options.datagram ?? true;

  if (buf.length > limits.maxMessageBytes) {
    throw new SipParseError(`message of ${buf.length} bytes exceeds the limit of ${limits.maxMessageBytes}`);
  }
  // RFC 3261 §7.5: CRLFs before the start line are ignored.
  let start = 0;
  while (start < buf.length && (buf[start] === 0x0d || buf[start] === 0x0a)) start++;
  if (start === buf.length) throw new SipParseError('empty message');

  // Lines end in CRLF (RFC 3261 §7); a bare LF is tolerated as many deployed parsers do.
  let headEnd = buf.indexOf(CRLFCRLF, start);
  let bodyStart = headEnd + 4;
  if (headEnd === -1) {
    headEnd = buf.indexOf(LFLF, start);
    bodyStart = headEnd + 2;
  }
  const terminated = headEnd !== -1;
  if (!terminated) {
    headEnd = buf.length;
    bodyStart = buf.length;
  }

  const head = buf.toString('utf8', start, headEnd);
  let lineBreak = head.indexOf('\n');
  const startLineEnd = lineBreak === -1 ? head.length : lineBreak;
  const startLine = head.charCodeAt(startLineEnd - 1) === 0x0d ? head.slice(0, startLineEnd - 1) : head.slice(0, startLineEnd);
  if (startLine.length > limits.maxLineLength) throw new SipParseError('start line is too long');
  const parsedStart = parseStartLine(startLine);

  const fields: HeaderField[] = [];
  const message: SipMessage =
    parsedStart.kind === 'request'
      ? new SipRequest(parsedStart.method, parsedStart.uri, fields)
      : new SipResponse(parsedStart.status, parsedStart.reason, fields);
  // The first problem found after the start line; parsing continues so `partial` has every header.
  let problem: string | undefined;
  let problemStatus = parsedStart.kind === 'request' && !parsedStart.versionOk ? 505 : 400;
  if (problemStatus === 505) problem = 'unsupported SIP version';
  // RFC 4475 §3.1.2.8/§3.1.2.9: a Request-URI with whitespace in it (or extra spaces around it)
  // is refused with 400, so the headers are still read to answer it.
  else if (parsedStart.kind === 'request' && parsedStart.uriProblem !== undefined) problem = parsedStart.uriProblem;

  let pos = lineBreak === -1 ? head.length : lineBreak + 1;
  let current: HeaderField | undefined;
  let headerCount = 0;
  while (pos < head.length) {
    lineBreak = head.indexOf('\n', pos);
    const end = lineBreak === -1 ? head.length : lineBreak;
    const lineEnd = end > pos && head.charCodeAt(end - 1) === 0x0d ? end - 1 : end;
    const first = head.charCodeAt(pos);
    if (lineEnd - pos > limits.maxLineLength) {
      // The line is skipped, not the message: the identifying headers around it still let the
      // request be answered 400 (RFC 3261 §21.4.1) instead of leaving the sender to retransmit.
      problem ??= 'header line is too long';
      current = undefined;
    } else if (first === 0x20 || first === 0x09) {
      // RFC 3261 §7.3.1: a line starting with whitespace continues the previous header (folding).
      if (current === undefined) {
        problem ??= 'continuation line before the first header';
      } else {
        const more = head.slice(pos, lineEnd).trim();
        if (more.length > 0) current.value = current.value.length === 0 ? more : `${current.value} ${more}`;
        if (current.value.length > limits.maxLineLength) {
          problem ??= 'header line is too long';
          current.value = current.value.slice(0, limits.maxLineLength);
        }
      }
    } else if (lineEnd > pos) {
      const colon = head.indexOf(':', pos);
      if (colon === -1 || colon >= lineEnd) {
        problem ??= 'header line without a colon';
        current = undefined;
      } else {
        let nameEnd = colon;
        while (nameEnd > pos && (head.charCodeAt(nameEnd - 1) === 0x20 || head.charCodeAt(nameEnd - 1) === 0x09)) nameEnd--;
        let valid = nameEnd > pos;
        for (let i = pos; valid && i < nameEnd; i++) valid = isTokenChar(head.charCodeAt(i));
        if (!valid) {
          problem ??= 'malformed header name';
          current = undefined;
        } else {
          const resolved = resolveHeaderName(head.slice(pos, nameEnd));
          headerCount++;
          if (headerCount > limits.maxHeaders) {
            // Past the limit only the headers a 400 must echo are kept (RFC 3261 §8.2.6.2).
            problem ??= `more than ${limits.maxHeaders} headers`;
            current = undefined;
            if (ANSWER_HEADERS.has(resolved.key)) {
              current = { name: resolved.display, key: resolved.key, value: head.slice(colon + 1, lineEnd).trim() };
              fields.push(current);
            }
          } else {
            current = { name: resolved.display, key: resolved.key, value: head.slice(colon + 1, lineEnd).trim() };
            fields.push(current);
          }
        }
      }
    }
    pos = end + 1;
  }

  if (!terminated) {
    throw new SipParseError('missing empty line after the headers', { partial: message });
  }

  const available = buf.length - bodyStart;
  let contentLength: number | undefined;
  for (const field of fields) {
    if (field.key !== 'content-length') continue;
    const value = parseContentLength(field.value);
    if (value === undefined) {
      problem ??= 'malformed Content-Length';
    } else if (contentLength !== undefined && contentLength !== value) {
      problem ??= 'conflicting Content-Length headers';
    } else {
      contentLength = value;
    }
  }
  if (problem !== undefined) throw new SipParseError(problem, { status: problemStatus, partial: message });

  if (contentLength === undefined) {
    if (!datagram) throw new SipParseError('missing Content-Length on a stream transport', { partial: message });
    contentLength = available;
  } else if (contentLength > available) {
    problemStatus = 400;
    throw new SipParseError(`body has ${available} bytes, fewer than Content-Length ${contentLength}`, {
      status: problemStatus,
      partial: message,
    });
  }
  // RFC 3261 §18.3: on a datagram, bytes past Content-Length are discarded.
  if (contentLength > 0) message.body = buf.subarray(bodyStart, bodyStart + contentLength);
  return message;
}

type StartLine =
  | { kind: 'request'; method: string; uri: string; versionOk: boolean; uriProblem?: string }
  | { kind: 'response'; status: number; reason: string };

function parseStartLine(line: string): StartLine {
  if (line.length === 0) throw new SipParseError('empty start line');
  if (line.charCodeAt(0) === 0x53 && line.startsWith('SIP/')) {
    // Status-Line = SIP-Version SP Status-Code SP Reason-Phrase (RFC 3261 §7.2)
    const sp = line.indexOf(' ');
    if (sp === -1 || line.slice(0, sp) !== 'SIP/2.0') throw new SipParseError('malformed status line');
    const code = line.slice(sp + 1, sp + 4);
    const after = line.charCodeAt(sp + 4);
    if (!/^[1-6][0-9][0-9]$/.test(code) || !(Number.isNaN(after) || after === 0x20)) {
      throw new SipParseError('malformed status code');
    }
    return { kind: 'response', status: Number(code), reason: line.slice(sp + 5) };
  }
  // Request-Line = Method SP Request-URI SP SIP-Version (RFC 3261 §7.1)
  const sp1 = line.indexOf(' ');
  const sp2 = line.lastIndexOf(' ');
  if (sp1 <= 0 || sp2 === sp1) throw new SipParseError('truncated request line');
  for (let i = 0; i < sp1; i++) {
    if (!isTokenChar(line.charCodeAt(i))) throw new SipParseError('malformed method');
  }
  const uri = line.slice(sp1 + 1, sp2);
  const version = line.slice(sp2 + 1);
  if (!/^SIP\/[0-9]+\.[0-9]+$/i.test(version)) throw new SipParseError('malformed SIP version');
  const versionOk = version.toUpperCase() === 'SIP/2.0';
  const method = line.slice(0, sp1);
  if (uri.trim().length === 0) throw new SipParseError('malformed Request-URI');
  // The Request-URI is kept (as the text between the outer spaces) only so that the request can be
  // answered; reading it throws.
  if (uri.includes(' ')) return { kind: 'request', method, uri: uri.trim(), versionOk, uriProblem: 'malformed Request-URI' };
  return { kind: 'request', method, uri, versionOk };
}

function parseContentLength(value: string): number | undefined {
  if (value.length === 0 || value.length > 9) return undefined;
  let n = 0;
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    if (code < 0x30 || code > 0x39) return undefined;
    n = n * 10 + (code - 0x30);
  }
  return n;
}
