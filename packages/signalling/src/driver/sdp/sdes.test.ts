/**
 * SDES offer/answer (RFC 4568) for each `media_encryption` policy: which offers are accepted, which
 * are refused with 488, what our offers and answers carry, and that the keys handed to the media leg
 * are the ones the two SDPs exchanged.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { parse } from 'sdp-transform';
import { LocalSdpSession, negotiateAnswer, negotiateOffer, offerFormats } from './sdp.js';

const KEY30 = randomBytes(30).toString('base64');
const KEY44 = randomBytes(44).toString('base64');

const offer = (protocol: string, crypto: string[]): string =>
  [
    'v=0',
    'o=- 1 1 IN IP4 192.0.2.10',
    's=-',
    'c=IN IP4 192.0.2.10',
    't=0 0',
    `m=audio 40000 ${protocol} 0 101`,
    'a=rtpmap:0 PCMU/8000',
    'a=rtpmap:101 telephone-event/8000',
    ...crypto,
    '',
  ].join('\r\n');

function session(encryption: 'no' | 'sdes' | 'dtls', optimistic = false): LocalSdpSession {
  const sdp = new LocalSdpSession();
  sdp.security = { encryption, optimistic };
  return sdp;
}

const local = { address: '192.0.2.1', port: 30000, direction: 'sendrecv' as const, ...offerFormats(['PCMU']) };

describe('SDES: answering offers', () => {
  it('accepts RTP/SAVP with the first usable a=crypto line and answers its tag with our key', () => {
    const sdp = session('sdes');
    const text = offer('RTP/SAVP', [
      'a=crypto:1 AES_CM_256_HMAC_SHA1_80 inline:' + KEY44, // a suite we do not speak
      `a=crypto:2 AES_CM_128_HMAC_SHA1_80 inline:${KEY30}|2^20|1:4`, // an MKI: we send none
      `a=crypto:3 AES_CM_128_HMAC_SHA1_80 inline:${KEY30} UNENCRYPTED_SRTP`, // a session parameter
      `a=crypto:4 AES_CM_128_HMAC_SHA1_32 inline:${KEY30}|2^31`,
    ]);
    const outcome = negotiateOffer(text, ['PCMU'], [], sdp);
    assert.ok(outcome.ok);
    assert.equal(outcome.remote.srtp?.suite, 'AES_CM_128_HMAC_SHA1_32');
    assert.equal(outcome.remote.srtp?.remoteMasterKey, KEY30);
    const answer = parse(sdp.answer(local, outcome.streams));
    assert.equal(answer.media[0].protocol, 'RTP/SAVP');
    assert.equal(answer.media[0].crypto?.length, 1);
    const line = answer.media[0].crypto?.[0];
    assert.equal(line?.id, 4);
    assert.equal(line?.suite, 'AES_CM_128_HMAC_SHA1_32');
    assert.equal(line?.config, `inline:${outcome.remote.srtp?.localMasterKey}`);
    assert.equal(Buffer.from(outcome.remote.srtp?.localMasterKey ?? '', 'base64').length, 30);
  });

  it('accepts AEAD_AES_256_GCM when the peer offers it', () => {
    const outcome = negotiateOffer(offer('RTP/SAVP', [`a=crypto:7 AEAD_AES_256_GCM inline:${KEY44}`]), ['PCMU'], [], session('sdes'));
    assert.ok(outcome.ok);
    assert.equal(outcome.remote.srtp?.suite, 'AEAD_AES_256_GCM');
    assert.equal(Buffer.from(outcome.remote.srtp?.localMasterKey ?? '', 'base64').length, 44);
  });

  it('refuses with 488: SAVP to a plain endpoint, SAVP without usable keys, plain RTP to a mandatory one', () => {
    const savp = offer('RTP/SAVP', [`a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:${KEY30}`]);
    const plain = negotiateOffer(savp, ['PCMU'], [], session('no'));
    assert.equal(plain.ok, false);
    assert.equal(!plain.ok && plain.status, 488);
    const badKey = negotiateOffer(offer('RTP/SAVP', [`a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:${KEY44}`]), ['PCMU'], [], session('sdes'));
    assert.deepEqual(badKey, { ok: false, status: 488, reason: 'no usable a=crypto line' });
    const avp = negotiateOffer(offer('RTP/AVP', []), ['PCMU'], [], session('sdes'));
    assert.deepEqual(avp, { ok: false, status: 488, reason: 'the endpoint requires SRTP (media_encryption = sdes)' });
  });

  it('optimistic: plain RTP without keys, SRTP when an RTP/AVP offer carries a=crypto', () => {
    const plain = negotiateOffer(offer('RTP/AVP', []), ['PCMU'], [], session('sdes', true));
    assert.ok(plain.ok);
    assert.equal(plain.remote.srtp, undefined);
    const keyed = negotiateOffer(
      offer('RTP/AVP', [`a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:${KEY30}`]),
      ['PCMU'],
      [],
      session('sdes', true),
    );
    assert.ok(keyed.ok);
    assert.equal(keyed.remote.srtp?.suite, 'AES_CM_128_HMAC_SHA1_80');
  });

  it('media_encryption = dtls refuses a plain RTP offer rather than carrying plain media', () => {
    const outcome = negotiateOffer(offer('RTP/AVP', []), ['PCMU'], [], session('dtls'));
    assert.deepEqual(outcome, {
      ok: false,
      status: 488,
      reason: 'the endpoint requires DTLS-SRTP (media_encryption = dtls), offered RTP/AVP',
    });
  });

  it('an encrypting endpoint answers an offered video stream with port 0 (video is never sent in the clear)', () => {
    const sdp = session('sdes', true);
    const text = offer('RTP/AVP', [`a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:${KEY30}`]).replace(
      't=0 0\r\n',
      't=0 0\r\nm=video 40002 RTP/AVP 96\r\na=rtpmap:96 VP8/90000\r\n',
    );
    const outcome = negotiateOffer(text, ['PCMU'], ['VP8'], sdp);
    assert.ok(outcome.ok);
    assert.equal(outcome.remote.video, undefined);
    const answer = parse(sdp.answer({ ...local, video: { port: 30002, codecs: ['VP8'] } }, outcome.streams));
    assert.equal(answer.media.find((m) => m.type === 'video')?.port, 0);
  });

  it('a plain endpoint ignores a=crypto on RTP/AVP', () => {
    const sdp = session('no');
    const outcome = negotiateOffer(offer('RTP/AVP', [`a=crypto:1 AES_CM_128_HMAC_SHA1_80 inline:${KEY30}`]), ['PCMU'], [], sdp);
    assert.ok(outcome.ok);
    assert.equal(outcome.remote.srtp, undefined);
    assert.equal(parse(sdp.answer(local, outcome.streams)).media[0].crypto, undefined);
  });
});

describe('SDES: our offers and their answers', () => {
  it('offers RTP/SAVP with both AES-CM suites, repeats the same keys, and reads the answer', () => {
    const sdp = session('sdes');
    const first = parse(sdp.offer(local));
    assert.equal(first.media[0].protocol, 'RTP/SAVP');
    assert.deepEqual(
      first.media[0].crypto?.map((c) => [c.id, c.suite]),
      [
        [1, 'AES_CM_128_HMAC_SHA1_80'],
        [2, 'AES_CM_128_HMAC_SHA1_32'],
      ],
    );
    const again = parse(sdp.offer({ ...local, direction: 'sendonly' }));
    assert.deepEqual(again.media[0].crypto, first.media[0].crypto, 'a re-offer keeps our keys');

    const answerText = offer('RTP/SAVP', [`a=crypto:2 AES_CM_128_HMAC_SHA1_32 inline:${KEY30}`]);
    const outcome = negotiateAnswer(answerText, ['PCMU'], [], sdp);
    assert.ok(outcome.ok);
    assert.deepEqual(outcome.remote.srtp, {
      suite: 'AES_CM_128_HMAC_SHA1_32',
      localMasterKey: first.media[0].crypto?.[1].config.slice('inline:'.length),
      remoteMasterKey: KEY30,
    });
    // A tag answered with another suite than we offered under it is not an agreement.
    const mismatched = negotiateAnswer(offer('RTP/SAVP', [`a=crypto:1 AES_CM_128_HMAC_SHA1_32 inline:${KEY30}`]), ['PCMU'], [], sdp);
    assert.equal(mismatched.ok, false);
    assert.equal(negotiateAnswer(offer('RTP/AVP', []), ['PCMU'], [], sdp).ok, false);
  });

  it('optimistic offers keys on RTP/AVP and accepts a plain answer', () => {
    const sdp = session('sdes', true);
    const made = parse(sdp.offer(local));
    assert.equal(made.media[0].protocol, 'RTP/AVP');
    assert.equal(made.media[0].crypto?.length, 2);
    const outcome = negotiateAnswer(offer('RTP/AVP', []), ['PCMU'], [], sdp);
    assert.ok(outcome.ok);
    assert.equal(outcome.remote.srtp, undefined);
  });

  it('a plain endpoint offers RTP/AVP without keys', () => {
    const made = parse(session('no').offer(local));
    assert.equal(made.media[0].protocol, 'RTP/AVP');
    assert.equal(made.media[0].crypto, undefined);
  });
});
