/**
 * BUNDLEd video (RFC 8843) inside a real engine: two legs whose phones send audio and video on one
 * port, SRTP-protected with one pair of keys and with RTCP multiplexed (RFC 5761), as browsers do.
 * The legs are joined in a bridge forwarding video (sfu). Video a phone sends on the audio port must
 * reach the other phone on its audio port, encrypted with that leg's keys, never in the clear; a
 * PLI one phone sends as SRTCP on the shared port must reach the other as SRTCP; audio keeps flowing.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import dgram from 'node:dgram';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { MediaEngine } from '../media-engine.js';
import { buildPli, keyframeRequestOf } from '../rtp/rtcp-feedback.js';
import { parseRtpPacket, RTP_HEADER_SIZE, writeRtpHeader } from '../rtp/rtp-header.js';
import { SrtpSession } from '../srtp/srtp-session.js';
import { waitFor } from '../test-support/wait.js';
import type { MediaLegInfo } from '@switchboard/media-control';

const BASE_PORT = 30000 + 2 * Math.floor(Math.random() * 4000);
const SUITE = 'AES_CM_128_HMAC_SHA1_80';
const AUDIO_PT = 0;
const VIDEO_PT = 96;

/** A browser-like phone: one socket for everything, its own SRTP session with the leg. */
class BundledPhone {
  readonly socket = dgram.createSocket('udp4');
  readonly ssrcAudio = randomBytes(4).readUInt32BE(0);
  readonly ssrcVideo = randomBytes(4).readUInt32BE(0);
  /** Decrypted RTP by payload type, and decrypted RTCP datagrams. */
  readonly audio: Buffer[] = [];
  readonly video: Buffer[] = [];
  readonly rtcp: Buffer[] = [];
  /** Datagrams that were plain RTP (they must not exist). */
  clear = 0;
  readonly ours = randomBytes(30);
  readonly theirs = randomBytes(30);
  readonly session = new SrtpSession({ suite: SUITE, localMasterKey: this.theirs, remoteMasterKey: this.ours });
  #sequence = 1000;
  #audioSequence = 2000;

  async open(): Promise<void> {
    this.socket.on('message', (datagram) => this.#receive(datagram));
    await new Promise<void>((resolve) => this.socket.bind(0, '127.0.0.1', resolve));
  }

  get port(): number {
    return this.socket.address().port;
  }

  #receive(datagram: Buffer): void {
    if (datagram.length >= 8 && datagram[1] >= 192 && datagram[1] <= 223) {
      const plain = this.session.unprotectRtcp(datagram);
      if (plain.ok) this.rtcp.push(plain.packet);
      return;
    }
    const plain = this.session.unprotectRtp(datagram);
    if (!plain.ok) {
      if (parseRtpPacket(datagram).ok) this.clear += 1;
      return;
    }
    const pt = plain.packet[1] & 0x7f;
    if (pt === VIDEO_PT) this.video.push(plain.packet);
    else if (pt === AUDIO_PT) this.audio.push(plain.packet);
  }

  sendAudio(toPort: number): void {
    const packet = Buffer.alloc(RTP_HEADER_SIZE + 160, 0x55);
    writeRtpHeader(packet, {
      payloadType: AUDIO_PT,
      marker: false,
      sequenceNumber: this.#audioSequence,
      timestamp: this.#audioSequence * 160,
      ssrc: this.ssrcAudio,
    });
    this.#audioSequence += 1;
    this.socket.send(this.session.protectRtp(packet), toPort, '127.0.0.1');
  }

  sendVideo(toPort: number): void {
    const packet = Buffer.alloc(RTP_HEADER_SIZE + 40, 0x5a);
    writeRtpHeader(packet, {
      payloadType: VIDEO_PT,
      marker: true,
      sequenceNumber: this.#sequence,
      timestamp: this.#sequence * 3000,
      ssrc: this.ssrcVideo,
    });
    packet[RTP_HEADER_SIZE] = 0x10; // VP8 payload descriptor: start of partition
    this.#sequence += 1;
    this.socket.send(this.session.protectRtp(packet), toPort, '127.0.0.1');
  }

  sendPli(toPort: number, mediaSsrc: number): void {
    this.socket.send(this.session.protectRtcp(buildPli(this.ssrcVideo, mediaSsrc)), toPort, '127.0.0.1');
  }

  close(): void {
    this.socket.close();
  }
}

describe('BUNDLEd video on an SRTP leg', () => {
  let engine: MediaEngine;
  let phones: BundledPhone[] = [];

  beforeEach(async () => {
    engine = new MediaEngine({ rtpStart: BASE_PORT, rtpEnd: BASE_PORT + 100, workers: 1 });
    await engine.start();
    phones = [new BundledPhone(), new BundledPhone()];
    for (const phone of phones) await phone.open();
  });
  afterEach(async () => {
    await engine.close();
    for (const phone of phones) phone.close();
  });

  it('forwards video and keyframe requests over the audio transport, encrypted', { timeout: 15_000 }, async () => {
    const legs: MediaLegInfo[] = [];
    for (const phone of phones) {
      const leg = await engine.createLeg({ bindAddress: '127.0.0.1', video: true });
      await engine.setLegRemote(leg.legId, {
        address: '127.0.0.1',
        port: phone.port,
        codec: { name: 'PCMU', payloadType: AUDIO_PT, clockRate: 8000 },
        srtp: { suite: SUITE, localMasterKey: phone.ours.toString('base64'), remoteMasterKey: phone.theirs.toString('base64') },
        rtcpMux: true,
        video: {
          address: '127.0.0.1',
          port: phone.port,
          codec: { name: 'VP8', payloadType: VIDEO_PT, clockRate: 90000 },
          bundled: true,
        },
      });
      legs.push(leg);
    }
    await engine.createBridge({ bridgeId: 'v', kind: 'mixing' });
    await engine.setBridgeVideo('v', { mode: 'sfu' });
    for (const leg of legs) await engine.joinBridge('v', leg.legId);

    for (let i = 0; i < 15; i++) {
      phones[0].sendAudio(legs[0].localPort);
      phones[0].sendVideo(legs[0].localPort);
      phones[1].sendAudio(legs[1].localPort);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await waitFor('video at the second phone', () => (phones[1].video.length >= 10 ? true : undefined), 3000);
    await waitFor('audio at the second phone', () => (phones[1].audio.length >= 5 ? true : undefined), 3000);
    const forwarded = phones[1].video[0];
    assert.equal(forwarded[RTP_HEADER_SIZE], 0x10, 'the VP8 payload arrives as sent');
    assert.equal(phones[0].video.length, 0, 'nobody sent the first phone video');
    assert.equal(phones[1].clear + phones[0].clear, 0, 'no packet went out in the clear');
    for (const leg of legs) assert.equal((await engine.getCounters(leg.legId)).packetsDropped, 0, 'no leg dropped a packet');
    await waitFor('audio at the first phone', () => (phones[0].audio.length >= 5 ? true : undefined), 3000);

    // The second phone loses the picture: its PLI, on the shared port, reaches the first phone.
    // (The bridge itself asked for keyframes when the phones joined, before their streams were known.)
    const forwardedSsrc = forwarded.readUInt32BE(8);
    const requests = (): Buffer[] => phones[0].rtcp.filter((datagram) => keyframeRequestOf(datagram) === phones[0].ssrcVideo);
    await new Promise((resolve) => setTimeout(resolve, 400)); // past the spacing of forwarded requests
    const before = requests().length;
    phones[1].sendPli(legs[1].localPort, forwardedSsrc);
    await waitFor('the PLI at the video source, naming its stream', () => (requests().length > before ? true : undefined), 3000);
  });
});
