import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type SipAuthConfig, type SipEndpointConfig, silentLogger } from '@switchboard/core';
import { parseMessage } from '../../message/parser.js';
import type { SipRequest } from '../../message/sip-message.js';
import { FakeClock } from '../../test-support/fake-clock.js';
import { answerChallenge, clusterNonceSecret, computeDigestResponse, NonceManager, parseDigestCredentials } from './digest.js';
import { AuthFailureLimiter, DigestAuthenticator, digestUriMatches } from './digest-auth.js';

describe('digest computation', () => {
  it('matches the RFC 2617 §3.5 example (MD5, qop=auth)', () => {
    const response = computeDigestResponse({
      algorithm: 'MD5',
      username: 'Mufasa',
      realm: 'testrealm@host.com',
      password: 'Circle Of Life',
      method: 'GET',
      uri: '/dir/index.html',
      nonce: 'dcd98b7102dd2f0e8b11d0f600bfb0c093',
      qop: 'auth',
      nc: 1,
      cnonce: '0a4f113b',
    });
    assert.equal(response, '6629fae49393a05397450978507c4ef1');
  });

  it('matches the RFC 7616 §3.9.1 examples (MD5 and SHA-256)', () => {
    const input = {
      username: 'Mufasa',
      realm: 'http-auth@example.org',
      password: 'Circle of Life',
      method: 'GET',
      uri: '/dir/index.html',
      nonce: '7ypf/xlj9XXwfDPEoM4URrv/xwf94BcCAzFZH4GiTo0v',
      qop: 'auth' as const,
      nc: 1,
      cnonce: 'f2/wE4q74E6zIJEtWaHKaf5wv/H5QzzpXusqGemxURZJ',
    };
    assert.equal(computeDigestResponse({ ...input, algorithm: 'MD5' }), '8ca523f5e9506fed4657c9700eebdbec');
    assert.equal(
      computeDigestResponse({ ...input, algorithm: 'SHA-256' }),
      '753927fa0e85d155564e2e272a28d1802ca10daf4496794697cf8db5856cb6c1',
    );
  });

  it('parses credentials and refuses malformed or unsupported ones', () => {
    const parsed = parseDigestCredentials(
      'Digest username="alice", realm="sb", nonce="n1", uri="sip:sb", response="ABCDEF", algorithm=SHA-256, qop=auth, nc=0000000a, cnonce="c"',
    );
    assert.deepEqual(parsed, {
      username: 'alice',
      realm: 'sb',
      nonce: 'n1',
      uri: 'sip:sb',
      response: 'abcdef',
      algorithm: 'SHA-256',
      qop: 'auth',
      nc: 10,
      cnonce: 'c',
    });
    assert.equal(parseDigestCredentials('Basic YWxpY2U6cHc='), undefined);
    assert.equal(parseDigestCredentials('Digest username="a", realm="r", nonce="n", uri="u"'), undefined);
    assert.equal(parseDigestCredentials('Digest username="a", realm="r", nonce="n", uri="u", response="x", algorithm=MD5-sess'), undefined);
    assert.equal(parseDigestCredentials('Digest username="a", username="b", realm="r", nonce="n", uri="u", response="x"'), undefined);
    assert.equal(parseDigestCredentials('Digest username="a, realm="r"'), undefined);
    assert.equal(
      parseDigestCredentials('Digest username="a", realm="r", nonce="n", uri="u", response="x", qop=auth, nc=1, cnonce="c"'),
      undefined,
    );
    assert.equal(parseDigestCredentials(`Digest username="${'a'.repeat(5000)}"`), undefined);
  });
});

describe('nonces', () => {
  it('expire, refuse replays and foreign nonces', () => {
    const clock = new FakeClock();
    const nonces = new NonceManager({ now: () => clock.now(), lifetimeMs: 30_000 });
    const nonce = nonces.issue();
    assert.equal(nonces.use(nonce, 1), 'valid');
    assert.equal(nonces.use(nonce, 1), 'replayed');
    assert.equal(nonces.use(nonce, 2), 'valid');
    const once = nonces.issue();
    assert.equal(nonces.use(once, undefined), 'valid');
    assert.equal(nonces.use(once, undefined), 'replayed');
    clock.advance(30_001);
    assert.equal(nonces.use(nonce, 3), 'stale');
    assert.equal(nonces.use('AAAA', 1), 'invalid');
    const other = new NonceManager({ now: () => clock.now(), lifetimeMs: 30_000 });
    assert.equal(nonces.use(other.issue(), 1), 'invalid');
  });

  it("of a cluster verify on every node (the cluster secret's HKDF), each node refusing replays on its own", () => {
    const clock = new FakeClock();
    const secret = clusterNonceSecret('the-secret-of-this-cluster');
    assert.deepEqual(secret, clusterNonceSecret('the-secret-of-this-cluster'), 'every node derives the same key');
    assert.notDeepEqual(secret, clusterNonceSecret('the-secret-of-another-one'));
    assert.equal(secret.length, 32);
    const nodeA = new NonceManager({ now: () => clock.now(), lifetimeMs: 30_000, secret, shared: true });
    const nodeB = new NonceManager({ now: () => clock.now(), lifetimeMs: 30_000, secret, shared: true });
    const nonce = nodeA.issue();
    assert.equal(nodeB.use(nonce, 1), 'valid', "node A's challenge answered on node B");
    assert.equal(nodeB.use(nonce, 1), 'replayed');
    assert.equal(nodeB.use(nonce, 2), 'valid');
    const once = nodeA.issue();
    assert.equal(nodeB.use(once, undefined), 'valid');
    assert.equal(nodeB.use(once, undefined), 'replayed');
    clock.advance(30_001);
    assert.equal(nodeB.use(nodeA.issue(), 1), 'valid');
    assert.equal(nodeB.use(nonce, 3), 'stale');
    // A node of another cluster (or alone) does not take them; nor does one keeping the secret unshared.
    const alone = new NonceManager({ now: () => clock.now(), lifetimeMs: 30_000 });
    assert.equal(alone.use(nodeA.issue(), 1), 'invalid');
    const unshared = new NonceManager({ now: () => clock.now(), lifetimeMs: 30_000, secret });
    assert.equal(unshared.use(nodeA.issue(), 1), 'stale');
  });
});

const ALICE: SipEndpointConfig = {
  name: 'alice',
  context: 'default',
  codecs: ['PCMU'],
  aors: ['alice'],
  auth: 'alice-auth',
  mailboxes: [],
  dtmfMode: 'rfc4733',
  forceRport: false,
  rewriteContact: false,
  rtpSymmetric: false,
  directMedia: false,
};
const ALICE_AUTH: SipAuthConfig = { name: 'alice-auth', authType: 'userpass', username: 'alice', password: 'wonderland' };
const SOURCE = { address: '192.0.2.7', port: 5060 };

function register(fromUser: string, authorization?: string): SipRequest {
  const lines = [
    'REGISTER sip:127.0.0.1 SIP/2.0',
    'Via: SIP/2.0/UDP 192.0.2.7:5060;branch=z9hG4bKr1',
    `From: <sip:${fromUser}@127.0.0.1>;tag=a`,
    `To: <sip:${fromUser}@127.0.0.1>`,
    'Call-ID: reg1',
    'CSeq: 1 REGISTER',
    'Contact: <sip:alice@192.0.2.7:5060>',
    ...(authorization === undefined ? [] : [`Authorization: ${authorization}`]),
    'Content-Length: 0',
    '',
    '',
  ];
  return parseMessage(Buffer.from(lines.join('\r\n'))) as SipRequest;
}

function authenticator(clock: FakeClock): DigestAuthenticator {
  return new DigestAuthenticator({
    endpoints: [ALICE],
    auths: [ALICE_AUTH],
    clock,
    logger: silentLogger,
    limits: { maxFailures: 3, windowMs: 60_000, blockMs: 120_000 },
  });
}

function challenges(outcome: ReturnType<DigestAuthenticator['authenticate']>): string[] {
  assert.equal(outcome.kind, 'reject');
  if (outcome.kind !== 'reject') return [];
  assert.equal(outcome.status, 401);
  return (outcome.headers ?? []).filter(([name]) => name === 'WWW-Authenticate').map(([, value]) => value);
}

describe('DigestAuthenticator', () => {
  it('challenges with MD5 and SHA-256 and accepts either answer', () => {
    const clock = new FakeClock();
    const auth = authenticator(clock);
    const offered = challenges(auth.authenticate(register('alice'), SOURCE));
    assert.equal(offered.length, 2);
    assert.match(offered[0], /algorithm=MD5/);
    assert.match(offered[1], /algorithm=SHA-256/);
    assert.match(offered[0], /qop="auth"/);
    // Both challenges carry the same nonce, so the second answer uses the next nonce-count.
    for (const [index, challenge] of offered.entries()) {
      const answer = answerChallenge(
        challenge,
        { method: 'REGISTER', uri: 'sip:127.0.0.1' },
        { username: 'alice', password: 'wonderland' },
        index + 1,
      );
      assert.ok(answer !== undefined);
      const outcome = auth.authenticate(register('alice', answer), SOURCE);
      assert.equal(outcome.kind, 'accept');
    }
  });

  it('offers only the configured algorithms and refuses answers with another', () => {
    const clock = new FakeClock();
    const auth = new DigestAuthenticator({ endpoints: [ALICE], auths: [ALICE_AUTH], clock, logger: silentLogger, algorithms: ['SHA-256'] });
    const offered = challenges(auth.authenticate(register('alice'), SOURCE));
    assert.equal(offered.length, 1);
    const md5 = offered[0].replace('algorithm=SHA-256', 'algorithm=MD5');
    const answer = answerChallenge(md5, { method: 'REGISTER', uri: 'sip:127.0.0.1' }, { username: 'alice', password: 'wonderland' });
    challenges(auth.authenticate(register('alice', answer), SOURCE));
  });

  it('answers a wrong password and an unknown user alike', () => {
    const clock = new FakeClock();
    const auth = authenticator(clock);
    const [challenge] = challenges(auth.authenticate(register('alice'), SOURCE));
    const wrong = answerChallenge(challenge, { method: 'REGISTER', uri: 'sip:127.0.0.1' }, { username: 'alice', password: 'x' });
    const [unknownChallenge] = challenges(auth.authenticate(register('mallory'), SOURCE));
    const unknown = answerChallenge(unknownChallenge, { method: 'REGISTER', uri: 'sip:127.0.0.1' }, { username: 'mallory', password: 'x' });
    const a = challenges(auth.authenticate(register('alice', wrong), SOURCE));
    const b = challenges(auth.authenticate(register('mallory', unknown), SOURCE));
    const shape = (values: string[]) => values.map((v) => v.replace(/nonce="[^"]*"/, 'nonce=""'));
    assert.deepEqual(shape(a), shape(b));
  });

  it('gives stale=true for a correct answer with an expired nonce, and refuses a replay', () => {
    const clock = new FakeClock();
    const auth = authenticator(clock);
    const [challenge] = challenges(auth.authenticate(register('alice'), SOURCE));
    const answer = answerChallenge(challenge, { method: 'REGISTER', uri: 'sip:127.0.0.1' }, { username: 'alice', password: 'wonderland' });
    assert.equal(auth.authenticate(register('alice', answer), SOURCE).kind, 'accept');
    // The same nonce-count again is a replay.
    assert.doesNotMatch(challenges(auth.authenticate(register('alice', answer), SOURCE))[0], /stale/);
    clock.advance(31_000);
    const later = answerChallenge(
      challenge,
      { method: 'REGISTER', uri: 'sip:127.0.0.1' },
      { username: 'alice', password: 'wonderland' },
      2,
    );
    assert.match(challenges(auth.authenticate(register('alice', later), SOURCE))[0], /stale=true/);
  });

  it('refuses an address for a cool-off after too many failures', () => {
    const clock = new FakeClock();
    const auth = authenticator(clock);
    for (let i = 0; i < 2; i++) {
      const [challenge] = challenges(auth.authenticate(register('alice'), SOURCE));
      const wrong = answerChallenge(challenge, { method: 'REGISTER', uri: 'sip:127.0.0.1' }, { username: 'alice', password: 'bad' });
      challenges(auth.authenticate(register('alice', wrong), SOURCE));
    }
    const [challenge] = challenges(auth.authenticate(register('alice'), SOURCE));
    const wrong = answerChallenge(challenge, { method: 'REGISTER', uri: 'sip:127.0.0.1' }, { username: 'alice', password: 'bad' });
    assert.deepEqual(auth.authenticate(register('alice', wrong), SOURCE), { kind: 'reject', status: 403 });
    assert.deepEqual(auth.authenticate(register('alice'), SOURCE), { kind: 'reject', status: 403 });
    // Another address is not affected.
    challenges(auth.authenticate(register('alice'), { address: '192.0.2.8', port: 5060 }));
    clock.advance(120_001);
    challenges(auth.authenticate(register('alice'), SOURCE));
  });

  it('accepts a digest-uri naming the Request-URI, with or without the user part', () => {
    const text = [
      'INVITE sip:200@127.0.0.1:5060 SIP/2.0',
      'Via: SIP/2.0/UDP 192.0.2.7;branch=z9hG4bKx',
      'From: <sip:alice@x>;tag=1',
      'To: <sip:200@x>',
      'Call-ID: c',
      'CSeq: 1 INVITE',
      'Content-Length: 0',
      '',
      '',
    ].join('\r\n');
    const invite = parseMessage(Buffer.from(text)) as SipRequest;
    assert.equal(digestUriMatches('sip:200@127.0.0.1:5060', invite), true);
    assert.equal(digestUriMatches('sip:127.0.0.1:5060', invite), true);
    assert.equal(digestUriMatches('sip:127.0.0.1', invite), true);
    assert.equal(digestUriMatches('sip:300@127.0.0.1:5060', invite), false);
    assert.equal(digestUriMatches('sip:192.0.2.1:5060', invite), false);
    assert.equal(digestUriMatches('not a uri', invite), false);
  });

  it('limiter forgets failures outside the window', () => {
    const clock = new FakeClock();
    const limiter = new AuthFailureLimiter(() => clock.now(), { maxFailures: 2, windowMs: 1000 });
    assert.equal(limiter.recordFailure('a'), 'counted');
    clock.advance(1001);
    assert.equal(limiter.recordFailure('a'), 'counted');
    assert.equal(limiter.recordFailure('a'), 'address-blocked');
    assert.equal(limiter.isBlocked('a'), true);
  });
});
