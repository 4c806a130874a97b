/**
 * Regression tests: digest answers must not tell known users from unknown ones, every bad answer
 * counts as a failure, and guessing spread over many addresses is stopped.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type SipAuthConfig, type SipEndpointConfig, silentLogger } from '@switchboard/core';
import { parseMessage } from '../../message/parser.js';
import type { SipRequest } from '../../message/sip-message.js';
import { FakeClock } from '../../test-support/fake-clock.js';
import { answerChallenge } from './digest.js';
import { DigestAuthenticator } from './digest-auth.js';
import type { AuthOutcome } from './identify.js';

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

function register(fromUser: string, authorization?: string): SipRequest {
  const lines = [
    'REGISTER sip:127.0.0.1 SIP/2.0',
    'Via: SIP/2.0/UDP 192.0.2.7:5060;branch=z9hG4bKr1',
    `From: <sip:${fromUser}@127.0.0.1>;tag=a`,
    `To: <sip:${fromUser}@127.0.0.1>`,
    'Call-ID: reg1',
    'CSeq: 1 REGISTER',
    'Contact: <sip:x@192.0.2.7:5060>',
    ...(authorization === undefined ? [] : [`Authorization: ${authorization}`]),
    'Content-Length: 0',
    '',
    '',
  ];
  return parseMessage(Buffer.from(lines.join('\r\n'))) as SipRequest;
}

function challenge(outcome: AuthOutcome): string {
  assert.equal(outcome.kind, 'reject');
  assert.equal(outcome.kind === 'reject' && outcome.status, 401);
  const value = outcome.kind === 'reject' ? outcome.headers?.[0]?.[1] : undefined;
  assert.ok(value !== undefined);
  return value;
}

function answer(auth: DigestAuthenticator, user: string, password: string, uri: string, source: { address: string; port: number }): string {
  const offered = challenge(auth.authenticate(register(user), source));
  const text = answerChallenge(offered, { method: 'REGISTER', uri }, { username: user, password });
  assert.ok(text !== undefined);
  return text;
}

const SOURCE = { address: '192.0.2.7', port: 5060 };

describe('digest authentication against enumeration and guessing', () => {
  it('answers a mismatched digest uri 401 for known and unknown users alike, and counts it', () => {
    const clock = new FakeClock();
    const auth = new DigestAuthenticator({
      endpoints: [ALICE],
      auths: [ALICE_AUTH],
      clock,
      logger: silentLogger,
      limits: { maxFailures: 2 },
    });
    const known = auth.authenticate(register('alice', answer(auth, 'alice', 'wonderland', 'sip:elsewhere.example', SOURCE)), SOURCE);
    const unknown = auth.authenticate(register('mallory', answer(auth, 'mallory', 'x', 'sip:elsewhere.example', SOURCE)), SOURCE);
    assert.equal(known.kind === 'reject' && known.status, 401);
    assert.equal(unknown.kind === 'reject' && unknown.status, 403, 'the second mismatch is the second failure');
  });

  it('locks out guesses spread over many addresses while a client that logged in before still gets in', () => {
    const clock = new FakeClock();
    const auth = new DigestAuthenticator({
      endpoints: [ALICE],
      auths: [ALICE_AUTH],
      clock,
      logger: silentLogger,
      limits: { maxFailures: 10, maxGlobalFailures: 20, windowMs: 60_000, blockMs: 60_000 },
    });
    const good = { address: '192.0.2.50', port: 5060 };
    assert.equal(auth.authenticate(register('alice', answer(auth, 'alice', 'wonderland', 'sip:127.0.0.1', good)), good).kind, 'accept');
    for (let i = 0; i < 20; i++) {
      const source = { address: `198.51.100.${i + 1}`, port: 5060 };
      auth.authenticate(register('alice', answer(auth, 'alice', `guess${i}`, 'sip:127.0.0.1', source)), source);
    }
    const newcomer = { address: '203.0.113.9', port: 5060 };
    const refused = auth.authenticate(register('alice'), newcomer);
    assert.equal(refused.kind === 'reject' && refused.status, 403, 'a right guess from a new address is not even checked');
    assert.equal(auth.authenticate(register('alice', answer(auth, 'alice', 'wonderland', 'sip:127.0.0.1', good)), good).kind, 'accept');
    clock.advance(60_001);
    challenge(auth.authenticate(register('alice'), newcomer));
  });
});
