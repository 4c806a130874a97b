/** The ACK a client transaction sends for a non-2xx final response (RFC 3261 §17.1.1.3). */
import { type HeaderField, SipRequest, type SipResponse } from '../message/sip-message.js';

export function buildAckForNon2xx(invite: SipRequest, response: SipResponse): SipRequest {
  const headers: HeaderField[] = [];
  // Exactly one Via, equal to the top Via of the original request.
  headers.push({ name: 'Via', key: 'via', value: invite.topVia.toString() });
  for (const field of invite.headers) {
    if (field.key === 'route' || field.key === 'from' || field.key === 'call-id' || field.key === 'max-forwards') {
      headers.push({ ...field });
    }
  }
  const to = response.getHeader('To');
  if (to !== undefined) headers.push({ name: 'To', key: 'to', value: to });
  headers.push({ name: 'CSeq', key: 'cseq', value: `${invite.cseq.seq} ACK` });
  return new SipRequest('ACK', invite.requestUri, headers);
}
