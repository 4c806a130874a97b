/**
 * Writes a message to bytes (RFC 3261 §7). Content-Length is always written from the actual body
 * size, whatever header the message carried, so a relayed or edited message cannot lie about it.
 *
 * No header value can inject a header or a body: CR, LF and NUL in a value (or in a reason phrase
 * or Request-URI) are replaced by a space. That is what the receiver would make of a folded line
 * anyway (RFC 3261 §7.3.1: a CRLF followed by whitespace is equivalent to one SP).
 */
import { isTokenChar } from './grammar.js';
import type { SipMessage } from './sip-message.js';

const UNSAFE_ALL = /[\r\n\0]/g;

/** Values are checked with a plain loop: this runs for every header of every message sent. */
function safe(text: string): string {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code === 0x0d || code === 0x0a || code === 0x00) return text.replace(UNSAFE_ALL, ' ');
  }
  return text;
}

/** Header names must be tokens; anything else is replaced so that the line stays one header. */
function safeName(name: string): string {
  for (let i = 0; i < name.length; i++) {
    if (!isTokenChar(name.charCodeAt(i))) {
      let out = '';
      for (let k = 0; k < name.length; k++) out += isTokenChar(name.charCodeAt(k)) ? name[k] : '-';
      return out;
    }
  }
  return name;
}

export function serializeHead(message: SipMessage): string {
  let out =
    message.type === 'request'
      ? `${safe(message.method)} ${safe(message.requestUri).replace(/ /g, '%20')} SIP/2.0\r\n`
      : `SIP/2.0 ${message.status} ${safe(message.reason)}\r\n`;
  for (const field of message.headers) {
    if (field.key === 'content-length') continue;
    out += `${safeName(field.name)}: ${safe(field.value)}\r\n`;
  }
  out += `Content-Length: ${message.body.length}\r\n\r\n`;
  return out;
}

/**
 * The message's bytes. `ownMemory`: in a Buffer of its own rather than a slice of Node's shared 8 KB
 * pool, for bytes kept long (a slice keeps its whole slab alive with the messages sent around it).
 */
export function serializeMessage(message: SipMessage, ownMemory = false): Buffer {
  const head = serializeHead(message);
  if (message.body.length === 0 && !ownMemory) return Buffer.from(head, 'utf8');
  const headLength = Buffer.byteLength(head, 'utf8');
  const out = (ownMemory ? Buffer.allocUnsafeSlow : Buffer.allocUnsafe)(headLength + message.body.length);
  out.write(head, 0, 'utf8');
  message.body.copy(out, headLength);
  return out;
}
