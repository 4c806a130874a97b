/** Transaction matching keys (RFC 3261 §17.1.3 for clients, §17.2.3 for servers). */
import type { SipRequest, SipResponse } from '../message/sip-message.js';
import { BRANCH_MAGIC_COOKIE } from '../message/via.js';

/**
 * §17.2.3: with an RFC 3261 branch, a request matches a server transaction when the branch, the
 * sent-by of the top Via and the method are equal, where ACK matches the INVITE. Without the
 * magic cookie (RFC 2543 peers) the Request-URI, From tag, Call-ID, CSeq number and top Via are
 * compared instead; the To tag is left out so that the ACK (which carries our tag) still matches.
 * `method` overrides the request's own, which is how a CANCEL finds the INVITE it cancels (§9.2).
 */
export function serverTransactionKey(request: SipRequest, method?: string): string {
  const via = request.topVia;
  const m = method ?? (request.method === 'ACK' ? 'INVITE' : request.method);
  const branch = via.branch;
  if (branch?.startsWith(BRANCH_MAGIC_COOKIE)) return `${branch}|${via.sentBy}|${m}`;
  return `2543|${request.requestUri}|${request.from.tag ?? ''}|${request.callId}|${request.cseq.seq}|${via.toString()}|${m}`;
}

/** §17.1.3: the branch of the top Via and the CSeq method. */
export function clientTransactionKey(branch: string, method: string): string {
  return `${branch}|${method}`;
}

export function responseClientKey(response: SipResponse): string | undefined {
  const branch = response.topVia.branch;
  return branch === undefined ? undefined : clientTransactionKey(branch, response.cseq.method);
}
