import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { headerFields, SipRequest, SipResponse } from '../../message/sip-message.js';
import { computeDigestResponse, formatChallenge, parseDigestCredentials } from './digest.js';
import { authorizedAttempt, ChallengeResponder, nextAttempt } from './outbound-auth.js';

const credentials = { username: 'acct', password: 'trunk-secret' };

function invite(): SipRequest {
  return new SipRequest(
    'INVITE',
    'sip:5551234@trunk.example',
    headerFields([
      ['Via', 'SIP/2.0/UDP 192.0.2.1:5060;branch=z9hG4bK-first;rport'],
      ['From', '<sip:100@192.0.2.1>;tag=abc'],
      ['To', '<sip:5551234@trunk.example>'],
      ['Call-ID', 'call-1'],
      ['CSeq', '7 INVITE'],
      ['Content-Type', 'application/sdp'],
    ]),
    Buffer.from('v=0\r\n'),
  );
}

function challenge(status: 401 | 407, ...values: string[]): SipResponse {
  const name = status === 401 ? 'WWW-Authenticate' : 'Proxy-Authenticate';
  return new SipResponse(
    status,
    status === 401 ? 'Unauthorized' : 'Proxy Authentication Required',
    headerFields(values.map((v) => [name, v])),
  );
}

/** Checks an Authorization value the way a server does (digest.ts). */
function verifies(value: string, method: string, password: string): boolean {
  const parsed = parseDigestCredentials(value);
  assert.ok(parsed);
  const expected = computeDigestResponse({ ...parsed, password, method });
  return expected === parsed.response;
}

describe('outbound_auth challenges', () => {
  it('answers an MD5 401 with qop=auth in a new transaction of the same call', () => {
    const request = invite();
    const response = challenge(401, formatChallenge({ realm: 'trunk', nonce: 'n1', algorithm: 'MD5' }));
    const retry = authorizedAttempt(request, response, new ChallengeResponder(credentials));
    assert.ok(retry);
    assert.equal(retry.callId, 'call-1');
    assert.equal(retry.cseq.seq, 8);
    assert.equal(retry.cseq.method, 'INVITE');
    assert.notEqual(retry.topVia.params.get('branch'), 'z9hG4bK-first');
    assert.equal(retry.from.tag, 'abc');
    assert.equal(retry.bodyText, 'v=0\r\n');
    const authorization = retry.getHeader('Authorization');
    assert.ok(authorization);
    assert.match(authorization, /qop=auth/);
    assert.match(authorization, /algorithm=MD5/);
    assert.ok(verifies(authorization, 'INVITE', 'trunk-secret'));
    assert.equal(verifies(authorization, 'INVITE', 'wrong'), false);
  });

  it('answers a SHA-256 407 with Proxy-Authorization, taking the topmost challenge it supports', () => {
    const response = challenge(
      407,
      'Digest realm="x", nonce="a", algorithm=SHA-512-256, qop="auth"',
      formatChallenge({ realm: 'proxy', nonce: 'n2', algorithm: 'SHA-256' }),
      formatChallenge({ realm: 'proxy', nonce: 'n3', algorithm: 'MD5' }),
    );
    const retry = authorizedAttempt(invite(), response, new ChallengeResponder(credentials));
    const value = retry?.getHeader('Proxy-Authorization');
    assert.ok(value);
    assert.match(value, /algorithm=SHA-256/);
    assert.match(value, /nonce="n2"/);
    assert.ok(verifies(value, 'INVITE', 'trunk-secret'));
  });

  it('gives up on a second challenge with the same nonce, unless it is stale', () => {
    const responder = new ChallengeResponder(credentials);
    const first = challenge(401, formatChallenge({ realm: 'trunk', nonce: 'n1', algorithm: 'MD5' }));
    const retry = authorizedAttempt(invite(), first, responder);
    assert.ok(retry);
    assert.equal(authorizedAttempt(retry, first, responder), undefined, 'the same nonce again: wrong credentials');

    const staleResponder = new ChallengeResponder(credentials);
    const attempt = authorizedAttempt(invite(), first, staleResponder);
    assert.ok(attempt);
    const stale = challenge(401, formatChallenge({ realm: 'trunk', nonce: 'n1', algorithm: 'MD5', stale: true }));
    const again = authorizedAttempt(attempt, stale, staleResponder);
    assert.ok(again, 'stale=true: the credentials were fine, answer again');
    assert.equal(again.cseq.seq, 9);
    assert.equal(again.getHeaderFields('Authorization').length, 1, 'the old answer is replaced');
  });

  it('stops after a bounded number of answers and ignores what it cannot answer', () => {
    const responder = new ChallengeResponder(credentials);
    let request: SipRequest | undefined = invite();
    let answers = 0;
    for (let i = 0; i < 10 && request !== undefined; i++) {
      request = authorizedAttempt(
        request,
        challenge(401, formatChallenge({ realm: 'r', nonce: `fresh-${i}`, algorithm: 'MD5' })),
        responder,
      );
      if (request !== undefined) answers++;
    }
    assert.equal(answers, 3);
    assert.equal(authorizedAttempt(invite(), challenge(401, 'Basic realm="x"'), new ChallengeResponder(credentials)), undefined);
    assert.equal(
      authorizedAttempt(invite(), challenge(401, formatChallenge({ realm: 'r', nonce: 'n', algorithm: 'MD5' })), undefined),
      undefined,
    );
  });

  it('nextAttempt keeps everything but the branch and the CSeq number', () => {
    const request = invite();
    const next = nextAttempt(request);
    assert.equal(next.getHeader('To'), request.getHeader('To'));
    assert.equal(next.cseq.seq, request.cseq.seq + 1);
    assert.equal(request.cseq.seq, 7, 'the original is untouched');
  });
});
