/**
 * ICE-lite on a real leg in a worker: until the peer's checks arrive nothing is sent (not even to
 * the signalled address); a check is answered on the RTP socket with integrity and the peer's
 * mapped address; after nomination the leg's audio goes to the nominated address.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import dgram from 'node:dgram';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { MediaEngine } from '../media-engine.js';
import { parseRtpPacket } from '../rtp/rtp-header.js';
import { sleep, waitFor } from '../test-support/wait.js';
import { ATTRIBUTE, attribute, buildStun, parseStun, verifyFingerprint, verifyIntegrity } from './stun.js';

const BASE_PORT = 26000 + 2 * Math.floor(Math.random() * 1500);
const ICE = { ufrag: 'legA', password: 'abcdefghijklmnopqrstuv0123' };

describe('ICE-lite on a media leg', () => {
  let engine: MediaEngine;
  let peer: dgram.Socket;
  const received: Buffer[] = [];

  beforeEach(async () => {
    engine = new MediaEngine({ rtpStart: BASE_PORT, rtpEnd: BASE_PORT + 40, workers: 1 });
    await engine.start();
    peer = dgram.createSocket('udp4');
    peer.on('message', (d) => received.push(d));
    await new Promise<void>((resolve) => peer.bind(0, '127.0.0.1', resolve));
  });
  afterEach(async () => {
    await engine.close();
    peer.close();
  });

  it('answers checks, waits for them before sending, then sends to the nominated address', { timeout: 15_000 }, async () => {
    const leg = await engine.createLeg({ bindAddress: '127.0.0.1' });
    // The signalled address is a discard port: with ICE only the checked, nominated address gets media.
    await engine.setLegRemote(leg.legId, {
      address: '127.0.0.1',
      port: 9,
      codec: { name: 'PCMU', payloadType: 0, clockRate: 8000 },
      ice: ICE,
    });
    await engine.playTone(
      { kind: 'leg', legId: leg.legId },
      { playbackId: 't', segments: [{ frequencies: [440], durationMs: 0 }], repeat: true },
    );
    await sleep(200);
    assert.equal(received.length, 0, 'no media before a check');

    const transactionId = randomBytes(12);
    const checkMessage = buildStun(
      0x0001,
      transactionId,
      [
        { type: ATTRIBUTE.username, value: Buffer.from(`${ICE.ufrag}:peer`) },
        { type: ATTRIBUTE.iceControlling, value: randomBytes(8) },
        { type: ATTRIBUTE.useCandidate, value: Buffer.alloc(0) },
      ],
      Buffer.from(ICE.password),
    );
    peer.send(checkMessage, leg.localPort, '127.0.0.1');
    const response = await waitFor(
      'the check response',
      () => received.map((d) => parseStun(d)).find((m) => m?.transactionId.equals(transactionId)) ?? undefined,
      3000,
    );
    assert.equal(response.type, 0x0101);
    assert.ok(verifyIntegrity(response, Buffer.from(ICE.password)) && verifyFingerprint(response));
    assert.ok(attribute(response, ATTRIBUTE.xorMappedAddress));

    await waitFor(
      'RTP at the nominated address',
      () => (received.filter((d) => parseRtpPacket(d).ok).length >= 5 ? true : undefined),
      3000,
    );
    await engine.destroyLeg(leg.legId);
  });
});
