/** The CSeq header (RFC 3261 §20.16): a sequence number below 2**31 and a method. */
import { SipParseError } from '../errors.js';
import { isToken } from './grammar.js';

export interface CSeq {
  seq: number;
  method: string;
}

export function parseCSeq(value: string): CSeq {
  const text = value.trim();
  let i = 0;
  let seq = 0;
  while (i < text.length) {
    const code = text.charCodeAt(i);
    if (code < 0x30 || code > 0x39) break;
    seq = seq * 10 + (code - 0x30);
    if (seq >= 2 ** 31) throw new SipParseError('CSeq: sequence number is 2**31 or more');
    i++;
  }
  if (i === 0 || i > 10) throw new SipParseError('CSeq: malformed sequence number');
  const method = text.slice(i).trim();
  if (i === text.length || (text.charCodeAt(i) !== 0x20 && text.charCodeAt(i) !== 0x09) || !isToken(method)) {
    throw new SipParseError('CSeq: malformed method');
  }
  return { seq, method };
}

export function formatCSeq(cseq: CSeq): string {
  return `${cseq.seq} ${cseq.method}`;
}
