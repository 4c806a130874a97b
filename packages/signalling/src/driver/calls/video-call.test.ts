/**
 * Video in SIP calls over real UDP loopback sockets: an endpoint that allows video codecs gets a
 * leg with a video socket, answers an offered m=video with it and hands the negotiated video to
 * the engine, and offers m=video in its own INVITEs; an audio-only endpoint gets neither. Core and
 * the media engine are test doubles; protocol timers run on a fake clock.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type {
  ChannelDriverHost,
  ChannelTechnologyEvents,
  CreateLegRequest,
  InboundCall,
  LegRemote,
  MediaLegInfo,
  SipConfig,
  SipEndpointConfig,
} from '@switchboard/core';
import { parse as parseSdp } from 'sdp-transform';
import type { SipRequest } from '../../message/sip-message.js';
import { FakeClock } from '../../test-support/fake-clock.js';
import { UdpPeer, waitFor } from '../../test-support/udp-peer.js';
import type { SipMediaEngine } from './inbound-call.js';
import { SipDriver } from '../sip-driver.js';

class FakeMedia implements SipMediaEngine {
  legs = new Map<string, { request: CreateLegRequest; remotes: LegRemote[] }>();
  #next = 0;
  async createLeg(request: CreateLegRequest): Promise<MediaLegInfo> {
    const legId = `leg-${++this.#next}`;
    // A remote given with the leg is its first remote, as the real engine sets it.
    this.legs.set(legId, { request, remotes: request.remote === undefined ? [] : [request.remote] });
    const info: MediaLegInfo = { legId, localAddress: request.bindAddress, localPort: 30000 + this.#next * 4 };
    if (request.video === true) info.videoPort = 30002 + this.#next * 4;
    return info;
  }
  async setLegRemote(legId: string, remote: LegRemote): Promise<void> {
    this.legs.get(legId)?.remotes.push(remote);
  }
  async destroyLeg(): Promise<void> {}
}

class FakeHost implements ChannelDriverHost {
  calls: InboundCall[] = [];
  acceptInbound(call: InboundCall): ChannelTechnologyEvents {
    this.calls.push(call);
    return { answered: () => {}, ringing: () => {}, hungUp: () => {} };
  }
}

function endpoint(name: string, extra: Partial<SipEndpointConfig>): SipEndpointConfig {
  return {
    name,
    context: 'default',
    codecs: ['PCMU'],
    aors: [name],
    mailboxes: [],
    dtmfMode: 'rfc4733',
    forceRport: true,
    rewriteContact: false,
    rtpSymmetric: true,
    directMedia: false,
    ...extra,
  };
}

const crlf = (lines: string[]) => `${lines.join('\r\n')}\r\n`;
const AUDIO_VIDEO = crlf([
  'v=0',
  'o=cam 1 1 IN IP4 127.0.0.1',
  's=-',
  'c=IN IP4 127.0.0.1',
  't=0 0',
  'm=audio 49170 RTP/AVP 0',
  'm=video 49172 RTP/AVP 97',
  'a=rtpmap:97 H264/90000',
  'a=fmtp:97 profile-level-id=42e01f;packetization-mode=1',
  'a=rtcp-fb:97 nack pli',
]);

function invite(peer: UdpPeer, callId: string, body: string): string {
  return crlf([
    'INVITE sip:100@127.0.0.1 SIP/2.0',
    `Via: SIP/2.0/UDP 127.0.0.1:${peer.port};branch=z9hG4bK${callId};rport`,
    'Max-Forwards: 70',
    `From: <sip:cam@127.0.0.1:${peer.port}>;tag=f${callId}`,
    'To: <sip:100@127.0.0.1>',
    `Call-ID: ${callId}`,
    'CSeq: 1 INVITE',
    `Contact: <sip:cam@127.0.0.1:${peer.port}>`,
    'Content-Type: application/sdp',
    `Content-Length: ${Buffer.byteLength(body)}`,
    '',
  ]).concat(body);
}

describe('SIP calls with video', { timeout: 30_000 }, () => {
  let clock: FakeClock;
  let media: FakeMedia;
  let host: FakeHost;
  let driver: SipDriver;
  let phone: UdpPeer;
  let audioPhone: UdpPeer;
  let port: number;

  beforeEach(async () => {
    clock = new FakeClock();
    media = new FakeMedia();
    host = new FakeHost();
    phone = await UdpPeer.open();
    audioPhone = await UdpPeer.open('127.0.0.2');
    const config: SipConfig = {
      transports: [{ name: 'udp', protocol: 'udp', bindAddress: '127.0.0.1', bindPort: 0 }],
      endpoints: [endpoint('cam', { videoCodecs: ['VP8', 'H264'] }), endpoint('plain', {})],
      identifies: [
        { name: 'cam', endpoint: 'cam', match: ['127.0.0.1/32'] },
        { name: 'plain', endpoint: 'plain', match: ['127.0.0.2/32'] },
      ],
      aors: [
        {
          name: 'cam',
          maxContacts: 0,
          removeExisting: false,
          defaultExpiration: 3600,
          minimumExpiration: 60,
          maximumExpiration: 7200,
          qualifyFrequency: 0,
          contacts: [`sip:cam@127.0.0.1:${phone.port}`],
        },
      ],
      auths: [],
    };
    driver = new SipDriver({ config, host, media, clock });
    await driver.start();
    port = driver.listening()[0].port;
  });

  afterEach(async () => {
    const closing = driver.close();
    clock.advance(5000);
    await closing;
    await phone.close();
    await audioPhone.close();
  });

  async function answered(
    peer: UdpPeer,
    callId: string,
  ): Promise<{ answer: ReturnType<typeof parseSdp>; leg: { request: CreateLegRequest; remotes: LegRemote[] } }> {
    await peer.send(invite(peer, callId, AUDIO_VIDEO), port);
    await waitFor(() => host.calls.some((c) => c.tech.protocolId === callId), 'the call to reach core');
    const call = host.calls.find((c) => c.tech.protocolId === callId);
    assert.ok(call);
    await call.tech.answer();
    const ok = await peer.expectResponse(200, 'INVITE');
    const leg = media.legs.get(call.tech.mediaLegId ?? '');
    assert.ok(leg);
    return { answer: parseSdp(ok.bodyText), leg };
  }

  it('answers an offered m=video with the leg video port and gives the engine the negotiated video', async () => {
    const { answer, leg } = await answered(phone, 'video-1');
    assert.equal(leg.request.video, true);
    assert.equal(answer.media.length, 2);
    assert.equal(answer.media[1].type, 'video');
    assert.equal(answer.media[1].port, 30006);
    assert.deepEqual(answer.media[1].rtp, [{ payload: 97, codec: 'H264', rate: 90000 }]);
    assert.deepEqual(answer.media[1].fmtp, [{ payload: 97, config: 'profile-level-id=42e01f;packetization-mode=1' }]);
    assert.deepEqual(leg.remotes[0].video, {
      address: '127.0.0.1',
      port: 49172,
      codec: { name: 'H264', payloadType: 97, clockRate: 90000 },
      direction: 'sendrecv',
    });
  });

  it('refuses m=video with port 0 for an endpoint without video codecs, and binds no video socket', async () => {
    const { answer, leg } = await answered(audioPhone, 'plain-1');
    assert.equal(leg.request.video, false);
    assert.equal(answer.media[0].port, 30004);
    assert.equal(answer.media[1].port, 0);
    assert.equal(leg.remotes[0].video, undefined);
  });

  it('offers m=video in its own INVITE when the endpoint allows video', async () => {
    const call = driver.prepareOutbound({ resource: 'cam', caller: { name: '', number: '200' }, variables: {} });
    await call.dial({ answered: () => {}, ringing: () => {}, hungUp: () => {} }, { timeoutSeconds: 30 });
    const request = (await phone.expect((m) => m.type === 'request' && m.method === 'INVITE', 'INVITE')) as SipRequest;
    const offer = parseSdp(request.bodyText);
    assert.deepEqual(
      offer.media.map((m) => `${m.type} ${m.port}`),
      ['audio 30004', 'video 30006'],
    );
    assert.deepEqual(
      offer.media[1].rtp.map((r) => r.codec),
      ['VP8', 'H264'],
    );
    await call.tech.hangup(16);
  });
});
