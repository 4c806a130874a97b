/**
 * The checks every received message must pass before a transaction can be matched to it:
 * a readable top Via, Call-ID, From, To and CSeq (RFC 3261 §8.1.1, §8.2) and, for requests,
 * a readable Request-URI, a CSeq method equal to the request method (§8.2.6 / §20.16) and
 * readable Contacts.
 */
import { SipParseError } from '../errors.js';
import type { SipMessage } from './sip-message.js';

/** Returns why the message is unusable, or undefined when it is fine. */
export function findEssentialProblem(message: SipMessage): string | undefined {
  try {
    void message.topVia;
    void message.callId;
    void message.from;
    void message.to;
    const cseq = message.cseq;
    if (message.type === 'request') {
      void message.uri;
      if (cseq.method !== message.method) return 'CSeq method does not match the request method';
      // The Contact becomes a dialog's remote target or a binding (§8.1.1.8, §10.2.1): checked
      // here so that a bad one is answered 400 statelessly instead of failing inside a transaction.
      void message.contacts;
    }
    return undefined;
  } catch (err) {
    if (err instanceof SipParseError) return err.message;
    throw err;
  }
}

/**
 * Whether a malformed request can still be answered: the response needs a readable top Via to
 * find its way back and the other identifying headers to echo (RFC 3261 §8.2.6.2).
 */
export function canAnswer(message: SipMessage): boolean {
  if (message.type !== 'request' || message.method === 'ACK') return false;
  try {
    void message.topVia;
  } catch (err) {
    if (err instanceof SipParseError) return false;
    throw err;
  }
  return message.hasHeader('From') && message.hasHeader('To') && message.hasHeader('Call-ID') && message.hasHeader('CSeq');
}
