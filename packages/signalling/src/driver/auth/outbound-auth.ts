/**
 * Answering the digest challenges of requests we send (pjsip.conf `outbound_auth`): a trunk or
 * proxy that answers 401 (WWW-Authenticate) or 407 (Proxy-Authenticate) gets the request again
 * with credentials (RFC 3261 §22.2, §22.3), MD5 or SHA-256 (RFC 8760), `qop=auth` when offered
 * (RFC 7616 §3.4). The retry is a new transaction of the same call: same Call-ID and From tag, the
 * next CSeq, a new Via branch (§8.1.3.5).
 *
 * A second challenge with a nonce we already answered means the credentials were refused; we give
 * up then, unless the challenge says `stale=true` (RFC 7616 §3.3: the nonce expired, the
 * credentials were fine). A bounded number of answers stops a server that issues fresh nonces
 * forever.
 */
import type { ChallengeAnswerer } from '../../dialog/dialog.js';
import { newBranch } from '../../message/ids.js';
import { SipRequest, type SipResponse } from '../../message/sip-message.js';
import { answerChallenge, readChallengeParams } from './digest.js';

export interface OutboundCredentials {
  username: string;
  password: string;
}

/** At most this many challenges are answered for one request. */
export const MAX_CHALLENGE_ANSWERS = 3;

/** One request's answers to its challenges (keeps the nonces it answered). */
export class ChallengeResponder {
  readonly #credentials: OutboundCredentials;
  readonly #answered = new Set<string>();
  #nonceCount = 0;

  constructor(credentials: OutboundCredentials) {
    this.#credentials = credentials;
  }

  /**
   * The Authorization (401) or Proxy-Authorization (407) header answering the response's first
   * challenge we can answer (the topmost supported one, RFC 7616 §3.7), or undefined to give up.
   */
  answer(response: SipResponse, request: { method: string; uri: string }): { name: string; value: string } | undefined {
    if (response.status !== 401 && response.status !== 407) return undefined;
    if (this.#answered.size >= MAX_CHALLENGE_ANSWERS) return undefined;
    const proxy = response.status === 407;
    for (const challenge of response.getHeaderFields(proxy ? 'Proxy-Authenticate' : 'WWW-Authenticate')) {
      const params = readChallengeParams(challenge);
      const nonce = params?.get('nonce');
      if (params === undefined || nonce === undefined) continue;
      const stale = params.get('stale')?.toLowerCase() === 'true';
      if (this.#answered.has(nonce) && !stale) return undefined;
      const value = answerChallenge(challenge, request, this.#credentials, ++this.#nonceCount);
      if (value === undefined) continue;
      this.#answered.add(nonce);
      return { name: proxy ? 'Proxy-Authorization' : 'Authorization', value };
    }
    return undefined;
  }
}

/**
 * The same request again as a new transaction (RFC 3261 §8.1.3.5): a new Via branch and the next
 * CSeq number, every other header and the body unchanged.
 */
export function nextAttempt(request: SipRequest): SipRequest {
  const retry = new SipRequest(
    request.method,
    request.requestUri,
    request.headers.map((field) => ({ ...field })),
    request.body,
  );
  const via = request.topVia.clone();
  via.params.set('branch', newBranch());
  retry.replaceTopVia(via);
  retry.setHeader('CSeq', `${request.cseq.seq + 1} ${request.method}`);
  return retry;
}

/** `request` answered with credentials: a new attempt carrying them, or undefined to give up. */
export function authorizedAttempt(
  request: SipRequest,
  response: SipResponse,
  responder: ChallengeResponder | undefined,
): SipRequest | undefined {
  if (responder === undefined) return undefined;
  const header = responder.answer(response, { method: request.method, uri: request.requestUri.toString() });
  if (header === undefined) return undefined;
  const retry = nextAttempt(request);
  // A previous answer is replaced, not piled up.
  retry.removeHeader('Authorization');
  retry.removeHeader('Proxy-Authorization');
  retry.setHeader(header.name, header.value);
  return retry;
}

/** For `Dialog.challengeAnswerer`: a fresh responder (its own nonce memory) for each request. */
export function dialogChallengeAnswerer(credentials: OutboundCredentials): () => ChallengeAnswerer {
  return () => {
    const responder = new ChallengeResponder(credentials);
    return (response, request) => responder.answer(response, request);
  };
}
