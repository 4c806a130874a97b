/**
 * The WebRTC parts of offer/answer (webrtc-sdp.ts) against a real Chromium offer, captured by the
 * browser end-to-end test (test/src/webrtc-browser.test.ts): what the media leg is given (ICE,
 * DTLS role and fingerprint, rtcp-mux) and what our answer and our own offer carry (ICE-lite, host
 * candidates, a=fingerprint, a=setup by RFC 8842, rtcp-mux, a=mid and BUNDLE, Opus first).
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { parse } from 'sdp-transform';
import { type DtlsIdentity, ephemeralDtlsIdentity } from './dtls-certificates.js';
import { LocalSdpSession, negotiateAnswer, negotiateOffer, offerFormats } from './sdp.js';
import type { WebrtcPolicy } from './webrtc-sdp.js';

/** Chromium's offer from SIP.js (audio only, after ICE gathering on loopback). */
const CHROME_OFFER = [
  'v=0',
  'o=- 2788363655858544060 2 IN IP4 127.0.0.1',
  's=-',
  't=0 0',
  'a=group:BUNDLE 0',
  'a=extmap-allow-mixed',
  'a=msid-semantic: WMS 4e306b46-3924-49dd-9cdb-072dd4f08c4a',
  'm=audio 60739 UDP/TLS/RTP/SAVPF 111 63 9 0 8 13 110 126',
  'c=IN IP4 127.0.0.1',
  'a=rtcp:9 IN IP4 0.0.0.0',
  'a=candidate:498279508 1 udp 2122194687 127.0.0.1 60739 typ host generation 0 network-id 3 network-cost 50',
  'a=candidate:3012475864 1 udp 2122063615 192.0.2.2 33888 typ host generation 0 network-id 1',
  'a=candidate:816509071 1 udp 2122267903 ::1 35507 typ host generation 0 network-id 4 network-cost 50',
  'a=candidate:3036469096 1 udp 2122134271 fd00::2 48707 typ host generation 0 network-id 2',
  'a=candidate:1669121740 1 tcp 1518214911 127.0.0.1 9 typ host tcptype active generation 0 network-id 3 network-cost 50',
  'a=candidate:3443611968 1 tcp 1518083839 192.0.2.2 9 typ host tcptype active generation 0 network-id 1',
  'a=candidate:1315246615 1 tcp 1518288127 ::1 9 typ host tcptype active generation 0 network-id 4 network-cost 50',
  'a=candidate:3392353776 1 tcp 1518154495 fd00::2 9 typ host tcptype active generation 0 network-id 2',
  'a=ice-ufrag:mZAV',
  'a=ice-pwd:exwP2uV39q82pyazsBYfU6Lo',
  'a=ice-options:trickle',
  'a=fingerprint:sha-256 AA:64:41:68:75:14:99:C1:6D:3A:79:08:C7:1B:ED:93:4D:83:5F:94:91:76:08:F5:6B:C6:97:AA:A0:78:BA:9E',
  'a=setup:actpass',
  'a=mid:0',
  'a=extmap:1 urn:ietf:params:rtp-hdrext:ssrc-audio-level',
  'a=extmap:2 http://www.webrtc.org/experiments/rtp-hdrext/abs-send-time',
  'a=extmap:3 http://www.ietf.org/id/draft-holmer-rmcat-transport-wide-cc-extensions-01',
  'a=extmap:4 urn:ietf:params:rtp-hdrext:sdes:mid',
  'a=sendrecv',
  'a=msid:4e306b46-3924-49dd-9cdb-072dd4f08c4a 2ac31fc4-725f-4875-a9c5-293f123ed371',
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
  'a=ssrc:3484105657 cname:pnOnyvDbdCyDPvZP',
  'a=ssrc:3484105657 msid:4e306b46-3924-49dd-9cdb-072dd4f08c4a 2ac31fc4-725f-4875-a9c5-293f123ed371',
  '',
].join('\r\n');

const CHROME_FINGERPRINT = 'sha-256 AA:64:41:68:75:14:99:C1:6D:3A:79:08:C7:1B:ED:93:4D:83:5F:94:91:76:08:F5:6B:C6:97:AA:A0:78:BA:9E';

const BROWSER: WebrtcPolicy = { ice: true, rtcpMux: true, avpf: true, dtlsSetup: 'actpass', opusFirst: true };

let identity: DtlsIdentity;

function webrtcSession(policy: WebrtcPolicy = BROWSER): LocalSdpSession {
  const sdp = new LocalSdpSession();
  sdp.security = { encryption: 'dtls', optimistic: false };
  sdp.webrtc.policy = policy;
  sdp.webrtc.identity = identity;
  return sdp;
}

const local = (codecs: Parameters<typeof offerFormats>[0]) => ({
  address: '127.0.0.1',
  port: 30000,
  direction: 'sendrecv' as const,
  ...offerFormats(codecs),
});

describe('WebRTC SDP: answering a Chromium offer', () => {
  before(async () => {
    identity = await ephemeralDtlsIdentity();
  });

  it('accepts Opus on UDP/TLS/RTP/SAVPF and hands the leg ICE, DTLS (we are the server) and rtcp-mux', () => {
    const sdp = webrtcSession();
    const outcome = negotiateOffer(CHROME_OFFER, ['PCMU', 'opus'], [], sdp);
    assert.ok(outcome.ok, JSON.stringify(outcome));
    const { remote } = outcome;
    assert.deepEqual(remote.codec, { name: 'opus', payloadType: 111, clockRate: 48000 }, 'Opus first for a browser');
    assert.equal(remote.telephoneEventPayloadType, 110, 'telephone-event at the codec rate (RFC 4733 §2.1)');
    assert.equal(remote.direction, 'sendrecv');
    assert.deepEqual(remote.transport?.ice, sdp.webrtc.ice);
    assert.equal(remote.transport?.rtcpMux, true);
    assert.equal(remote.transport?.dtls?.role, 'server', 'actpass is answered passive: the browser opens DTLS');
    assert.equal(remote.transport?.dtls?.remoteFingerprint, CHROME_FINGERPRINT);
    assert.equal(remote.transport?.dtls?.certificate, identity.certPem);
  });

  it('answers with ICE-lite, a host candidate, our fingerprint, setup:passive, rtcp-mux, mid and BUNDLE', () => {
    const sdp = webrtcSession();
    const outcome = negotiateOffer(CHROME_OFFER, ['opus', 'PCMU'], [], sdp);
    assert.ok(outcome.ok);
    const text = sdp.answer(
      { ...local(['opus']), codecs: [{ name: 'opus', payloadType: 111 }], telephoneEvents: [{ payloadType: 110, clockRate: 48000 }] },
      outcome.streams,
    );
    const answer = parse(text);
    assert.equal(answer.icelite, 'ice-lite');
    assert.deepEqual(answer.groups, [{ type: 'BUNDLE', mids: 0 }]);
    const audio = answer.media[0];
    assert.equal(audio.protocol, 'UDP/TLS/RTP/SAVPF', "the offer's profile is answered (media_use_received_transport)");
    assert.equal(audio.payloads, '111 110');
    assert.equal(String(audio.mid), '0');
    assert.equal(audio.iceUfrag, sdp.webrtc.ice.ufrag);
    assert.equal(audio.icePwd, sdp.webrtc.ice.password);
    assert.deepEqual(
      audio.candidates?.map((c) => [c.component, c.transport, c.ip, c.port, c.type, c.priority]),
      [[1, 'udp', '127.0.0.1', 30000, 'host', 2130706431]],
      'one host candidate: rtcp-mux needs no component 2',
    );
    assert.equal(`${audio.fingerprint?.type} ${audio.fingerprint?.hash}`, identity.fingerprint);
    assert.match(identity.fingerprint, /^sha-256 ([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
    assert.equal(audio.setup, 'passive');
    assert.equal(audio.rtcpMux, 'rtcp-mux');
    assert.equal(audio.crypto, undefined, 'no SDES keys beside DTLS');
  });

  it('takes the first candidate as the address of an offer made before gathering (c=0.0.0.0 is no hold)', () => {
    const early = CHROME_OFFER.replace('c=IN IP4 127.0.0.1', 'c=IN IP4 0.0.0.0').replace(/m=audio \d+/, 'm=audio 9');
    const outcome = negotiateOffer(early, ['opus'], [], webrtcSession());
    assert.ok(outcome.ok);
    assert.equal(outcome.remote.address, '127.0.0.1');
    assert.equal(outcome.remote.port, 60739);
    assert.equal(outcome.remote.direction, 'sendrecv');
  });

  it('a=setup:passive makes us the DTLS client; no a=setup means active (RFC 4145 §4.1)', () => {
    const passive = negotiateOffer(CHROME_OFFER.replace('a=setup:actpass', 'a=setup:passive'), ['opus'], [], webrtcSession());
    assert.ok(passive.ok);
    assert.equal(passive.remote.transport?.dtls?.role, 'client');
    const sdp = webrtcSession();
    const silent = negotiateOffer(CHROME_OFFER.replace('a=setup:actpass\r\n', ''), ['opus'], [], sdp);
    assert.ok(silent.ok);
    assert.equal(silent.remote.transport?.dtls?.role, 'server');
    assert.equal(parse(sdp.answer(local(['opus']), silent.streams)).media[0].setup, 'passive');
  });

  it('refuses with 488: DTLS without a fingerprint, a sha-1 fingerprint, a DTLS offer to a plain endpoint', () => {
    const noFingerprint = CHROME_OFFER.replace(/a=fingerprint:[^\r]*\r\n/, '');
    assert.deepEqual(negotiateOffer(noFingerprint, ['opus'], [], webrtcSession()), {
      ok: false,
      status: 488,
      reason: 'DTLS offer without a=fingerprint',
    });
    const sha1 = CHROME_OFFER.replace(
      /a=fingerprint:[^\r]*/,
      'a=fingerprint:sha-1 00:11:22:33:44:55:66:77:88:99:AA:BB:CC:DD:EE:FF:00:11:22:33',
    );
    const refused = negotiateOffer(sha1, ['opus'], [], webrtcSession());
    assert.equal(refused.ok, false);
    const plain = new LocalSdpSession();
    const outcome = negotiateOffer(CHROME_OFFER, ['opus'], [], plain);
    assert.deepEqual(outcome, {
      ok: false,
      status: 488,
      reason: 'unsupported media protocol UDP/TLS/RTP/SAVPF (media_encryption is not dtls)',
    });
  });

  it('without ice_support and rtcp_mux the answer carries neither, and the leg gets no ICE', () => {
    const sdp = webrtcSession({ ...BROWSER, ice: false, rtcpMux: false });
    const outcome = negotiateOffer(CHROME_OFFER, ['opus'], [], sdp);
    assert.ok(outcome.ok);
    assert.equal(outcome.remote.transport?.ice, undefined);
    assert.equal(outcome.remote.transport?.rtcpMux, undefined);
    const audio = parse(sdp.answer(local(['opus']), outcome.streams)).media[0];
    assert.equal(audio.iceUfrag, undefined);
    assert.equal(audio.rtcpMux, undefined);
    assert.equal(audio.setup, 'passive');
  });

  it('a video m-line of a browser offer is refused with port 0, keeps its mid and stays out of BUNDLE', () => {
    const withVideo =
      CHROME_OFFER.replace('a=group:BUNDLE 0', 'a=group:BUNDLE 0 1') +
      ['m=video 60739 UDP/TLS/RTP/SAVPF 96', 'c=IN IP4 127.0.0.1', 'a=mid:1', 'a=rtpmap:96 VP8/90000', ''].join('\r\n');
    const sdp = webrtcSession();
    const outcome = negotiateOffer(withVideo, ['opus'], ['VP8'], sdp);
    assert.ok(outcome.ok);
    const answer = parse(sdp.answer(local(['opus']), outcome.streams));
    assert.equal(answer.media[1].port, 0);
    assert.equal(String(answer.media[1].mid), '1');
    assert.deepEqual(answer.groups, [{ type: 'BUNDLE', mids: 0 }]);
  });
});

describe('WebRTC SDP: our offer to a browser and its answer', () => {
  before(async () => {
    identity ??= await ephemeralDtlsIdentity();
  });

  it('offers UDP/TLS/RTP/SAVPF with Opus, actpass, ICE-lite, rtcp-mux and BUNDLE', () => {
    const sdp = webrtcSession();
    const offer = parse(sdp.offer(local(['opus', 'PCMU'])));
    assert.equal(offer.icelite, 'ice-lite');
    assert.deepEqual(offer.groups, [{ type: 'BUNDLE', mids: 0 }]);
    assert.equal(offer.media.length, 1, 'no video codec, no m=video');
    const audio = offer.media[0];
    assert.equal(audio.protocol, 'UDP/TLS/RTP/SAVPF');
    assert.equal(String(audio.payloads).split(' ')[0], '111');
    assert.equal(audio.setup, 'actpass');
    assert.equal(audio.rtcpMux, 'rtcp-mux');
    assert.equal(audio.candidates?.length, 1);
  });

  it('reads a browser answer: setup:active makes us the server; actpass in an answer is refused', () => {
    const sdp = webrtcSession();
    sdp.offer(local(['opus', 'PCMU']));
    const answer = CHROME_OFFER.replace('a=setup:actpass', 'a=setup:active');
    const outcome = negotiateAnswer(answer, ['opus', 'PCMU'], [], sdp);
    assert.ok(outcome.ok, JSON.stringify(outcome));
    assert.equal(outcome.remote.codec.name, 'opus');
    assert.equal(outcome.remote.transport?.dtls?.role, 'server');
    assert.equal(outcome.remote.transport?.dtls?.remoteFingerprint, CHROME_FINGERPRINT);
    assert.equal(outcome.remote.transport?.rtcpMux, true);
    assert.deepEqual(outcome.remote.transport?.ice, sdp.webrtc.ice);
    assert.deepEqual(negotiateAnswer(CHROME_OFFER, ['opus'], [], sdp), { ok: false, reason: 'a=setup:actpass is not a valid answer' });
    assert.deepEqual(negotiateAnswer(CHROME_OFFER.replace('UDP/TLS/RTP/SAVPF', 'RTP/AVP'), ['opus'], [], sdp), {
      ok: false,
      reason: 'answer uses RTP/AVP, not DTLS-SRTP',
    });
  });

  it('keeps its ICE credentials and fingerprint in a re-offer (no ICE restart, same DTLS association)', () => {
    const sdp = webrtcSession();
    const first = parse(sdp.offer(local(['opus'])));
    const again = parse(sdp.offer(local(['opus'])));
    assert.equal(again.media[0].iceUfrag, first.media[0].iceUfrag);
    assert.deepEqual(again.media[0].fingerprint, first.media[0].fingerprint);
    assert.equal(again.origin?.sessionVersion, first.origin?.sessionVersion, 'nothing changed: same version');
  });

  it('use_avpf offers the feedback profile of each keying; ice_support alone adds ICE to plain RTP', () => {
    const profile = (encryption: 'no' | 'sdes', policy: Partial<WebrtcPolicy>): string => {
      const sdp = new LocalSdpSession();
      sdp.security = { encryption, optimistic: false };
      sdp.webrtc.policy = { ...BROWSER, ice: false, rtcpMux: false, avpf: false, ...policy };
      return sdp.offer(local(['PCMU']));
    };
    assert.match(profile('no', { avpf: true }), /^m=audio 30000 RTP\/AVPF /m);
    assert.match(profile('sdes', { avpf: true }), /^m=audio 30000 RTP\/SAVPF /m);
    assert.match(profile('no', {}), /^m=audio 30000 RTP\/AVP /m);
    const ice = profile('no', { ice: true });
    assert.match(ice, /^a=ice-lite/m);
    assert.match(ice, /^a=candidate:1 1 udp 2130706431 127\.0\.0\.1 30000 typ host/m);
    assert.match(ice, /^a=candidate:1 2 udp 2130706430 127\.0\.0\.1 30001 typ host/m, 'RTCP candidate without rtcp-mux');
    assert.doesNotMatch(ice, /a=fingerprint/);
  });
});
