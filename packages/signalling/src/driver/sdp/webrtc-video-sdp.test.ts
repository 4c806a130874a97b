/**
 * BUNDLEd browser video in offer/answer (sdp.ts, local-sdp.ts, sdp-video.ts) against a real
 * Chromium offer with one audio and one video transceiver (captured from Chromium's
 * createOffer()): the video rides on the audio's transport (RFC 8843), so the leg's video remote
 * is marked bundled and our answer repeats the audio's port, ICE and DTLS attributes under its own
 * a=mid, names both in a=group:BUNDLE, keeps rtcp-mux and echoes only the feedback we act on.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { parse } from 'sdp-transform';
import { type DtlsIdentity, ephemeralDtlsIdentity } from './dtls-certificates.js';
import { LocalSdpSession, negotiateAnswer, negotiateOffer, offerFormats } from './sdp.js';
import { legVideo } from './sdp-video.js';

/** Chromium's offer: addTransceiver('audio'), addTransceiver('video'), after ICE gathering. */
const CHROME_VIDEO_OFFER = [
  'v=0',
  'o=- 522722821903342476 2 IN IP4 127.0.0.1',
  's=-',
  't=0 0',
  'a=group:BUNDLE 0 1',
  'a=extmap-allow-mixed',
  'a=msid-semantic: WMS',
  'm=audio 48771 UDP/TLS/RTP/SAVPF 111 63 9 0 8 13 110 126',
  'c=IN IP4 192.0.2.2',
  'a=rtcp:9 IN IP4 0.0.0.0',
  'a=candidate:3303385167 1 udp 2113937151 192.0.2.2 48771 typ host generation 0 network-cost 999',
  'a=candidate:260270511 1 udp 2113942271 fd00::2 44002 typ host generation 0 network-cost 999',
  'a=ice-ufrag:pcee',
  'a=ice-pwd:d6qhZ09ZUkyCEC+4yxBfHcQb',
  'a=ice-options:trickle',
  'a=fingerprint:sha-256 CB:14:8A:8D:C2:07:FB:50:34:CB:65:EA:DD:BB:4F:ED:9F:31:7A:CE:4B:AD:17:8A:C2:B6:D0:E1:DC:FC:07:D0',
  'a=setup:actpass',
  'a=mid:0',
  'a=extmap:1 urn:ietf:params:rtp-hdrext:ssrc-audio-level',
  'a=extmap:2 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time',
  'a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01',
  'a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid',
  'a=sendrecv',
  'a=msid:- 58f82ca1-3d7f-4750-ac69-7547c8bfe98f',
  'a=rtcp-mux',
  'a=rtcp-rsize',
  'a=rtcp-xr:rcvr-rtt=all',
  'a=rtpmap:111 opus/48000/2',
  'a=rtcp-fb:111 transport-cc',
  'a=fmtp:111 minptime=10;useinbandfec=1',
  'a=rtpmap:63 red/48000/2',
  'a=fmtp:63 111/111',
  'a=rtpmap:9 G722/8000',
  'a=rtpmap:0 PCMU/8000',
  'a=rtpmap:8 PCMA/8000',
  'a=rtpmap:13 CN/8000',
  'a=rtpmap:110 telephone-event/48000',
  'a=rtpmap:126 telephone-event/8000',
  'a=ssrc:3522883097 cname:S3Ht6LftPpZv2KCI',
  'a=ssrc:3522883097 msid:- 58f82ca1-3d7f-4750-ac69-7547c8bfe98f',
  'm=video 34194 UDP/TLS/RTP/SAVPF 96 97 102 103 104 107 108 109 114 115 116 117 39 40 45 46 98 99 100 101 118 119 120',
  'c=IN IP4 192.0.2.2',
  'a=rtcp:9 IN IP4 0.0.0.0',
  'a=candidate:3303385167 1 udp 2113937151 192.0.2.2 34194 typ host generation 0 network-cost 999',
  'a=candidate:260270511 1 udp 2113942271 fd00::2 58780 typ host generation 0 network-cost 999',
  'a=ice-ufrag:pcee',
  'a=ice-pwd:d6qhZ09ZUkyCEC+4yxBfHcQb',
  'a=ice-options:trickle',
  'a=fingerprint:sha-256 CB:14:8A:8D:C2:07:FB:50:34:CB:65:EA:DD:BB:4F:ED:9F:31:7A:CE:4B:AD:17:8A:C2:B6:D0:E1:DC:FC:07:D0',
  'a=setup:actpass',
  'a=mid:1',
  'a=extmap:14 urn:ietf:params:rtp-hdrext:toffset',
  'a=extmap:2 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time',
  'a=extmap:13 urn:3gpp:video-orientation',
  'a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01',
  'a=extmap:5 http://www.webrtc.org/experiments/rtp-hdrext/playout-delay',
  'a=extmap:6 http://www.webrtc.org/experiments/rtp-hdrext/video-content-type',
  'a=extmap:7 http://www.webrtc.org/experiments/rtp-hdrext/video-timing',
  'a=extmap:8 http://www.webrtc.org/experiments/rtp-hdrext/color-space',
  'a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid',
  'a=extmap:10 urn:ietf:params:rtp-hdrext:sdes:rtp-stream-id',
  'a=extmap:11 urn:ietf:params:rtp-hdrext:sdes:repaired-rtp-stream-id',
  'a=sendrecv',
  'a=msid:- ea7f336b-8136-4918-9900-c5751b30c57b',
  'a=rtcp-mux',
  'a=rtcp-rsize',
  'a=rtcp-xr:rcvr-rtt=all',
  'a=rtpmap:96 VP8/90000',
  'a=rtcp-fb:96 goog-remb',
  'a=rtcp-fb:96 transport-cc',
  'a=rtcp-fb:96 ccm fir',
  'a=rtcp-fb:96 nack',
  'a=rtcp-fb:96 nack pli',
  'a=rtpmap:97 rtx/90000',
  'a=fmtp:97 apt=96',
  'a=rtpmap:102 H264/90000',
  'a=rtcp-fb:102 goog-remb',
  'a=rtcp-fb:102 transport-cc',
  'a=rtcp-fb:102 ccm fir',
  'a=rtcp-fb:102 nack',
  'a=rtcp-fb:102 nack pli',
  'a=fmtp:102 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42001f',
  'a=rtpmap:103 rtx/90000',
  'a=fmtp:103 apt=102',
  'a=rtpmap:104 H264/90000',
  'a=rtcp-fb:104 goog-remb',
  'a=rtcp-fb:104 transport-cc',
  'a=rtcp-fb:104 ccm fir',
  'a=rtcp-fb:104 nack',
  'a=rtcp-fb:104 nack pli',
  'a=fmtp:104 level-asymmetry-allowed=1;packetization-mode=0;profile-level-id=42001f',
  'a=rtpmap:107 rtx/90000',
  'a=fmtp:107 apt=104',
  'a=rtpmap:108 H264/90000',
  'a=rtcp-fb:108 goog-remb',
  'a=rtcp-fb:108 transport-cc',
  'a=rtcp-fb:108 ccm fir',
  'a=rtcp-fb:108 nack',
  'a=rtcp-fb:108 nack pli',
  'a=fmtp:108 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=42e01f',
  'a=rtpmap:109 rtx/90000',
  'a=fmtp:109 apt=108',
  'a=rtpmap:114 H264/90000',
  'a=rtcp-fb:114 goog-remb',
  'a=rtcp-fb:114 transport-cc',
  'a=rtcp-fb:114 ccm fir',
  'a=rtcp-fb:114 nack',
  'a=rtcp-fb:114 nack pli',
  'a=fmtp:114 level-asymmetry-allowed=1;packetization-mode=0;profile-level-id=42e01f',
  'a=rtpmap:115 rtx/90000',
  'a=fmtp:115 apt=114',
  'a=rtpmap:116 H264/90000',
  'a=rtcp-fb:116 goog-remb',
  'a=rtcp-fb:116 transport-cc',
  'a=rtcp-fb:116 ccm fir',
  'a=rtcp-fb:116 nack',
  'a=rtcp-fb:116 nack pli',
  'a=fmtp:116 level-asymmetry-allowed=1;packetization-mode=1;profile-level-id=4d001f',
  'a=rtpmap:117 rtx/90000',
  'a=fmtp:117 apt=116',
  'a=rtpmap:39 H264/90000',
  'a=rtcp-fb:39 goog-remb',
  'a=rtcp-fb:39 transport-cc',
  'a=rtcp-fb:39 ccm fir',
  'a=rtcp-fb:39 nack',
  'a=rtcp-fb:39 nack pli',
  'a=fmtp:39 level-asymmetry-allowed=1;packetization-mode=0;profile-level-id=4d001f',
  'a=rtpmap:40 rtx/90000',
  'a=fmtp:40 apt=39',
  'a=rtpmap:45 AV1/90000',
  'a=rtcp-fb:45 goog-remb',
  'a=rtcp-fb:45 transport-cc',
  'a=rtcp-fb:45 ccm fir',
  'a=rtcp-fb:45 nack',
  'a=rtcp-fb:45 nack pli',
  'a=fmtp:45 level-idx=5;profile=0;tier=0',
  'a=rtpmap:46 rtx/90000',
  'a=fmtp:46 apt=45',
  'a=rtpmap:98 VP9/90000',
  'a=rtcp-fb:98 goog-remb',
  'a=rtcp-fb:98 transport-cc',
  'a=rtcp-fb:98 ccm fir',
  'a=rtcp-fb:98 nack',
  'a=rtcp-fb:98 nack pli',
  'a=fmtp:98 profile-id=0',
  'a=rtpmap:99 rtx/90000',
  'a=fmtp:99 apt=98',
  'a=rtpmap:100 VP9/90000',
  'a=rtcp-fb:100 goog-remb',
  'a=rtcp-fb:100 transport-cc',
  'a=rtcp-fb:100 ccm fir',
  'a=rtcp-fb:100 nack',
  'a=rtcp-fb:100 nack pli',
  'a=fmtp:100 profile-id=2',
  'a=rtpmap:101 rtx/90000',
  'a=fmtp:101 apt=100',
  'a=rtpmap:118 red/90000',
  'a=rtpmap:119 rtx/90000',
  'a=fmtp:119 apt=118',
  'a=rtpmap:120 ulpfec/90000',
  'a=ssrc-group:FID 1069327798 3393704814',
  'a=ssrc:1069327798 cname:S3Ht6LftPpZv2KCI',
  'a=ssrc:1069327798 msid:- ea7f336b-8136-4918-9900-c5751b30c57b',
  'a=ssrc:3393704814 cname:S3Ht6LftPpZv2KCI',
  'a=ssrc:3393704814 msid:- ea7f336b-8136-4918-9900-c5751b30c57b',
  '',
].join('\r\n');

let identity: DtlsIdentity;

function browserSession(): LocalSdpSession {
  const sdp = new LocalSdpSession();
  sdp.security = { encryption: 'dtls', optimistic: false };
  sdp.webrtc.policy = { ice: true, rtcpMux: true, avpf: true, dtlsSetup: 'actpass', opusFirst: true };
  sdp.webrtc.identity = identity;
  return sdp;
}

const OUR_AUDIO = {
  address: '127.0.0.1',
  port: 30000,
  direction: 'sendrecv' as const,
  ...offerFormats(['opus']),
  codecs: [{ name: 'opus' as const, payloadType: 111 }],
  telephoneEvents: [{ payloadType: 110, clockRate: 48000 }],
  video: { port: 30010, codecs: ['VP8' as const] },
};

describe('WebRTC SDP: BUNDLEd video from a Chromium offer', () => {
  before(async () => {
    identity = await ephemeralDtlsIdentity();
  });

  it('accepts VP8 on the DTLS profile as video bundled with the audio', () => {
    const outcome = negotiateOffer(CHROME_VIDEO_OFFER, ['opus'], ['VP8', 'H264'], browserSession());
    assert.ok(outcome.ok, JSON.stringify(outcome));
    const video = outcome.remote.video;
    assert.deepEqual(video?.codec, { name: 'VP8', payloadType: 96, clockRate: 90000 });
    assert.equal(video?.bundled, true);
    assert.equal(video?.direction, 'sendrecv');
    assert.deepEqual(
      video?.feedback,
      [{ type: 'nack' }, { type: 'nack', subtype: 'pli' }, { type: 'ccm', subtype: 'fir' }],
      'goog-remb and transport-cc are not acted on, so not accepted',
    );
    assert.equal(legVideo(video).video?.bundled, true, "the leg's video remote says bundled");
  });

  it('chooses the first H264 format the browser offers when the endpoint prefers H264', () => {
    const outcome = negotiateOffer(CHROME_VIDEO_OFFER, ['opus'], ['H264'], browserSession());
    assert.ok(outcome.ok);
    assert.deepEqual(outcome.remote.video?.codec, { name: 'H264', payloadType: 102, clockRate: 90000 });
    assert.match(outcome.remote.video?.fmtp ?? '', /packetization-mode=1/);
  });

  it("answers m=video on the audio's port with its transport, a=mid:1, BUNDLE 0 1 and the feedback", () => {
    const sdp = browserSession();
    const outcome = negotiateOffer(CHROME_VIDEO_OFFER, ['opus'], ['VP8'], sdp);
    assert.ok(outcome.ok);
    const answer = parse(sdp.answer(OUR_AUDIO, outcome.streams));
    assert.deepEqual(answer.groups, [{ type: 'BUNDLE', mids: '0 1' }]);
    const [audio, video] = answer.media;
    assert.equal(video.type, 'video');
    assert.equal(video.port, audio.port, 'one transport: the BUNDLE address');
    assert.equal(video.protocol, 'UDP/TLS/RTP/SAVPF');
    assert.equal(String(video.mid), '1');
    assert.equal(String(video.payloads), '96');
    assert.equal(video.rtcpMux, 'rtcp-mux');
    assert.equal(video.iceUfrag, audio.iceUfrag);
    assert.equal(video.setup, 'passive');
    assert.equal(`${video.fingerprint?.type} ${video.fingerprint?.hash}`, identity.fingerprint);
    assert.deepEqual(
      video.rtcpFb?.map((fb) => `${fb.payload} ${fb.type}${fb.subtype === undefined ? '' : ` ${fb.subtype}`}`),
      ['96 nack', '96 nack pli', '96 ccm fir'],
    );
    assert.equal(video.direction, 'sendrecv');
  });

  it('refuses the video when the offer does not bundle it with the audio', () => {
    const sdp = browserSession();
    const unbundled = CHROME_VIDEO_OFFER.replace('a=group:BUNDLE 0 1', 'a=group:BUNDLE 0');
    const outcome = negotiateOffer(unbundled, ['opus'], ['VP8'], sdp);
    assert.ok(outcome.ok);
    assert.equal(outcome.remote.video, undefined);
    const answer = parse(sdp.answer(OUR_AUDIO, outcome.streams));
    assert.equal(answer.media[1].port, 0, 'refused (RFC 3264 §6)');
    assert.deepEqual(answer.groups, [{ type: 'BUNDLE', mids: 0 }]);
  });

  it('offers video BUNDLEd with the audio (same port, a=mid:1, BUNDLE 0 1) and reads a browser answer', () => {
    const sdp = browserSession();
    const offer = parse(sdp.offer(OUR_AUDIO));
    assert.deepEqual(offer.groups, [{ type: 'BUNDLE', mids: '0 1' }]);
    const [audio, video] = offer.media;
    assert.equal(video.type, 'video');
    assert.equal(video.port, audio.port);
    assert.equal(video.protocol, 'UDP/TLS/RTP/SAVPF');
    assert.equal(String(video.mid), '1');
    assert.equal(video.setup, 'actpass');
    assert.equal(video.rtcpMux, 'rtcp-mux');
    assert.deepEqual(
      video.rtcpFb?.map((fb) => `${fb.type}${fb.subtype === undefined ? '' : ` ${fb.subtype}`}`),
      ['nack', 'nack pli', 'ccm fir'],
    );
    // The browser's answer (its own SDP with a=setup:active) BUNDLEs both: the video rides on the audio.
    const answer = CHROME_VIDEO_OFFER.replaceAll('a=setup:actpass', 'a=setup:active');
    const outcome = negotiateAnswer(answer, ['opus'], ['VP8'], sdp);
    assert.ok(outcome.ok, JSON.stringify(outcome));
    assert.equal(outcome.remote.video?.bundled, true);
    assert.deepEqual(outcome.remote.video?.codec, { name: 'VP8', payloadType: 96, clockRate: 90000 });
    const unbundled = negotiateAnswer(answer.replace('a=group:BUNDLE 0 1', 'a=group:BUNDLE 0'), ['opus'], ['VP8'], sdp);
    assert.ok(unbundled.ok);
    assert.equal(unbundled.remote.video, undefined, 'video outside the BUNDLE group is not carried');
  });

  it('refuses the video when the endpoint allows no video codec', () => {
    const sdp = browserSession();
    const outcome = negotiateOffer(CHROME_VIDEO_OFFER, ['opus'], [], sdp);
    assert.ok(outcome.ok);
    assert.equal(outcome.remote.video, undefined);
    assert.equal(parse(sdp.answer({ ...OUR_AUDIO, video: undefined }, outcome.streams)).media[1].port, 0);
  });
});
