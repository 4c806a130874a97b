/**
 * SRTP inside the media workers: a real engine, two legs relayed in a bridge, one of them SRTP to a
 * phone played by this test (which holds the keys of both sides), the other plain RTP. What the
 * SRTP phone receives must decrypt to the plain phone's audio and never appear in the clear; what
 * it sends must reach the plain phone decrypted; forged and replayed packets are dropped; a
 * recording of the SRTP leg and of a snoop on it hold the decrypted audio; the BYE at the end
 * arrives as SRTCP.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import dgram from 'node:dgram';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { ulawToLinear } from '../codecs/g711.js';
import { MediaEngine } from '../media-engine.js';
import { parseRtcp } from '../rtp/rtcp.js';
import { parseRtpPacket, RTP_HEADER_SIZE, writeRtpHeader } from '../rtp/rtp-header.js';
import { FarEnd } from '../test-support/far-end.js';
import { waitFor } from '../test-support/wait.js';
import type { LegRemote, SrtpSuiteName } from '@switchboard/media-control';
import { SrtpSession } from './srtp-session.js';
import { masterKeyLength } from './suites.js';

const BASE_PORT = 30000 + 2 * Math.floor(Math.random() * 4000);

function rtp(sequence: number, ssrc: number, fill: number): Buffer {
  const packet = Buffer.alloc(RTP_HEADER_SIZE + 160, fill);
  writeRtpHeader(packet, { payloadType: 0, marker: false, sequenceNumber: sequence, timestamp: sequence * 160, ssrc });
  return packet;
}

type Receiver = dgram.Socket & { received: Buffer[] };

function bind(port: number): Promise<Receiver | null> {
  const socket = dgram.createSocket('udp4') as Receiver;
  socket.received = [];
  socket.on('message', (datagram) => socket.received.push(datagram));
  return new Promise((resolve) => {
    socket.once('error', () => {
      socket.close();
      resolve(null);
    });
    socket.bind(port, '127.0.0.1', () => resolve(socket));
  });
}

/** An RTP socket and its RTCP socket on the next port, as a phone has them. */
async function phoneSockets(): Promise<{ rtp: Receiver; rtcp: Receiver }> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const port = 50000 + 2 * Math.floor(Math.random() * 5000);
    const rtp = await bind(port);
    if (rtp === null) continue;
    const rtcp = await bind(port + 1);
    if (rtcp !== null) return { rtp, rtcp };
    rtp.close();
  }
  throw new Error('no free port pair for the phone');
}

describe('SRTP legs in a worker', () => {
  let engine: MediaEngine;
  let plainPhone: FarEnd;
  let dir = '';

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'switchboard-srtp-leg-'));
    engine = new MediaEngine({ rtpStart: BASE_PORT, rtpEnd: BASE_PORT + 100, workers: 1 });
    await engine.start();
    plainPhone = await FarEnd.open();
  });
  afterEach(async () => {
    await engine.close();
    plainPhone.close();
    await rm(dir, { recursive: true, force: true });
  });

  for (const suite of ['AES_CM_128_HMAC_SHA1_80', 'AEAD_AES_256_GCM'] as SrtpSuiteName[]) {
    it(`${suite}: relays between an SRTP phone and a plain one, drops forgeries and replays`, { timeout: 15_000 }, async () => {
      const ours = randomBytes(masterKeyLength(suite));
      const theirs = randomBytes(masterKeyLength(suite));
      // The phone's session: it sends with its key and receives with ours.
      const phone = new SrtpSession({ suite, localMasterKey: theirs, remoteMasterKey: ours });
      const { rtp: securePhone, rtcp: securePhoneRtcp } = await phoneSockets();
      const rtcpReceived = securePhoneRtcp.received;

      const secure = await engine.createLeg({ bindAddress: '127.0.0.1' });
      const plain = await engine.createLeg({ bindAddress: '127.0.0.1' });
      const codec = { name: 'PCMU', payloadType: 0, clockRate: 8000 } as const;
      const secureRemote: LegRemote = {
        address: '127.0.0.1',
        port: securePhone.address().port,
        codec,
        srtp: { suite, localMasterKey: ours.toString('base64'), remoteMasterKey: theirs.toString('base64') },
      };
      await engine.setLegRemote(secure.legId, secureRemote);
      await engine.setLegRemote(plain.legId, { address: '127.0.0.1', port: plainPhone.port, codec });
      await engine.createBridge({ bridgeId: 'b', kind: 'mixing' });
      await engine.joinBridge('b', secure.legId);
      await engine.joinBridge('b', plain.legId);

      // Recordings of the SRTP leg and of a snoop on it see the decrypted audio.
      await engine.startRecording({ kind: 'leg', legId: secure.legId }, { recordingId: 'leg', file: join(dir, 'leg.wav'), format: 'wav' });
      const snoop = await engine.createSnoopLeg({ sourceLegId: secure.legId, spy: 'in', whisper: 'none' });
      await engine.startRecording(
        { kind: 'leg', legId: snoop.legId },
        { recordingId: 'snoop', file: join(dir, 'snoop.wav'), format: 'wav' },
      );

      // The SRTP phone talks: its packets reach the plain phone in the clear.
      for (let i = 0; i < 30; i++) {
        securePhone.send(phone.protectRtp(rtp(65520 + i, 0xabc, 0x11)), secure.localPort, '127.0.0.1');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await waitFor('relayed audio at the plain phone', () => (plainPhone.packets.length >= 20 ? true : undefined), 3000);
      // Recorded and snooped, the leg is mixed rather than relayed: the constant payload survives
      // decoding and re-encoding, with silence around it while the jitter buffer fills and drains.
      const phoneAudio = plainPhone.packets.filter((p) => p.payload.length === 160 && p.payload.every((b) => b === 0x11));
      assert.ok(phoneAudio.length >= 15, `${phoneAudio.length} of ${plainPhone.packets.length} packets carry the phone's audio`);
      await engine.stopRecording('leg', { discard: false });
      await engine.stopRecording('snoop', { discard: false });
      const expected = ulawToLinear(0x11);
      for (const file of ['leg.wav', 'snoop.wav']) {
        const samples = new Int16Array((await readFile(join(dir, file))).buffer.slice(44));
        const matching = samples.filter((x) => x === expected).length;
        assert.ok(matching >= 160 * 10, `${file}: ${matching} samples of the phone's decrypted audio (${samples.length} in all)`);
      }
      await engine.destroyLeg(snoop.legId);

      // A forged packet and a replayed one are counted as dropped and never relayed.
      const before = (await engine.getCounters(secure.legId)).packetsDropped;
      const forged = phone.protectRtp(rtp(20, 0xabc, 0x22));
      forged[40] ^= 1;
      securePhone.send(forged, secure.localPort, '127.0.0.1');
      const replayed = phone.protectRtp(rtp(21, 0xabc, 0x33));
      securePhone.send(replayed, secure.localPort, '127.0.0.1');
      securePhone.send(replayed, secure.localPort, '127.0.0.1');
      securePhone.send(rtp(22, 0xabc, 0x44), secure.localPort, '127.0.0.1'); // plain RTP
      await waitFor(
        'drops counted',
        async () => ((await engine.getCounters(secure.legId)).packetsDropped >= before + 3 ? true : undefined),
        3000,
      );
      assert.equal((await engine.getCounters(secure.legId)).packetsDropped, before + 3);
      assert.equal(plainPhone.packets.filter((p) => p.payload[0] === 0x22 || p.payload[0] === 0x44).length, 0);

      // The plain phone talks: the SRTP phone gets encrypted packets that decrypt to its audio.
      for (let i = 0; i < 20; i++) {
        await plainPhone.send(rtp(100 + i, 0xdef, 0x55), plain.localPort);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await waitFor('SRTP at the secure phone', () => (securePhone.received.length >= 15 ? true : undefined), 3000);
      let heard = 0;
      for (const datagram of securePhone.received) {
        assert.equal(datagram.subarray(RTP_HEADER_SIZE).includes(Buffer.alloc(16, 0x55)), false, 'no clear payload on the wire');
        const result = phone.unprotectRtp(datagram);
        assert.ok(result.ok, `an SRTP packet from the leg did not authenticate (${result.ok ? '' : result.reason})`);
        const parsed = parseRtpPacket(result.packet);
        assert.ok(parsed.ok);
        if (result.packet.subarray(parsed.packet.payloadOffset).every((b) => b === 0x55)) heard += 1;
      }
      // The first frames after the snoop left may still be mixed silence; the rest is the plain phone's audio.
      assert.ok(heard >= 10, `${heard} of ${securePhone.received.length} decrypted packets carry the plain phone's audio`);
      const stats = await engine.getRtpStatistics(secure.legId);
      assert.ok(stats.rxcount >= 30 && stats.txcount >= 15, `rx ${stats.rxcount} tx ${stats.txcount}`);

      // Destroying the leg sends its BYE as SRTCP to the RTP port + 1.
      await engine.destroyLeg(secure.legId);
      await waitFor('SRTCP BYE', () => (rtcpReceived.length > 0 ? true : undefined), 3000);
      const report = phone.unprotectRtcp(rtcpReceived[0]);
      assert.ok(report.ok, 'the RTCP from the leg authenticates as SRTCP');
      const parsed = parseRtcp(report.packet);
      assert.ok(parsed.ok && parsed.packets.some((p) => p.type === 'bye'));
      assert.equal(parseRtcp(rtcpReceived[0]).ok && rtcpReceived[0].subarray(8).includes(Buffer.from('switchboard')), false);
      securePhone.close();
      securePhoneRtcp.close();
    });
  }
});
