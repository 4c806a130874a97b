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

  describe('video', () => {
    const VIDEO = [
      'm=video 50000 RTP/AVPF 109 120',
      'a=rtpmap:109 H264/90000',
      'a=fmtp:109 packetization-mode=1;profile-level-id=42801f',
      'a=rtpmap:120 VP8/90000',
      'a=rtcp-fb:* nack',
      'a=rtcp-fb:109 nack pli',
      'a=rtcp-fb:109 ccm fir',
      'a=rtcp-fb:109 goog-remb',
    ];
    const local = (video?: { port: number; codecs: [] }) => ({
      address: '198.51.100.1',
      port: 30000,
      codecs: [{ name: 'PCMU' as const, payloadType: 0 }],
      telephoneEvents: [],
      direction: 'sendrecv' as const,
      ...(video === undefined ? {} : { video }),
    });

    it("accepts a common video codec with the offerer's payload type and fmtp, echoing NACK/PLI/FIR feedback", () => {
      const outcome = negotiateOffer(offer([...AUDIO, ...VIDEO]), ['PCMU'], ['H264', 'VP8']);
      assert.ok(outcome.ok);
      assert.deepEqual(outcome.remote.codec, { name: 'PCMU', payloadType: 0, clockRate: 8000 });
      assert.deepEqual(outcome.remote.video, {
        address: '192.0.2.10',
        port: 50000,
        codec: { name: 'H264', payloadType: 109, clockRate: 90000 },
        fmtp: 'packetization-mode=1;profile-level-id=42801f',
        feedback: [{ type: 'nack' }, { type: 'nack', subtype: 'pli' }, { type: 'ccm', subtype: 'fir' }],
        direction: 'sendrecv',
      });
      const answer = parse(new LocalSdpSession('1', 1).answer(local({ port: 30002, codecs: [] }), outcome.streams));
      assert.equal(answer.media.length, 2);
      const video = answer.media[1];
      assert.equal(video.type, 'video');
      assert.equal(video.port, 30002);
      assert.equal(video.protocol, 'RTP/AVPF');
      assert.equal(String(video.payloads), '109');
      assert.deepEqual(video.rtp, [{ payload: 109, codec: 'H264', rate: 90000 }]);
      assert.deepEqual(video.fmtp, [{ payload: 109, config: 'packetization-mode=1;profile-level-id=42801f' }]);
      assert.deepEqual(
        video.rtcpFb?.map((fb) => `${fb.payload} ${fb.type}${fb.subtype === undefined ? '' : ` ${fb.subtype}`}`),
        ['109 nack', '109 nack pli', '109 ccm fir'],
      );
      assert.equal(video.direction, 'sendrecv');
      // VP8 first in the preferences: the VP8 payload type of the same offer.
      const vp8 = negotiateOffer(offer([...AUDIO, ...VIDEO]), ['PCMU'], ['VP8']);
      assert.ok(vp8.ok);
      assert.deepEqual(vp8.remote.video?.codec, { name: 'VP8', payloadType: 120, clockRate: 90000 });
    });

    it('refuses video with port 0 for an audio-only endpoint, without a common codec, or without a video port, and leaves audio as it was', () => {
      const audioOnly = negotiateOffer(offer([...AUDIO, ...VIDEO]), ['PCMU']);
      const noCommon = negotiateOffer(offer([...AUDIO, ...VIDEO]), ['PCMU'], ['VP9']);
      for (const outcome of [audioOnly, noCommon]) {
        assert.ok(outcome.ok);
        assert.deepEqual(outcome.remote, {
          address: '192.0.2.10',
          port: 40000,
          codec: { name: 'PCMU', payloadType: 0, clockRate: 8000 },
          telephoneEventPayloadType: 101,
          direction: 'sendrecv',
        });
        const answer = parse(new LocalSdpSession('1', 1).answer(local({ port: 30002, codecs: [] }), outcome.streams));
        assert.equal(answer.media[1].port, 0);
      }
      const accepted = negotiateOffer(offer([...AUDIO, ...VIDEO]), ['PCMU'], ['H264']);
      assert.ok(accepted.ok);
      assert.equal(parse(new LocalSdpSession('1', 1).answer(local(), accepted.streams)).media[1].port, 0, 'leg without a video socket');
      // A second m=video line: one video stream per call.
      const two = negotiateOffer(offer([...AUDIO, ...VIDEO, ...VIDEO]), ['PCMU'], ['H264']);
      assert.ok(two.ok);
      const ports = parse(new LocalSdpSession('1', 1).answer(local({ port: 30002, codecs: [] }), two.streams)).media.map((m) => m.port);
      assert.deepEqual(ports, [30000, 30002, 0]);
    });

    it('follows the audio hold rules for video direction', () => {
      const held = negotiateOffer(offer([...AUDIO, ...VIDEO, 'a=sendonly']), ['PCMU'], ['H264']);
      assert.ok(held.ok);
      assert.equal(held.remote.video?.direction, 'sendonly');
      const answer = parse(new LocalSdpSession('1', 1).answer(local({ port: 30002, codecs: [] }), held.streams));
      assert.equal(answer.media[1].direction, 'recvonly');
      const oldHold = negotiateOffer(offer([...AUDIO, ...VIDEO], ['c=IN IP4 0.0.0.0']), ['PCMU'], ['H264']);
      assert.equal(oldHold.ok && oldHold.remote.video?.direction, 'sendonly');
    });

    it('offers m=video when the endpoint allows video codecs, and reads the answer', () => {
      const session = new LocalSdpSession('5', 1);
      const audio = { address: '192.0.2.1', port: 30000, ...offerFormats(['PCMU']), direction: 'sendrecv' as const };
      assert.equal(parse(session.offer(audio)).media.length, 1, 'no video codecs: audio only, as before');
      const written = parse(session.offer({ ...audio, video: { port: 30002, codecs: ['VP8', 'H264'] } }));
      assert.equal(written.media.length, 2);
      const video = written.media[1];
      assert.equal(video.port, 30002);
      assert.equal(video.payloads, '96 99');
      assert.deepEqual(
        video.rtp.map((r) => `${r.payload} ${r.codec}/${r.rate}`),
        ['96 VP8/90000', '99 H264/90000'],
      );
      assert.match(video.fmtp[0].config, /packetization-mode=1/);
      const answer = negotiateAnswer(
        offer([
          'm=audio 41000 RTP/AVP 0',
          'm=video 41002 RTP/AVP 99',
          'a=rtpmap:99 H264/90000',
          'a=fmtp:99 packetization-mode=1',
          'a=recvonly',
        ]),
        ['PCMU'],
        ['VP8', 'H264'],
      );
      assert.ok(answer.ok);
      assert.deepEqual(answer.remote.video?.codec, { name: 'H264', payloadType: 99, clockRate: 90000 });
      assert.equal(answer.remote.video?.port, 41002);
      assert.equal(answer.remote.video?.direction, 'recvonly');
      const refused = negotiateAnswer(offer(['m=audio 41000 RTP/AVP 0', 'm=video 0 RTP/AVP 99']), ['PCMU'], ['H264']);
      assert.ok(refused.ok);
      assert.equal(refused.remote.video, undefined);
    });
  });
});
