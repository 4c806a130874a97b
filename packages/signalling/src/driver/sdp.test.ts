import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parse } from 'sdp-transform';
import { answerDirection, LocalSdpSession, negotiateAnswer, negotiateOffer, offerFormats } from './sdp.js';

const offer = (mLines: string[], session: string[] = ['c=IN IP4 192.0.2.10']): string =>
  ['v=0', 'o=- 1 1 IN IP4 192.0.2.10', 's=-', ...session, 't=0 0', ...mLines, ''].join('\r\n');

const AUDIO = [
  'm=audio 40000 RTP/AVP 8 0 101',
  'a=rtpmap:8 PCMA/8000',
  'a=rtpmap:0 PCMU/8000',
  'a=rtpmap:101 telephone-event/8000',
  'a=fmtp:101 0-15',
];

describe('SDP offer/answer (RFC 3264)', () => {
  it("picks the endpoint's first preferred codec the offer carries, with telephone-event", () => {
    const outcome = negotiateOffer(offer(AUDIO), ['PCMU', 'PCMA']);
    assert.ok(outcome.ok);
    assert.deepEqual(outcome.remote, {
      address: '192.0.2.10',
      port: 40000,
      codec: { name: 'PCMU', payloadType: 0, clockRate: 8000 },
      telephoneEventPayloadType: 101,
      direction: 'sendrecv',
    });
  });

  it('accepts static payload types without rtpmap and dynamic ones by name', () => {
    const staticOnly = negotiateOffer(offer(['m=audio 40000 RTP/AVP 8']), ['PCMU', 'PCMA']);
    assert.ok(staticOnly.ok);
    assert.equal(staticOnly.remote.codec.name, 'PCMA');
    assert.equal(staticOnly.remote.telephoneEventPayloadType, undefined);
    const dynamic = negotiateOffer(offer(['m=audio 40000 RTP/AVP 96 97', 'a=rtpmap:96 pcmu/8000', 'a=rtpmap:97 telephone-event/8000']), [
      'PCMU',
    ]);
    assert.ok(dynamic.ok);
    assert.deepEqual(dynamic.remote.codec, { name: 'PCMU', payloadType: 96, clockRate: 8000 });
    assert.equal(dynamic.remote.telephoneEventPayloadType, 97);
  });

  it('matches wideband codecs by their RTP clock rate, with telephone-event at the same rate', () => {
    const wideband = offer([
      'm=audio 40000 RTP/AVP 96 9 97 101',
      'a=rtpmap:96 opus/48000/2',
      'a=rtpmap:97 telephone-event/48000',
      'a=rtpmap:101 telephone-event/8000',
    ]);
    const opus = negotiateOffer(wideband, ['opus', 'PCMU']);
    assert.ok(opus.ok);
    assert.deepEqual(opus.remote.codec, { name: 'opus', payloadType: 96, clockRate: 48000 });
    assert.equal(opus.remote.telephoneEventPayloadType, 97);
    const g722 = negotiateOffer(wideband, ['G722']);
    assert.ok(g722.ok);
    assert.deepEqual(g722.remote.codec, { name: 'G722', payloadType: 9, clockRate: 8000 });
    assert.equal(g722.remote.telephoneEventPayloadType, 101);
    const formats = offerFormats(['opus', 'PCMU', 'PCMA']);
    assert.deepEqual(formats.telephoneEvents, [
      { payloadType: 101, clockRate: 48000 },
      { payloadType: 102, clockRate: 8000 },
    ]);
    const session = new LocalSdpSession('9', 1);
    const written = parse(session.offer({ address: '192.0.2.1', port: 30000, ...formats, direction: 'sendrecv' }));
    assert.equal(written.media[0].payloads, '111 0 8 101 102');
    assert.deepEqual(written.media[0].rtp[0], { payload: 111, codec: 'opus', rate: 48000, encoding: 2 });
  });

  it('answers 488 when there is no common codec or no usable audio stream', () => {
    const noCommon = negotiateOffer(offer(['m=audio 40000 RTP/AVP 9 18', 'a=rtpmap:9 G722/8000']), ['PCMU', 'PCMA']);
    assert.deepEqual(noCommon, { ok: false, status: 488, reason: 'no common codec' });
    const srtp = negotiateOffer(offer(['m=audio 40000 RTP/SAVP 0']), ['PCMU']);
    assert.equal(srtp.ok ? 0 : srtp.status, 488);
    const video = negotiateOffer(offer(['m=video 40000 RTP/AVP 96']), ['PCMU']);
    assert.equal(video.ok ? 0 : video.status, 488);
    const wrongRate = negotiateOffer(offer(['m=audio 40000 RTP/AVP 96', 'a=rtpmap:96 PCMU/16000']), ['PCMU']);
    assert.equal(wrongRate.ok, false);
    assert.equal(negotiateOffer('not sdp at all', ['PCMU']).ok, false);
  });

  it('reads the peer direction, media-level over session-level, c=0.0.0.0 as hold', () => {
    const sendonly = negotiateOffer(offer([...AUDIO, 'a=sendonly']), ['PCMU']);
    assert.equal(sendonly.ok && sendonly.remote.direction, 'sendonly');
    const session = negotiateOffer(offer(AUDIO, ['c=IN IP4 192.0.2.10', 'a=inactive']), ['PCMU']);
    assert.equal(session.ok && session.remote.direction, 'inactive');
    const oldHold = negotiateOffer(offer(AUDIO, ['c=IN IP4 0.0.0.0']), ['PCMU']);
    assert.equal(oldHold.ok && oldHold.remote.direction, 'sendonly');
    assert.equal(answerDirection('sendonly'), 'recvonly');
    assert.equal(answerDirection('recvonly'), 'sendonly');
    assert.equal(answerDirection('inactive'), 'inactive');
  });

  it('builds an answer that mirrors every m-line and rejects the ones it does not take', () => {
    const outcome = negotiateOffer(offer(['m=video 5000 RTP/AVP 96', 'a=rtpmap:96 H264/90000', ...AUDIO]), ['PCMA']);
    assert.ok(outcome.ok);
    const session = new LocalSdpSession('42', 7);
    const text = session.answer(
      {
        address: '198.51.100.1',
        port: 30000,
        codecs: [{ name: 'PCMA', payloadType: 8 }],
        telephoneEvents: [{ payloadType: 101, clockRate: 8000 }],
        direction: 'sendrecv',
      },
      outcome.streams,
    );
    const answer = parse(text);
    assert.equal(answer.origin.sessionId, 42);
    assert.equal(answer.origin.sessionVersion, 7);
    assert.equal(answer.connection?.ip, '198.51.100.1');
    assert.equal(answer.media.length, 2);
    assert.equal(answer.media[0].type, 'video');
    assert.equal(answer.media[0].port, 0);
    assert.equal(answer.media[1].port, 30000);
    assert.equal(answer.media[1].payloads, '8 101');
    assert.deepEqual(
      answer.media[1].rtp.map((r) => r.codec),
      ['PCMA', 'telephone-event'],
    );
    assert.equal(answer.media[1].fmtp[0].config, '0-16');
    assert.equal(answer.media[1].direction, 'sendrecv');
  });

  it('increments the o= version only when the description changes', () => {
    const session = new LocalSdpSession('1', 1);
    const audio = { address: '192.0.2.1', port: 30000, ...offerFormats(['PCMU', 'PCMA']), direction: 'sendrecv' as const };
    assert.equal(parse(session.offer(audio)).origin.sessionVersion, 1);
    assert.equal(parse(session.offer(audio)).origin.sessionVersion, 1);
    assert.equal(parse(session.offer({ ...audio, direction: 'sendonly' })).origin.sessionVersion, 2);
    assert.equal(parse(session.offer({ ...audio, address: '::1' })).connection?.version, 6);
  });

  it('reads the answer to our offer', () => {
    const answer = negotiateAnswer(offer(['m=audio 41000 RTP/AVP 8 101', 'a=rtpmap:101 telephone-event/8000']), ['PCMU', 'PCMA']);
    assert.ok(answer.ok);
    assert.equal(answer.remote.codec.name, 'PCMA');
    assert.equal(answer.remote.port, 41000);
    assert.equal(answer.remote.telephoneEventPayloadType, 101);
    assert.equal(negotiateAnswer(offer(['m=audio 0 RTP/AVP 0']), ['PCMU']).ok, false);
    assert.equal(negotiateAnswer(offer(['m=audio 41000 RTP/AVP 9']), ['PCMU']).ok, false);
  });
});
