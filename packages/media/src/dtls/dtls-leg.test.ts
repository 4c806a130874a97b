/**
 * DTLS-SRTP on a real leg in a worker: the test is the browser side (a DTLS client with its own
 * certificate, over a UDP socket). Before the handshake nothing is sent; after it the leg's tone
 * arrives as SRTP that decrypts with the exported keys, and SRTP sent to the leg is relayed to a
 * plain phone in the clear. RTCP is multiplexed on the same port (RFC 5761): the leg's BYE arrives
 * there as SRTCP.
 */
import assert from 'node:assert/strict';
import dgram from 'node:dgram';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { MediaEngine } from '../media-engine.js';
import { parseRtcp } from '../rtp/rtcp.js';
import { writeRtpHeader } from '../rtp/rtp-header.js';
import { SrtpSession } from '../srtp/srtp-session.js';
import { FarEnd } from '../test-support/far-end.js';
import { sleep, waitFor } from '../test-support/wait.js';
import { certificateFingerprint, DtlsSrtpAssociation, generateDtlsCertificate } from './dtls-srtp.js';

const BASE_PORT = 24000 + 2 * Math.floor(Math.random() * 900);

describe('DTLS-SRTP on a media leg', () => {
  let engine: MediaEngine;
  let browser: dgram.Socket;
  let plainPhone: FarEnd;

  beforeEach(async () => {
    engine = new MediaEngine({ rtpStart: BASE_PORT, rtpEnd: BASE_PORT + 40, workers: 1 });
    await engine.start();
    browser = dgram.createSocket('udp4');
    await new Promise<void>((resolve) => browser.bind(0, '127.0.0.1', resolve));
    plainPhone = await FarEnd.open();
  });
  afterEach(async () => {
    await engine.close();
    browser.close();
    plainPhone.close();
  });

  it('keys SRTP from the handshake and carries audio both ways only encrypted', { timeout: 30_000 }, async () => {
    const [ours, theirs] = await Promise.all([generateDtlsCertificate(), generateDtlsCertificate()]);
    const leg = await engine.createLeg({ bindAddress: '127.0.0.1' });
    const plain = await engine.createLeg({ bindAddress: '127.0.0.1' });
    const codec = { name: 'PCMU', payloadType: 0, clockRate: 8000 } as const;
    await engine.setLegRemote(leg.legId, {
      address: '127.0.0.1',
      port: browser.address().port,
      codec,
      rtcpMux: true,
      dtls: {
        role: 'server',
        remoteFingerprint: certificateFingerprint(theirs.certPem),
        certificate: ours.certPem,
        privateKey: ours.keyPem,
      },
    });
    await engine.setLegRemote(plain.legId, { address: '127.0.0.1', port: plainPhone.port, codec });
    await engine.createBridge({ bridgeId: 'b', kind: 'mixing' });
    await engine.joinBridge('b', leg.legId);
    await engine.joinBridge('b', plain.legId);

    const media: Buffer[] = [];
    const rtcp: Buffer[] = [];
    const client = new DtlsSrtpAssociation({
      role: 'client',
      certificate: theirs,
      remoteFingerprint: certificateFingerprint(ours.certPem),
      path: { send: (datagram) => browser.send(datagram, leg.localPort, '127.0.0.1') },
    });
    browser.on('message', (datagram) => {
      if (datagram[0] >= 20 && datagram[0] <= 63) client.receive(datagram);
      else if (datagram[1] >= 192 && datagram[1] <= 223) rtcp.push(datagram);
      else media.push(datagram);
    });
    // The plain phone talks before the handshake: nothing reaches the browser in the clear.
    const talk = async (count: number, first: number) => {
      for (let i = 0; i < count; i++) {
        const packet = Buffer.alloc(172, 0x2a);
        writeRtpHeader(packet, { payloadType: 0, marker: false, sequenceNumber: first + i, timestamp: (first + i) * 160, ssrc: 77 });
        await plainPhone.send(packet, plain.localPort);
        await sleep(20);
      }
    };
    await talk(10, 0);
    assert.equal(media.length, 0, 'no media before DTLS keyed SRTP');

    const outcome = await client.establish();
    assert.ok(outcome.ok, JSON.stringify(outcome));
    const session = new SrtpSession({
      suite: outcome.srtp.suite,
      localMasterKey: Buffer.from(outcome.srtp.localMasterKey, 'base64'),
      remoteMasterKey: Buffer.from(outcome.srtp.remoteMasterKey, 'base64'),
    });
    // The leg keys itself when its side of the handshake finishes; give it a moment, then talk.
    await sleep(100);
    await talk(20, 10);
    await waitFor('SRTP at the browser', () => (media.length >= 10 ? true : undefined), 3000);
    for (const datagram of media) {
      const result = session.unprotectRtp(datagram);
      assert.ok(result.ok, 'every packet the leg sends authenticates with the DTLS-exported keys');
      assert.ok(result.packet.subarray(12).every((b) => b === 0x2a));
    }

    // The browser talks: its SRTP reaches the plain phone decrypted.
    for (let i = 0; i < 20; i++) {
      const packet = Buffer.alloc(172, 0x3c);
      writeRtpHeader(packet, { payloadType: 0, marker: false, sequenceNumber: 500 + i, timestamp: i * 160, ssrc: 99 });
      browser.send(session.protectRtp(packet), leg.localPort, '127.0.0.1');
      await sleep(20);
    }
    await waitFor(
      'the browser audio at the plain phone',
      () => (plainPhone.packets.some((p) => p.payload[0] === 0x3c) ? true : undefined),
      3000,
    );
    // The leg leaves: its BYE comes on the RTP port, as SRTCP.
    await engine.destroyLeg(leg.legId);
    await waitFor('the SRTCP BYE on the RTP port', () => (rtcp.length > 0 ? true : undefined), 3000);
    const bye = session.unprotectRtcp(rtcp[rtcp.length - 1]);
    assert.ok(bye.ok, 'the multiplexed RTCP authenticates as SRTCP');
    const parsed = parseRtcp(bye.packet);
    assert.ok(parsed.ok && parsed.packets.some((p) => p.type === 'bye'));
    client.close();
  });
});
